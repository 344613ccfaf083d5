/* The TOML reader: values, tree shape, spans, flags and errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/toml.h"
#include "data/tree.h"
#include "base/util.h"

/* What the last parse() printed on stderr. */
static char *errtext;

/*
 * Parse text as "t.toml" in run, with stderr captured into errtext so
 * the expected errors neither clutter the output nor go unchecked.
 */
static bool
parse_len(struct run *run, const char *text, size_t len, struct node **out)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct buf b = BUF_INIT;
	struct source *src;
	char chunk[512];
	size_t n;
	bool ok;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	src = run_source_mem(run, "t.toml", text, len);
	ok = toml_parse(run, src, out);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	/* buf_put() always terminates, even when nothing was printed. */
	buf_put(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
		buf_put(&b, chunk, n);
	fclose(tmp);
	free(errtext);
	errtext = buf_detach(&b);
	return ok;
}

static bool
parse(struct run *run, const char *text, struct node **out)
{
	return parse_len(run, text, strlen(text), out);
}

/* Errors the last parse reported: lines with ": error: ". */
static int
nerrors(void)
{
	const char *s = errtext;
	int n = 0;

	while ((s = strstr(s, ": error: ")) != NULL) {
		n++;
		s++;
	}
	return n;
}

/* Follow a dotted path of plain keys. */
static struct node *
get(struct node *t, const char *path)
{
	char key[64];
	const char *dot;

	while (t && (dot = strchr(path, '.')) != NULL) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		t = tree_get(t, key);
		path = dot + 1;
	}
	return t ? tree_get(t, path) : NULL;
}

static void
test_scalars(void)
{
	struct run run;
	struct node *root, *v;

	run_init(&run);
	CHECK(parse(&run,
	    "s1 = \"tab\\there \\u00e9 \\U0001F600\"\n"
	    "s2 = 'C:\\raw'\n"
	    "s3 = \"\"\"\nline1\n  line2 \\\n     cont\"\"\"\n"
	    "s4 = '''\n''q'' \\n'''\n"
	    "s5 = \"a\\u0000b\"\n"
	    "i1 = 9223372036854775807\n"
	    "i2 = -9223372036854775808\n"
	    "i3 = 0xdead_beef\n"
	    "i4 = 0o755\n"
	    "i5 = 0b1101\n"
	    "i6 = +1_000\n"
	    "f1 = 3.14\n"
	    "f2 = -2e-3\n"
	    "f3 = inf\n"
	    "f4 = -inf\n"
	    "f5 = nan\n"
	    "f6 = -0.0\n"
	    "f7 = 1_0.2_5e1_0\n"
	    "f8 = 1.5e-3\n"
	    "f9 = 1_0e-3\n"
	    "b1 = true\n"
	    "b2 = false\n", &root));
	CHECK_INT(nerrors(), 0);
	CHECK_INT(root->kind, NODE_TABLE);
	CHECK_STR(tree_get(root, "s1")->u.str.s,
	    "tab\there \xc3\xa9 \xf0\x9f\x98\x80");
	CHECK_STR(tree_get(root, "s2")->u.str.s, "C:\\raw");
	CHECK_STR(tree_get(root, "s3")->u.str.s, "line1\n  line2 cont");
	CHECK_STR(tree_get(root, "s4")->u.str.s, "''q'' \\n");
	v = tree_get(root, "s5");
	CHECK_INT(v->u.str.len, 3);
	CHECK(memcmp(v->u.str.s, "a\0b", 3) == 0);
	CHECK(tree_get(root, "i1")->u.i == INT64_MAX);
	CHECK(tree_get(root, "i2")->u.i == INT64_MIN);
	CHECK_INT(tree_get(root, "i3")->u.i, 0xdeadbeef);
	CHECK_INT(tree_get(root, "i4")->u.i, 0755);
	CHECK_INT(tree_get(root, "i5")->u.i, 13);
	CHECK_INT(tree_get(root, "i6")->u.i, 1000);
	CHECK_INT(tree_get(root, "i6")->kind, NODE_INT);
	CHECK(tree_get(root, "f1")->u.f == 3.14);
	CHECK(tree_get(root, "f2")->u.f == -2e-3);
	CHECK(tree_get(root, "f3")->u.f == INFINITY);
	CHECK(tree_get(root, "f4")->u.f == -INFINITY);
	CHECK(isnan(tree_get(root, "f5")->u.f));
	v = tree_get(root, "f6");
	CHECK(v->u.f == 0 && signbit(v->u.f));
	CHECK(tree_get(root, "f7")->u.f == 10.25e10);
	CHECK_INT(tree_get(root, "f7")->kind, NODE_FLOAT);
	/* A '-' at [4] does not make a date of a float. */
	CHECK(tree_get(root, "f8")->u.f == 1.5e-3);
	CHECK(tree_get(root, "f9")->u.f == 10e-3);
	CHECK_INT(tree_get(root, "b1")->kind, NODE_BOOL);
	CHECK(tree_get(root, "b1")->u.b);
	CHECK(!tree_get(root, "b2")->u.b);
	run_free(&run);
}

