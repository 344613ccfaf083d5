/* The shared {{...}} lexer: forms, arguments, comments, escapes, what
 * does not close, nesting, and that any arrangement of braces is lexed
 * in linear time. */
#include <string.h>
#include <time.h>

#include "base/arena.h"
#include "base/buf.h"
#include "check.h"
#include "text/macro_lex.h"

static struct arena arena;

/* The token at s[i], as "form|name|args" (or "none"). */
static const char *
tok(const char *s, size_t i)
{
	static const char *const forms[] = { "bare", "colons", "colon",
		"space", "comment", "other" };
	struct mlex l;
	struct mlex_tok t;

	mlex_init(&l, s, strlen(s), &arena);
	if (!mlex_at(&l, i, &t))
		return "none";
	return arena_printf(&arena, "%s|%.*s|%.*s|%zu", forms[t.form],
	    (int)(t.n1 - t.n0), s + t.n0, (int)(t.in1 - t.a0), s + t.a0,
	    t.end);
}

/* The "::" arguments of the token at 0, joined by '/'. */
static const char *
args(const char *s, size_t max)
{
	struct mlex l;
	struct mlex_tok t;
	struct mlex_arg a[8];
	struct buf b = BUF_INIT;
	size_t n, i;
	const char *r;

	mlex_init(&l, s, strlen(s), &arena);
	if (!mlex_at(&l, 0, &t))
		return "none";
	n = mlex_args(&l, &t, a, max);
	buf_printf(&b, "%zu:", n);
	for (i = 0; i < n && i < max; i++)
		buf_printf(&b, "%s%.*s", i ? "/" : "",
		    (int)(a[i].end - a[i].off), s + a[i].off);
	r = arena_strndup(&arena, b.data, b.len);
	buf_free(&b);
	return r;
}

