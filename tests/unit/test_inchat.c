/*
 * test_inchat: the one in-chat placement (prompt/inchat.h), as a table:
 * the pieces (depth, order, role, in the caller's order), the number of
 * conversation messages, the dialect's rules, and the conversation
 * planned, written m0 m1 ... for its messages and [a+b] for the pieces
 * (named by letter, in the caller's order) joined into one message.
 */
#include "prompt/inchat.h"

#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "check.h"

#define S ROLE_SYSTEM
#define U ROLE_USER
#define A ROLE_ASSISTANT

/* SillyTavern's order within a depth: assistant, user, system. */
static const int tavern_rank[] = { [ROLE_ASSISTANT] = 0, [ROLE_USER] = 1,
	[ROLE_SYSTEM] = 2, [ROLE_DEVELOPER] = 3, [ROLE_TOOL] = 3 };

static const struct {
	const char *name;
	bool tavern;
	size_t conv, n;
	struct inchat_piece v[6];
	const char *want;
} cases[] = {
	{ "no pieces", false, 2, 0, { { 0 } }, "m0 m1" },
	{ "depth 0 goes last", false, 2, 1, { { 0, 0, S, 0 } },
	    "m0 m1 [a]" },
	{ "depth counts conversation messages only", false, 3, 2,
	    { { 1, 0, S, 0 }, { 2, 0, S, 1 } }, "m0 [b] m1 [a] m2" },
	{ "too deep: at the top, deepest first", false, 1, 2,
	    { { 5, 0, U, 0 }, { 9, 0, S, 1 } }, "[b] [a] m0" },
	{ "profile: neighbours of one depth and role join", false, 1, 3,
	    { { 1, 0, S, 0 }, { 1, 0, S, 1 }, { 1, 0, U, 2 } },
	    "[a+b] [c] m0" },
	{ "profile: the caller's order within a depth stays", false, 0, 3,
	    { { 0, 0, S, 0 }, { 0, 0, U, 1 }, { 0, 0, S, 2 } },
	    "[a] [b] [c]" },
	{ "tavern: lower order first, then assistant, user, system", true,
	    1, 5, { { 0, 100, S, 0 }, { 0, 100, U, 1 }, { 0, 50, A, 2 },
	    { 0, 100, S, 3 }, { 0, 100, A, 4 } }, "m0 [c] [e] [b] [a+d]" },
	{ "tavern: one depth's pieces join wherever they are", true, 2, 3,
	    { { 1, 100, S, 0 }, { 3, 100, U, 1 }, { 1, 100, S, 2 } },
	    "[b] m0 [a+c] m1" },
};

static void
render(char *out, size_t cap, const struct inchat_piece *v,
    const struct inchat_slot *s, size_t ns)
{
	size_t i, k, len = 0;

	out[0] = '\0';
	for (i = 0; i < ns; i++) {
		if (i)
			len += (size_t)snprintf(out + len, cap - len, " ");
		if (!s[i].inject) {
			len += (size_t)snprintf(out + len, cap - len, "m%zu",
			    s[i].msg);
			continue;
		}
		len += (size_t)snprintf(out + len, cap - len, "[");
		for (k = 0; k < s[i].n; k++)
			len += (size_t)snprintf(out + len, cap - len, "%s%c",
			    k ? "+" : "", (int)('a' +
			    v[s[i].first + k].index));
		len += (size_t)snprintf(out + len, cap - len, "]");
	}
}

int
main(void)
{
	struct arena a;
	size_t c;

	arena_init(&a);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct inchat_piece v[6];
		struct inchat_rules r = { cases[c].tavern ? tavern_rank :
		    NULL };
		struct inchat_slot *s;
		size_t ns;
		char got[128];

		memcpy(v, cases[c].v, sizeof(v));
		s = inchat_place(&a, v, cases[c].n, cases[c].conv, &r, &ns);
		render(got, sizeof(got), v, s, ns);
		if (strcmp(got, cases[c].want))
			fprintf(stderr, "case: %s\n", cases[c].name);
		CHECK_STR(got, cases[c].want);
	}
	arena_free(&a);
	return check_done("inchat");
}