static void
test_int_limits(void)
{
	static const char *const bad[] = {
		"a = 9223372036854775808", "a = -9223372036854775809",
		"a = 0x8000000000000000", "a = 99999999999999999999999",
		"a = 012", "a = -01", "a = 1__0", "a = 1_", "a = _1",
		"a = 0x_1", "a = +0x1", "a = -0b1", "a = 0X1", "a = 0b2",
		"a = 1.", "a = .1", "a = 1e", "a = 1.e1", "a = 1e_1",
		"a = 1_.1", "a = 1e400", "a = +-1", "a = 1.2.3",
	};
	struct run run;
	struct node *root;
	size_t i;

	run_init(&run);
	CHECK(parse(&run, "a = 0x7fffffffffffffff\n"
	    "b = 0o777777777777777777777\n"
	    "c = 0b1111111111111111111111111111111"
	    "11111111111111111111111111111111\n"
	    "d = -0\ne = 00:00:00\n", &root));
	CHECK(tree_get(root, "a")->u.i == INT64_MAX);
	CHECK(tree_get(root, "b")->u.i == INT64_MAX);
	CHECK(tree_get(root, "c")->u.i == INT64_MAX);
	CHECK_INT(tree_get(root, "d")->u.i, 0);
	for (i = 0; i < LEN(bad); i++) {
		bool ok = parse(&run, bad[i], &root);

		if (ok || nerrors() != 1)
			fprintf(stderr, "accepted or miscounted: %s\n", bad[i]);
		CHECK(!ok);
		CHECK_INT(nerrors(), 1);
	}
	run_free(&run);
}

static void
test_datetimes(void)
{
	struct run run;
	struct node *root;
	const struct datetime *dt;

	run_init(&run);
	CHECK(parse(&run,
	    "odt = 1979-05-27T07:32:00.999999-07:30\n"
	    "z = 1979-05-27 00:32:00z\n"
	    "ldt = 1979-05-27t07:32:00.1234567891\n"
	    "ld = 2000-02-29\n"
	    "lt = 23:59:60.5\n", &root));
	dt = &tree_get(root, "odt")->u.dt;
	CHECK_INT(dt->kind, DT_OFFSET);
	CHECK_INT(dt->year, 1979);
	CHECK_INT(dt->month, 5);
	CHECK_INT(dt->day, 27);
	CHECK_INT(dt->hour, 7);
	CHECK_INT(dt->minute, 32);
	CHECK_INT(dt->nanosecond, 999999000);
	CHECK_INT(dt->offset_minutes, -(7 * 60 + 30));
	dt = &tree_get(root, "z")->u.dt;
	CHECK_INT(dt->kind, DT_OFFSET);
	CHECK_INT(dt->offset_minutes, 0);
	dt = &tree_get(root, "ldt")->u.dt;
	CHECK_INT(dt->kind, DT_LOCAL);
	CHECK_INT(dt->nanosecond, 123456789);
	dt = &tree_get(root, "ld")->u.dt;
	CHECK_INT(dt->kind, DT_DATE);
	CHECK_INT(dt->day, 29);
	dt = &tree_get(root, "lt")->u.dt;
	CHECK_INT(dt->kind, DT_TIME);
	CHECK_INT(dt->second, 60);
	CHECK_INT(dt->nanosecond, 500000000);

	CHECK(!parse(&run, "a = 1900-02-29", &root));
	CHECK(strstr(errtext, "t.toml:1:13: error: day 29 is out of range "
	    "for 1900-02\n") != NULL);
	CHECK(!parse(&run, "a = 2023-04-31\nb = 2023-13-01\nc = 24:00:00\n"
	    "d = 12:60:00\ne = 12:00:61\nf = 2023-01-01T00:00:00+24:00\n"
	    "g = 1979-05-27T07:32\nh = 07:32:00Z\ni = 12345-01-01\n"
	    "j = 1979-05-27T\n", &root));
	CHECK_INT(nerrors(), 10);
	run_free(&run);
}