/* Every token mlex_next() finds, as "at-end" pairs. */
static const char *
scan(const char *s)
{
	struct mlex l;
	struct mlex_tok t;
	struct buf b = BUF_INIT;
	size_t i = 0;
	const char *r;

	mlex_init(&l, s, strlen(s), &arena);
	buf_puts(&b, "");
	while (mlex_next(&l, i, &t)) {
		buf_printf(&b, "%s%zu-%zu", b.len ? " " : "", t.at, t.end);
		i = t.end;
	}
	r = arena_strndup(&arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

static void
forms(void)
{
	CHECK_STR(tok("{{user}}", 0), "bare|user||8");
	CHECK_STR(tok("{{ user\t}}", 0), "bare|user||10");
	CHECK_STR(tok("{{角色}}", 0), "bare|角色||10");
	CHECK_STR(tok("{{setvar::x::1}}", 0), "colons|setvar|x::1|16");
	CHECK_STR(tok("{{reverse:abc}}", 0), "colon|reverse|abc|15");
	CHECK_STR(tok("{{roll 1d6}}", 0), "space|roll|1d6|12");
	CHECK_STR(tok("{{roll   2d6+1 }}", 0), "space|roll|2d6+1|17");
	CHECK_STR(tok("{{if !x}}", 0), "space|if|!x|9");
	CHECK_STR(tok("{{time_UTC+2}}", 0), "other|time_UTC|+2|14");
	CHECK_STR(tok("{{/if}}", 0), "other||/if|7");
	CHECK_STR(tok("{{}}", 0), "other|||4");
	/* A comment runs to the first "}}", over '}' and lines. */
	CHECK_STR(tok("{{// a } b\nc}}x}}", 0), "comment|| a } b\nc|14");
	CHECK_STR(tok("{{ //x}}", 0), "comment||x|8");
	/* Not a token. */
	CHECK_STR(tok("{{user", 0), "none");
	CHECK_STR(tok("{user}}", 0), "none");
	CHECK_STR(tok("{{user}", 0), "none");
	CHECK_STR(tok("x{{a}}", 0), "none");
	CHECK_STR(tok("", 0), "none");
	/* "}}}": the token ends at the first pair. */
	CHECK_STR(tok("{{a}}}", 0), "bare|a||5");
	CHECK_STR(tok("{{{a}}}", 0), "other||{a|6");
	CHECK_STR(tok("{{{a}}}", 1), "bare|a||6");
}

static void
arguments(void)
{
	CHECK_STR(args("{{random::a::b::c}}", 8), "3:a/b/c");
	CHECK_STR(args("{{random::a::b::c}}", 2), "2:a/b::c");
	CHECK_STR(args("{{random::::}}", 8), "2:/");
	CHECK_STR(args("{{random:a,b}}", 8), "1:a,b");
	CHECK_STR(args("{{roll 1d6}}", 8), "1:1d6");
	CHECK_STR(args("{{newline}}", 8), "0:");
	CHECK_STR(args("{{a::x:y}}", 8), "1:x:y");
}

static void
braces(void)
{
	struct mlex l;
	struct mlex_tok t;
	const char *s;

	/* A lone '}' inside: a token for the template, not for a
	 * SillyTavern step. */
	mlex_init(&l, "{{a}b}}", 7, &arena);
	CHECK(mlex_at(&l, 0, &t) && t.brace && t.end == 7);
	CHECK_STR(scan("{{a}b}} {{c}}"), "8-13");
	CHECK_STR(scan("{{a}} {{b::c}}{{d}}"), "0-5 6-14 14-19");
	CHECK_STR(scan("{{a"), "");
	CHECK_STR(scan("}}{{}}"), "2-6");
	/* The leftmost "{{" is offered first, as a /{{[^}]*}}/g finds. */
	CHECK_STR(scan("{{a{{b}}"), "0-8");
	/* Nesting: the inner token and the outer one's matching end. */
	s = "{{reverse::{{x}}}}";
	mlex_init(&l, s, strlen(s), &arena);
	CHECK(mlex_at(&l, 0, &t) && t.nested && t.end == 16);
	CHECK_INT(mlex_match(&l, 0), 18);
	CHECK_INT(mlex_match(&l, 11), 16);
	CHECK_INT(mlex_match(&l, 1), 0);
	s = "{{a::{{b::{{c}}}}}} {{d";
	mlex_init(&l, s, strlen(s), &arena);
	CHECK_INT(mlex_match(&l, 0), 19);
	CHECK_INT(mlex_match(&l, 5), 17);
	CHECK_INT(mlex_match(&l, 20), 0);
	/* Escapes. */
	CHECK_INT(mlex_escape("\\{\\{", 4, 0), 4);
	CHECK_INT(mlex_escape("\\}\\}", 4, 0), 4);
	CHECK_INT(mlex_escape("\\{\\}", 4, 0), 0);
	CHECK_INT(mlex_escape("\\{\\", 3, 0), 0);
	CHECK_INT(mlex_open(&l, 1), 5);
}

/* The tokens SillyTavern's /{{[^}]*}}/g finds at or after i, the
 * straightforward way: the reference for mlex_next(). */
static bool
naive_next(const char *s, size_t i, size_t *at, size_t *end)
{
	const char *o, *c;

	while ((o = strstr(s + i, "{{")) != NULL) {
		c = strchr(o + 2, '}');
		if (!c)
			return false;
		if (c[1] == '}') {
			*at = (size_t)(o - s);
			*end = (size_t)(c - s) + 2;
			return true;
		}
		i = (size_t)(o - s) + 1;
	}
	return false;
}

/* Random texts of braces, colons, blanks and letters: mlex_next() finds
 * what the reference finds, whether a caller takes each token or passes
 * it by, and every token's parts lie inside it. */
static void
random_texts(void)
{
	static const char alphabet[] = "{{}}{}:/ a\\b";
	char s[64];
	unsigned seed = 12345;
	struct mlex l;
	struct mlex_tok t;
	size_t n, i, k, at, end, take;

	for (k = 0; k < 20000; k++) {
		n = (seed = seed * 1103515245u + 12345u) % 40;
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		s[n] = '\0';
		for (take = 0; take < 2; take++) {
			bool a, b;

			mlex_init(&l, s, n, &arena);
			i = 0;
			do {
				a = mlex_next(&l, i, &t);
				b = naive_next(s, i, &at, &end);
				CHECK(a == b);
				if (!a || !b)
					break;
				CHECK(t.at == at && t.end == end);
				CHECK(t.at + 4 <= t.end && t.end <= n);
				CHECK(t.at + 2 <= t.in0 && t.in0 <= t.in1 &&
				    t.in1 <= t.end - 2);
				CHECK(t.n0 <= t.n1 && t.n1 <= t.in1 &&
				    t.a0 <= t.in1);
				CHECK(!mlex_match(&l, t.at) ||
				    mlex_match(&l, t.at) >= t.end);
				i = take ? t.end : t.at + 1;
			} while (check_failures == 0);
		}
	}
}

/* Lex every position and scan the whole of s: seconds would mean a
 * quadratic search. */
static void
linear(const char *what, const char *unit, size_t reps, const char *tail)
{
	struct buf b = BUF_INIT;
	struct mlex l;
	struct mlex_tok t;
	clock_t t0;
	size_t i, found = 0;
	double secs;

	for (i = 0; i < reps; i++)
		buf_puts(&b, unit);
	buf_puts(&b, tail);
	t0 = clock();
	mlex_init(&l, b.data, b.len, &arena);
	for (i = 0; i < b.len; i++)
		found += mlex_at(&l, i, &t);
	for (i = 0; mlex_next(&l, i, &t); i = t.at + 1)
		found++;
	(void)mlex_match(&l, 0);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	if (secs > 1.0)
		fprintf(stderr, "%s: %.2fs for %zu bytes\n", what, secs, b.len);
	CHECK(secs < 1.0);
	(void)found;
	buf_free(&b);
}

static bool
no_x(void *ctx, const char *in, size_t n)
{
	(*(int *)ctx)++;
	return !(n && in[0] == 'x');
}

static bool
closed(const char *s)
{
	return mlex_closed(s, strlen(s), NULL, NULL);
}

/* mlex_closed(): every '{' opens a macro that closes without a '{'. */
static void
closedness(void)
{
	int calls = 0;

	CHECK(closed(""));
	CHECK(closed("no braces } at all"));
	CHECK(closed("{{a}} and {{b::c}}"));
	CHECK(closed("{{// a } b}}"));
	CHECK(!closed("{a}"));
	CHECK(!closed("{{a"));
	CHECK(!closed("{{a}"));
	CHECK(!closed("{{a{{b}}}}"));
	CHECK(!closed("x{"));
	CHECK(mlex_closed("{{a}} {{b}}", 11, no_x, &calls) && calls == 2);
	calls = 0;
	CHECK(!mlex_closed("{{a}} {{x}} {{b}}", 17, no_x, &calls) &&
	    calls == 2);
}

int
main(void)
{
	arena_init(&arena);
	forms();
	arguments();
	braces();
	closedness();
	random_texts();
	linear("unclosed", "{{", 200000, "");
	linear("one close", "{{a", 100000, "}}");
	linear("lone braces", "{{a}b", 100000, "}}");
	linear("nested", "{{a::", 100000, "x}}");
	linear("closers", "}}", 200000, "");
	linear("comments", "{{//", 100000, "}}");
	arena_free(&arena);
	return check_done("test_macro_lex");
}
