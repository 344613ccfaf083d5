/* PromptStack semantics: replace in place, empty skipped, order. */
#include <string.h>

#include "base/arena.h"
#include "check.h"
#include "prompt/entry.h"

static struct entry *
mk(struct arena *a, const char *key, const char *content, int prio)
{
	struct entry *e = entry_new(a, key, "inject");

	e->content = content;
	e->len = content ? strlen(content) : 0;
	e->priority = prio;
	return e;
}

static const char *
order(struct stack *st, struct arena *a)
{
	struct entry **v;
	size_t n = stack_select(st, PLACE_SYSTEM, ROLE_SYSTEM, &v), i;
	char *out = arena_alloc(a, 256);

	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, v[i]->key);
	}
	return out;
}

int
main(void)
{
	struct arena a;
	struct stack st;
	struct entry *first, *again, *blank, *off, *dev;
	const char *s;
	size_t n;

	arena_init(&a);
	stack_init(&st, &a);
	stack_add(&st, first = mk(&a, "a", "one", 50));
	stack_add(&st, mk(&a, "b", "two", 50));
	stack_add(&st, mk(&a, "c", "three", 10));
	CHECK_STR(order(&st, &a), "c,a,b");
	/* Same key: replaced in place, so it keeps its place among ties. */
	stack_add(&st, again = mk(&a, "a", "one again", 50));
	CHECK_STR(order(&st, &a), "c,a,b");
	CHECK(first->status == ENTRY_REPLACED);
	CHECK(first->replaced_by == again);
	CHECK(again->status == ENTRY_ACTIVE);
	/* Whitespace-only content is not added and removes nothing. */
	stack_add(&st, blank = mk(&a, "b", " \n\t ", 1));
	CHECK(blank->status == ENTRY_EMPTY);
	CHECK_STR(order(&st, &a), "c,a,b");
	stack_add(&st, mk(&a, "z", NULL, 1));
	CHECK_STR(order(&st, &a), "c,a,b");
	/* Disabled: kept out, and it does replace (it takes the new fields). */
	off = mk(&a, "c", "three off", 10);
	off->enabled = false;
	stack_add(&st, off);
	CHECK(off->status == ENTRY_DISABLED);
	CHECK_STR(order(&st, &a), "a,b");
	/* A new priority moves the replaced entry. */
	stack_add(&st, mk(&a, "b", "two first", -5));
	CHECK_STR(order(&st, &a), "b,a");
	/* Roles select separately. */
	dev = mk(&a, "d", "dev", 0);
	dev->role = ROLE_DEVELOPER;
	stack_add(&st, dev);
	CHECK_STR(order(&st, &a), "b,a");
	{
		struct entry **v;

		CHECK_INT(stack_select(&st, PLACE_SYSTEM, ROLE_DEVELOPER, &v),
		    1);
		CHECK(v[0] == dev);
	}
	/* Every entry offered is remembered, in order. */
	CHECK_INT(st.nall, 9);
	CHECK_STR(entry_status_name(ENTRY_MISSING), "missing");
	/* One spelling for both builds' reasons. */
	CHECK_STR(entry_status_name(ENTRY_OUT_OF_SCOPE), "out of scope");
	CHECK_STR(entry_status_name(ENTRY_NOT_PLACED), "not placed");
	CHECK_STR(entry_status_name(ENTRY_NO_USER_MESSAGE), "no user message");
	CHECK_STR(entry_status_name(ENTRY_CONTINUED), "continued");
	{
		int k;

		for (k = 0; k < ENTRY__STATUS_COUNT; k++)
			CHECK(*entry_status_name((enum entry_status)k));
	}
	{
		/* A replacement that gives only its text keeps the
		 * priority, place and scope of the entry it replaces. */
		struct entry *keep = mk(&a, "a", "kept", 100), *in, **v;

		keep->given = 0;
		keep->scope = SCOPE_SESSION;
		stack_add(&st, keep);
		CHECK_INT(keep->priority, 50);
		CHECK(keep->scope == SCOPE_TURN);
		CHECK_STR(order(&st, &a), "b,a");
		/* PromptStack remove, and only the live key. */
		CHECK(stack_remove(&st, "a") == keep);
		CHECK(keep->status == ENTRY_REMOVED);
		CHECK(stack_remove(&st, "a") == NULL);
		CHECK(stack_remove(&st, "nope") == NULL);
		CHECK_STR(order(&st, &a), "b");
		/* Scopes: the others are out of scope. */
		v = NULL;
		stack_keep_scopes(&st, 1u << SCOPE_GLOBAL);
		CHECK_STR(order(&st, &a), "");
		CHECK_STR(entry_status_name(ENTRY_OUT_OF_SCOPE),
		    "out of scope");
		/* In-chat entries: deepest first, then priority. */
		in = mk(&a, "x0", "x", 5);
		in->placement = PLACE_DEPTH;
		stack_add(&st, in);
		in = mk(&a, "x2", "x", 9);
		in->placement = PLACE_DEPTH;
		in->depth = 2;
		stack_add(&st, in);
		in = mk(&a, "x1", "x", 1);
		in->placement = PLACE_DEPTH;
		stack_add(&st, in);
		CHECK_INT(stack_select_depth(&st, &v), 3);
		CHECK_STR(v[0]->key, "x2");
		CHECK_STR(v[1]->key, "x1");
		CHECK_STR(v[2]->key, "x0");
	}
	{
		/* The one rule for position, role and depth. */
		enum role r = ROLE_ASSISTANT;
		enum placement p;

		CHECK(entry_place(-1, true, &r, true, &p) == ENTRY_PLACE_OK &&
		    p == PLACE_DEPTH && r == ROLE_ASSISTANT);
		CHECK(entry_place(-1, true, &r, false, &p) ==
		    ENTRY_PLACE_NEEDS_DEPTH);
		r = ROLE_DEVELOPER;
		CHECK(entry_place(3, true, &r, false, &p) ==
		    ENTRY_PLACE_INCHAT_ROLE);
		CHECK(entry_place(1, false, &r, false, &p) == ENTRY_PLACE_OK &&
		    r == ROLE_DEVELOPER && p == PLACE_SYSTEM);
		CHECK(entry_place(2, false, &r, false, &p) == ENTRY_PLACE_OK &&
		    r == ROLE_USER && p == PLACE_USER);
		CHECK(entry_place(0, false, &r, true, &p) ==
		    ENTRY_PLACE_DEPTH);
		r = ROLE_USER;
		CHECK(entry_place(0, true, &r, false, &p) == ENTRY_PLACE_ROLE);
	}
	/* Trimming: leading blank lines go, a first line's indent stays. */
	s = "\n  \n  indented\nx  \n\n";
	n = entry_trim(&s, strlen(s));
	CHECK_INT(n, 12);
	CHECK(strncmp(s, "  indented\nx", n) == 0);
	s = " \n\t";
	CHECK_INT(entry_trim(&s, strlen(s)), 0);
	arena_free(&a);
	return check_done("test_entry");
}