static void
test_order_and_tables(void)
{
	struct run run;
	struct node *root, *t, *arr;

	run_init(&run);
	CHECK(parse(&run,
	    "z = 1\ny = 2\na.c = 3\na.b = 4\n"
	    "[t]\nm = 1\n"
	    "[[p]]\nn = 1\n[p.q]\nr = 1\n[[p]]\nn = 2\n"
	    "[x.y.z]\n[x]\nw = {k = [1, {v = 2}]}\n", &root));
	CHECK_INT(root->u.table.n, 6);
	CHECK_STR(root->u.table.items[0].key, "z");
	CHECK_STR(root->u.table.items[1].key, "y");
	CHECK_STR(root->u.table.items[2].key, "a");
	CHECK_STR(root->u.table.items[3].key, "t");
	CHECK_STR(root->u.table.items[4].key, "p");
	CHECK_STR(root->u.table.items[5].key, "x");
	t = tree_get(root, "a");
	CHECK_STR(t->u.table.items[0].key, "c");
	CHECK_STR(t->u.table.items[1].key, "b");
	CHECK(t->flags & NODE_DOTTED);
	CHECK(t->flags & NODE_IMPLICIT);
	CHECK(!(t->flags & NODE_DEFINED));
	CHECK(tree_get(root, "t")->flags & NODE_DEFINED);
	arr = tree_get(root, "p");
	CHECK_INT(arr->kind, NODE_ARRAY);
	CHECK(arr->flags & NODE_AOT);
	CHECK_INT(arr->u.array.n, 2);
	CHECK_INT(tree_get(tree_get(arr->u.array.items[0], "q"), "r")->u.i, 1);
	CHECK_INT(tree_get(arr->u.array.items[1], "n")->u.i, 2);
	CHECK(tree_get(arr->u.array.items[1], "q") == NULL);
	/* [x.y.z] made x and x.y implicitly; [x] then defined x. */
	t = tree_get(root, "x");
	CHECK(t->flags & NODE_DEFINED);
	CHECK(!(t->flags & NODE_IMPLICIT));
	CHECK(tree_get(t, "y")->flags & NODE_IMPLICIT);
	CHECK(get(root, "x.y.z")->flags & NODE_DEFINED);
	t = get(root, "x.w");
	CHECK(t->flags & NODE_FROZEN);
	CHECK(tree_get(t, "k")->flags & NODE_FROZEN);
	CHECK_INT(tree_get(t, "k")->u.array.n, 2);
	CHECK_INT(tree_get(tree_get(t, "k")->u.array.items[1], "v")->u.i, 2);

	/* Mixed-type arrays, trailing commas, comments and line breaks. */
	CHECK(parse(&run, "a = [\n  1, # one\n  'two',\n  [3.0],\n\n"
	    "  # gap\n  {four = 4},\n]\n", &root));
	CHECK_INT(tree_get(root, "a")->u.array.n, 4);
	CHECK(parse(&run, "", &root));
	CHECK_INT(root->kind, NODE_TABLE);
	CHECK_INT(root->u.table.n, 0);
	CHECK(parse(&run, "\xef\xbb\xbf# bom\r\na = 1\r\n", &root));
	CHECK_INT(tree_get(root, "a")->u.i, 1);
	run_free(&run);
}

static void
test_spans(void)
{
	struct run run;
	struct node *root, *v;
	struct member *m;
	struct source *src;
	unsigned line, col;

	run_init(&run);
	CHECK(parse(&run, "# c\nname = \"x\"\n[tab]\n  \"\xc3\xa9\" = 1\n"
	    "  \"k\".j = [1, 2]\n", &root));
	src = run_source(&run, root->src);
	CHECK(src != NULL);
	m = tree_member(root, "name", 4);
	source_linecol(src, m->keyspan.off, &line, &col);
	CHECK_INT(line, 2);
	CHECK_INT(col, 1);
	CHECK_INT(m->keyspan.len, 4);
	CHECK_INT(m->keysrc, src->id);
	v = m->value;
	source_linecol(src, v->span.off, &line, &col);
	CHECK_INT(line, 2);
	CHECK_INT(col, 8);
	CHECK_INT(v->span.len, 3);
	CHECK_INT(v->src, src->id);
	v = tree_get(root, "tab");
	source_linecol(src, v->span.off, &line, &col);
	CHECK_INT(line, 3);
	CHECK_INT(v->span.len, 5);
	/* Columns count code points: "é" is one column. */
	m = tree_member(v, "\xc3\xa9", 2);
	CHECK(m != NULL);
	if (!m) {
		run_free(&run);
		return;
	}
	source_linecol(src, m->value->span.off, &line, &col);
	CHECK_INT(line, 4);
	CHECK_INT(col, 9);
	CHECK_INT(m->keyspan.len, 4);
	m = tree_member(v, "k", 1);
	source_linecol(src, m->keyspan.off, &line, &col);
	CHECK_INT(col, 3);
	CHECK_INT(m->keyspan.len, 3);
	v = tree_get(m->value, "j");
	source_linecol(src, v->span.off, &line, &col);
	CHECK_INT(line, 5);
	CHECK_INT(col, 11);
	CHECK_INT(v->span.len, 6);
	source_linecol(src, v->u.array.items[1]->span.off, &line, &col);
	CHECK_INT(col, 15);
	run_free(&run);
}

static void
test_redefinition(void)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "a = 1\na = 2", "t.toml:2:1: error: duplicate key 'a' "
		  "(first defined at line 1)" },
		{ "a = 1\n\"a\" = 2", "duplicate key 'a'" },
		{ "a.b = 1\na.b = 2", "duplicate key 'a.b'" },
		{ "a.b = 1\na = 2", "duplicate key 'a'" },
		{ "a = 1\na.b = 2", "t.toml:2:1: error: 'a' is an integer "
		  "(line 1), not a table" },
		{ "[a]\n[a]", "t.toml:2:2: error: table 'a' is already defined "
		  "(at line 1)" },
		{ "[a.b]\n[a]\n[a]",
		  "table 'a' is already defined (at line 2)" },
		{ "[a]\nb.c = 1\n[a.b]", "cannot define table 'a.b' with a "
		  "header: dotted keys created it at line 2" },
		{ "[a.b.c]\n[a]\nb.c.d = 1", "cannot add to table 'b.c' with "
		  "dotted keys: a header defined it at line 1" },
		{ "a = {b = 1}\na.c = 2", "cannot extend inline table 'a'" },
		{ "a = {b = {}}\n[a.b]", "cannot extend inline table 'a'" },
		{ "a = {b = 1, b.c = 2}", "'b' is an integer (line 1), not a "
		  "table" },
		{ "a = []\n[[a]]", "cannot append to array 'a' with [[...]]" },
		{ "a = [{}]\n[a.b]", "'a' is an array (line 1), not a table" },
		{ "[[a]]\n[a]", "'a' is an array of tables (line 1), not a "
		  "table" },
		{ "[a]\n[[a]]", "'a' is a table (line 1), not an array of "
		  "tables" },
		{ "[[a.b]]\n[a]\nb.c = 1", "'b' is an array of tables" },
		{ "\"\" = 1\n'' = 2", "duplicate key '\"\"'" },
	};
	struct run run;
	struct node *root;
	size_t i;

	run_init(&run);
	for (i = 0; i < LEN(cases); i++) {
		bool ok = parse(&run, cases[i].text, &root);

		CHECK(!ok);
		CHECK_INT(nerrors(), 1);
		if (!strstr(errtext, cases[i].msg)) {
			fprintf(stderr, "case %zu: want \"%s\" in:\n%s", i,
			    cases[i].msg, errtext);
			CHECK(0);
		}
	}
	/* What stays allowed. */
	CHECK(parse(&run, "[a.b.c]\n[a]\nb.d = 1\n", &root));
	CHECK(parse(&run, "[a]\nb.c = 1\n[a.b.d]\n", &root));
	CHECK(parse(&run, "[[a]]\n[a.b]\n[[a]]\n[a.b]\n", &root));
	CHECK(parse(&run, "[[a.b]]\n[a]\nc = 1\n", &root));
	run_free(&run);
}

static void
test_errors(void)
{
	struct run run;
	struct node *root;
	struct buf b = BUF_INIT;
	int i;

	run_init(&run);
	/* One error per line, each line recovered from. */
	CHECK(!parse(&run, "a = \"\\q\"\nb = 012\nc = tru\nd =\n= 1\n"
	    "[t\ne = [1,\n  \"x,\n  3,\n]\nf = 1 2\ng = 1\n", &root));
	CHECK_INT(nerrors(), 8);
	CHECK(strstr(errtext, "t.toml:1:6: error: invalid escape sequence "
	    "'\\q'\n") != NULL);
	CHECK(strstr(errtext, "t.toml:6:3: error: expected ']' to close "
	    "table header, found end of line\n") != NULL);
	CHECK(strstr(errtext, "t.toml:8:3: error: unterminated string\n")
	    != NULL);
	CHECK(strstr(errtext, "t.toml:11:7: error: expected end of line "
	    "after value, found '2'\n") != NULL);
	CHECK_INT(diag_status(&run), EXIT_INPUT);

	/* The cap: 20 errors, then a note and the reader stops. */
	for (i = 0; i < 50; i++)
		buf_printf(&b, "k%d = ?\n", i);
	CHECK(!parse(&run, b.data, &root));
	CHECK_INT(nerrors(), 20);
	CHECK(strstr(errtext, "note: too many errors in t.toml; stopping")
	    != NULL);
	buf_free(&b);

	/* Bytes that are wrong anywhere. */
	CHECK(!parse_len(&run, "a = 1\n\0", 7, &root));
	CHECK(strstr(errtext, "t.toml:2:1: error: NUL byte in text") != NULL);
	CHECK(!parse(&run, "a = 1\rb = 2", &root));
	CHECK(strstr(errtext, "carriage return not followed") != NULL);
	CHECK(!parse(&run, "# \x01\na = \"\xff\"\n", &root));
	CHECK_INT(nerrors(), 2);
	CHECK(strstr(errtext, "control character U+0001 is not allowed in "
	    "a comment") != NULL);
	CHECK(strstr(errtext, "t.toml:2:6: error: invalid UTF-8") != NULL);
	CHECK(!parse(&run, "a = \"\\uD800\"", &root));
	CHECK(!parse(&run, "a = \"\\U00110000\"", &root));
	CHECK(!parse(&run, "a = {b = 1,}", &root));
	CHECK(!parse(&run, "a = {b = 1\n}", &root));
	CHECK(!parse(&run, "\"\"\"k\"\"\" = 1", &root));
	run_free(&run);
}

static void
test_depth(void)
{
	struct run run;
	struct node *root;
	struct buf b = BUF_INIT;
	int i;

	run_init(&run);
	buf_puts(&b, "a = ");
	for (i = 0; i < 100000; i++)
		buf_putc(&b, '[');
	CHECK(!parse(&run, b.data, &root));
	CHECK_INT(nerrors(), 1);
	CHECK(strstr(errtext, "nesting deeper than 256 levels") != NULL);
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_puts(&b, "k.");
	buf_puts(&b, "k = 1");
	CHECK(!parse(&run, b.data, &root));
	CHECK_INT(nerrors(), 1);
	/* Right at the limit is fine. */
	buf_reset(&b);
	buf_puts(&b, "a = ");
	for (i = 0; i < 255; i++)
		buf_putc(&b, '[');
	for (i = 0; i < 255; i++)
		buf_putc(&b, ']');
	CHECK(parse(&run, b.data, &root));
	buf_free(&b);
	run_free(&run);
}

int
main(void)
{
	test_scalars();
	test_int_limits();
	test_datetimes();
	test_order_and_tables();
	test_spans();
	test_redefinition();
	test_errors();
	test_depth();
	free(errtext);
	return check_done("test_toml");
}
