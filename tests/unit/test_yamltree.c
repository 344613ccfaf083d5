/* YAML into the config tree: core-schema scalars, tags, anchors, spans,
 * and the errors, each at its exact place. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "diag/diag.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"
#include "data/yamltree.h"

static struct run run;
/* What the last parse printed on stderr; the last out(). */
static char *err, *outs;

/* Parse text as t.yaml; NULL when it was refused. */
static struct node *
parse(const char *text, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	struct buf b = BUF_INIT;
	struct source *src;
	struct node *tree = NULL;
	char chunk[4096];
	size_t n;

	/* Each case starts with fresh counts (and no message cap). */
	diag_init(&run.diag);
	bool ok;

	free(err);
	src = run_source_mem(&run, "t.yaml", text, len);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	ok = yamltree_parse(&run, src, &tree);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((n = fread(chunk, 1, sizeof(chunk), tmp)) > 0)
		buf_put(&b, chunk, n);
	fclose(tmp);
	buf_putc(&b, '\0');
	err = buf_detach(&b);
	CHECK(ok == (tree != NULL));
	if (ok)
		CHECK_STR(err, "");
	return ok ? tree : NULL;
}

#define P(lit) parse((lit), sizeof(lit) - 1)

static const char *
first(void)
{
	static char line[512];
	size_t n = strcspn(err, "\n");

	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	memcpy(line, err, n);
	line[n] = '\0';
	return line;
}

/* A tree as compact JSON: the easy way to check a whole structure. */
static const char *
out(const struct node *n)
{
	struct buf b = BUF_INIT;

	free(outs);
	json_write(&b, n, -1);
	buf_putc(&b, '\0');
	outs = buf_detach(&b);
	return outs;
}

static const char *
yaml_json(const char *text)
{
	struct node *t = parse(text, strlen(text));

	return t ? out(t) : "(refused)";
}

static void
linecol(const struct node *n, unsigned wantline, unsigned wantcol)
{
	unsigned line, col;

	source_linecol(run_source(&run, n->src), n->span.off, &line, &col);
	CHECK_INT(line, wantline);
	CHECK_INT(col, wantcol);
}

static void
test_scalars(void)
{
	struct node *t;
	struct node *v;

	t = P("s: hello world\n"
	    "i: 42\nneg: -17\nplus: +5\nhex: 0x1F\noct: 0o17\nlead: 007\n"
	    "max: 9223372036854775807\nmin: -9223372036854775808\n"
	    "hexmax: 0x7fffffffffffffff\n"
	    "f1: 3.14\nf2: .5\nf3: 1.\nf4: -1e3\nf5: 1E+2\nf6: +0.25e-1\n"
	    "inf1: .inf\ninf2: -.Inf\ninf3: +.INF\nnan: .NaN\n"
	    "t1: true\nt2: True\nt3: TRUE\nf: false\n"
	    "n1: null\nn2: ~\nn3:\nn4: NULL\nn5: Null\n"
	    "y11: yes\non: on\nmixed: tRue\nnul: nuLL\n"
	    "hexneg: -0x10\nhexbad: 0x1G\nunder: 1_000\nbin: 0b101\n"
	    "ver: 1.2.3\ndot: .\nsign: +\ninfbad: .infinity\nnansign: -.nan\n"
	    "q1: \"123\"\nq2: 'true'\nq3: \"\"\nblk: |\n  line\n"
	    "fold: >-\n  a\n  b\n");
	CHECK(t != NULL);
	if (!t)
		return;
	v = tree_get(t, "s");
	CHECK(v->kind == NODE_STRING);
	CHECK_STR(v->u.str.s, "hello world");
	CHECK(tree_get(t, "i")->kind == NODE_INT);
	CHECK(tree_get(t, "i")->u.i == 42);
	CHECK(tree_get(t, "neg")->u.i == -17);
	CHECK(tree_get(t, "plus")->u.i == 5);
	CHECK(tree_get(t, "hex")->u.i == 31);
	CHECK(tree_get(t, "oct")->u.i == 15);
	CHECK(tree_get(t, "lead")->u.i == 7);
	CHECK(tree_get(t, "max")->u.i == INT64_MAX);
	CHECK(tree_get(t, "min")->u.i == INT64_MIN);
	CHECK(tree_get(t, "hexmax")->u.i == INT64_MAX);
	CHECK(tree_get(t, "f1")->kind == NODE_FLOAT);
	CHECK(tree_get(t, "f1")->u.f == 3.14);
	CHECK(tree_get(t, "f2")->u.f == 0.5);
	CHECK(tree_get(t, "f3")->kind == NODE_FLOAT &&
	    tree_get(t, "f3")->u.f == 1.0);
	CHECK(tree_get(t, "f4")->u.f == -1000.0);
	CHECK(tree_get(t, "f5")->u.f == 100.0);
	CHECK(tree_get(t, "f6")->u.f == 0.025);
	CHECK(isinf(tree_get(t, "inf1")->u.f) && tree_get(t, "inf1")->u.f > 0);
	CHECK(isinf(tree_get(t, "inf2")->u.f) && tree_get(t, "inf2")->u.f < 0);
	CHECK(isinf(tree_get(t, "inf3")->u.f) && tree_get(t, "inf3")->u.f > 0);
	CHECK(tree_get(t, "nan")->kind == NODE_FLOAT &&
	    isnan(tree_get(t, "nan")->u.f));
	CHECK(tree_get(t, "t1")->kind == NODE_BOOL && tree_get(t, "t1")->u.b);
	CHECK(tree_get(t, "t2")->u.b && tree_get(t, "t3")->u.b);
	CHECK(tree_get(t, "f")->kind == NODE_BOOL && !tree_get(t, "f")->u.b);
	CHECK(tree_get(t, "n1")->kind == NODE_NULL);
	CHECK(tree_get(t, "n2")->kind == NODE_NULL);
	CHECK(tree_get(t, "n3")->kind == NODE_NULL);
	CHECK(tree_get(t, "n4")->kind == NODE_NULL);
	CHECK(tree_get(t, "n5")->kind == NODE_NULL);
	/* YAML 1.1's words and near misses are strings under 1.2. */
	{
		static const char *const strings[] = {
			"y11", "on", "mixed", "nul", "hexneg", "hexbad",
			"under", "bin", "ver", "dot", "sign", "infbad",
			"nansign", "q1", "q2", "q3", "blk", "fold",
		};
		size_t i;

		for (i = 0; i < LEN(strings); i++) {
			v = tree_get(t, strings[i]);
			CHECK(v && v->kind == NODE_STRING);
			if (!v || v->kind != NODE_STRING)
				fprintf(stderr, "  key %s\n", strings[i]);
		}
	}
	CHECK_STR(tree_get(t, "hexneg")->u.str.s, "-0x10");
	CHECK_STR(tree_get(t, "q1")->u.str.s, "123");
	CHECK_STR(tree_get(t, "blk")->u.str.s, "line\n");
	CHECK_STR(tree_get(t, "fold")->u.str.s, "a b");
	/* A NUL from an escape is kept; len is the truth. */
	t = P("a: \"x\\0y\"\n");
	CHECK(t && tree_get(t, "a")->u.str.len == 3);
	CHECK(t && memcmp(tree_get(t, "a")->u.str.s, "x\0y", 3) == 0);
	/* A float overflow is an error, underflow just zero. */
	CHECK(P("a: 1e999\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: float out of range");
	t = P("a: 1e-999\n");
	CHECK(t && tree_get(t, "a")->u.f == 0.0);
}

static void
test_tags(void)
{
	CHECK_STR(yaml_json("a: !!str 123\nb: !!int \"42\"\nc: !!float 1\n"
	    "d: !!bool true\ne: !!null ''\nf: !!map {x: 1}\ng: !!seq [1]\n"
	    "h: ! 12\ni: !!int 0x10\nj: !!float .5\nk: !!str\n"
	    "l: !<tag:yaml.org,2002:int> 7\n"),
	    "{\"a\":\"123\",\"b\":42,\"c\":1.0,\"d\":true,\"e\":null,"
	    "\"f\":{\"x\":1},\"g\":[1],\"h\":\"12\",\"i\":16,\"j\":0.5,"
	    "\"k\":\"\",\"l\":7}");
	CHECK(P("a: !!int abc\n") == NULL);
	CHECK_STR(err, "t.yaml:1:4: error: 'abc' is not a valid integer "
	    "(tagged '!!int')\n"
	    " 1 | a: !!int abc\n"
	    "   |    ^~~~~~~~~\n");
	CHECK(P("a: !!float x\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: 'x' is not a valid float "
	    "(tagged '!!float')");
	CHECK(P("a: !!bool yes\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: 'yes' is not a valid boolean "
	    "(tagged '!!bool')");
	CHECK(P("a: !!null 0\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: '0' is not a valid null "
	    "(tagged '!!null')");
	CHECK(P("a: !foo x\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: unknown tag '!foo'");
	CHECK(P("a: !!binary aGk=\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: unknown tag '!!binary'");
	CHECK(P("a: !!set {x: 1}\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: unknown tag '!!set'");
	CHECK(P("a: !!str {x: 1}\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: tag '!!str' cannot be used on "
	    "a mapping");
	CHECK(P("a: !!map [1]\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: tag '!!map' cannot be used on "
	    "a sequence");
	CHECK(P("a: !!seq x\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: tag '!!seq' cannot be used on "
	    "a scalar");
	CHECK(P("%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n") == NULL);
	CHECK_STR(first(), "t.yaml:3:4: error: unknown tag "
	    "'tag:example.com,2000:x'");
	/* Tags on keys are checked too; the key is its text. */
	CHECK_STR(yaml_json("!!int 1: a\n!!str 2: b\n"),
	    "{\"1\":\"a\",\"2\":\"b\"}");
	CHECK(P("!!int x: a\n") == NULL);
	/* Several errors in one document are all reported. */
	CHECK(P("a: !!int x\nb: !!int y\n") == NULL);
	CHECK(strstr(err, "1:4: error:") && strstr(err, "2:4: error:"));
}

static void
test_integers(void)
{
	CHECK(P("a: 9223372036854775808\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: integer out of range (64-bit "
	    "signed)");
	CHECK(P("a: -9223372036854775809\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: integer out of range (64-bit "
	    "signed)");
	CHECK(P("a: 0x8000000000000000\n") == NULL);
	CHECK(P("a: 0o1000000000000000000000\n") == NULL);
	CHECK(P("a: 99999999999999999999999999999999999999\n") == NULL);
	/* Digits past the range that then stop being digits: a string. */
	CHECK_STR(yaml_json("a: 99999999999999999999x\n"),
	    "{\"a\":\"99999999999999999999x\"}");
	CHECK_STR(yaml_json("a: 0o777777777777777777777\n"),
	    "{\"a\":9223372036854775807}");
	CHECK_STR(yaml_json("a: [0, -0, +0, 00, 0x0, 0o0]\n"),
	    "{\"a\":[0,0,0,0,0,0]}");
}

static void
test_structure(void)
{
	/* Key order is the document's. */
	CHECK_STR(yaml_json("z: 1\na: 2\nm:\n  y: [1, {b: c}]\n  b:\n"
	    "    - x\n    - - y\n      - z\n"),
	    "{\"z\":1,\"a\":2,\"m\":{\"y\":[1,{\"b\":\"c\"}],"
	    "\"b\":[\"x\",[\"y\",\"z\"]]}}");
	/* Non-string keys are used as written. */
	CHECK_STR(yaml_json("1: a\ntrue: b\n~: c\n1.50: d\n\"q\": e\n"
	    "? explicit\n: f\n"),
	    "{\"1\":\"a\",\"true\":\"b\",\"~\":\"c\",\"1.50\":\"d\","
	    "\"q\":\"e\",\"explicit\":\"f\"}");
	/* Merge keys are not supported: "<<" is just a key. */
	CHECK_STR(yaml_json("a: &x {k: 1}\nb:\n  <<: *x\n  j: 2\n"),
	    "{\"a\":{\"k\":1},\"b\":{\"<<\":{\"k\":1},\"j\":2}}");
	/* Empty: nothing, comments, an empty or null document. */
	CHECK_STR(yaml_json(""), "{}");
	CHECK_STR(yaml_json("# just a comment\n\n"), "{}");
	CHECK_STR(yaml_json("---\n"), "{}");
	CHECK_STR(yaml_json("--- ~\n...\n"), "{}");
	CHECK_STR(yaml_json("\xef\xbb\xbf"), "{}");
	/* Roots other than mappings are kept as they are. */
	CHECK_STR(yaml_json("- 1\n- 2\n"), "[1,2]");
	CHECK_STR(yaml_json("hello\n"), "\"hello\"");
	/* One explicit document with an end marker is fine. */
	CHECK_STR(yaml_json("%YAML 1.2\n---\na: 1\n...\n"), "{\"a\":1}");
	/* A large table goes through the tree's hash index. */
	{
		struct buf b = BUF_INIT;
		struct node *t;
		int i;

		for (i = 0; i < 3000; i++)
			buf_printf(&b, "k%d: %d\n", i, i);
		t = parse(b.data, b.len);
		CHECK(t && t->u.table.n == 3000);
		CHECK(t && tree_get(t, "k2999")->u.i == 2999);
		CHECK(t && strcmp(t->u.table.items[1234].key, "k1234") == 0);
		buf_free(&b);
	}
	/* A 1 MB single-line scalar. */
	{
		struct buf b = BUF_INIT;
		struct node *t;
		size_t i;

		buf_puts(&b, "a: ");
		for (i = 0; i < 1000000; i++)
			buf_putc(&b, 'x');
		buf_puts(&b, "\nb: 1");
		t = parse(b.data, b.len);
		CHECK(t && tree_get(t, "a")->u.str.len == 1000000);
		CHECK(t && tree_get(t, "b")->u.i == 1);
		buf_free(&b);
	}
}

static void
test_anchors(void)
{
	struct node *t, *a, *c;

	t = P("a: &x {b: 1, c: [2, 3]}\nc: *x\nn: &n 5\nm: *n\n"
	    "k: &k key\n*k : v\n");
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_STR(out(t), "{\"a\":{\"b\":1,\"c\":[2,3]},\"c\":{\"b\":1,"
	    "\"c\":[2,3]},\"n\":5,\"m\":5,\"k\":\"key\",\"key\":\"v\"}");
	a = tree_get(t, "a");
	c = tree_get(t, "c");
	/* A copy, not the same node, and the copy is placed at the alias. */
	CHECK(a != c);
	CHECK(tree_get(a, "c") != tree_get(c, "c"));
	linecol(c, 2, 4);
	CHECK_INT(c->span.len, 2);
	linecol(tree_get(t, "m"), 4, 4);
	CHECK(tree_get(t, "m")->kind == NODE_INT);
	/* The latest definition of a name wins. */
	CHECK_STR(yaml_json("a: &x 1\nb: &x 2\nc: *x\n"),
	    "{\"a\":1,\"b\":2,\"c\":2}");
	CHECK(P("a: *nope\n") == NULL);
	CHECK_STR(err, "t.yaml:1:4: error: undefined alias '*nope'\n"
	    " 1 | a: *nope\n"
	    "   |    ^~~~~\n");
	/* Used before it is defined. */
	CHECK(P("a: *x\nb: &x 1\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: undefined alias '*x'");
	CHECK(P("a: &x [1, *x]\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:11: error: alias '*x' refers to a node "
	    "that contains it");
	CHECK(P("a: &x {b: 1}\n*x : 2\n") == NULL);
	CHECK_STR(first(), "t.yaml:2:1: error: a mapping key must be a "
	    "scalar, not a mapping");
}

/* 9 levels of 10 aliases: 10^9 nodes if expanded. */
static void
test_billion_laughs(void)
{
	struct buf b = BUF_INIT;
	clock_t t0 = clock();
	int i, j;

	buf_puts(&b, "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, "
	    "lol]\n");
	for (i = 1; i <= 9; i++) {
		buf_printf(&b, "l%d: &l%d [", i, i);
		for (j = 0; j < 10; j++)
			buf_printf(&b, "%s*l%d", j ? ", " : "", i - 1);
		buf_puts(&b, "]\n");
	}
	CHECK(parse(b.data, b.len) == NULL);
	CHECK_STR(first(), "t.yaml:5:45: error: aliases expand to more than "
	    "100000 nodes (a \"billion laughs\" document?)");
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 1.0);
	/* Two levels are ordinary reuse. */
	buf_reset(&b);
	buf_puts(&b, "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
	    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	    "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
	CHECK(parse(b.data, b.len) != NULL);
	buf_free(&b);
}

static void
test_duplicates(void)
{
	CHECK(P("a: 1\nb:\n  a: 1\na: 2\n") == NULL);
	CHECK_STR(err, "t.yaml:4:1: error: duplicate key 'a'\n"
	    " 4 | a: 2\n"
	    "   | ^\n"
	    "t.yaml:1:1: note: 'a' first appears here\n"
	    " 1 | a: 1\n"
	    "   | ^\n");
	CHECK(P("x: {k: 1, \"k\": 2}\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:11: error: duplicate key 'k'");
	/* A key's text, not its value: 1 and 01 are different keys. */
	CHECK(P("1: a\n01: b\n") != NULL);
	/* Every duplicate is reported. */
	CHECK(P("a: 1\na: 2\nb: 1\nb: 2\n") == NULL);
	CHECK(strstr(err, "duplicate key 'a'") && strstr(err,
	    "duplicate key 'b'"));
	/* Control characters in a key are escaped in the message. */
	CHECK(P("\"a\\nb\": 1\n\"a\\nb\": 2\n") == NULL);
	CHECK_STR(first(), "t.yaml:2:1: error: duplicate key 'a\\nb'");
}

static void
test_spans(void)
{
	struct node *t, *b;
	struct member *m;

	t = P("a:\n  b: [1, \"two\", {c: d}]\n  e: |\n    text\n\n  f: x\n");
	CHECK(t != NULL);
	if (!t)
		return;
	m = tree_member(tree_get(t, "a"), "b", 1);
	linecol(tree_get(t, "a"), 2, 3);
	b = m->value;
	CHECK_INT(m->keyspan.off, 5);
	CHECK_INT(m->keyspan.len, 1);
	linecol(b, 2, 6);
	CHECK_INT(b->span.len, 18);
	linecol(b->u.array.items[1], 2, 10);
	CHECK_INT(b->u.array.items[1]->span.len, 5);
	linecol(tree_get(b->u.array.items[2], "c"), 2, 21);
	/* A block scalar's span ends with its text. */
	linecol(tree_get(tree_get(t, "a"), "e"), 3, 6);
	CHECK_INT(tree_get(tree_get(t, "a"), "e")->span.len, 10);
	linecol(tree_get(tree_get(t, "a"), "f"), 6, 6);
	/* Block mappings end with their last value. */
	CHECK_INT(tree_get(t, "a")->span.off + tree_get(t, "a")->span.len,
	    run_source(&run, t->src)->len - 1);
	/* libyaml counts characters: bytes must come out right after
	 * multi-byte text, CRLF and a BOM. */
	t = P("\xe4\xb8\xad\xe6\x96\x87: \xc3\xa9\r\nb: [\xf0\x9f\x98\x80, x]"
	    "\r\nc: y\r\n");
	CHECK(t != NULL);
	if (!t)
		return;
	linecol(tree_get(t, "\xe4\xb8\xad\xe6\x96\x87"), 1, 5);
	CHECK_INT(tree_get(t, "\xe4\xb8\xad\xe6\x96\x87")->span.len, 2);
	linecol(tree_get(t, "b")->u.array.items[1], 2, 8);
	linecol(tree_get(t, "c"), 3, 4);
	CHECK_INT(tree_get(t, "c")->span.len, 1);
	t = P("\xef\xbb\xbf" "a: 1\nb: x\n");
	CHECK(t && tree_member(t, "a", 1)->keyspan.off == 3);
	CHECK(t && tree_get(t, "b")->span.off == 11);
	/* Errors after multi-byte text land on the right column. */
	CHECK(P("\xe4\xb8\xad: [1, 2\n") == NULL);
	CHECK_STR(err, "t.yaml:2:1: error: yaml: did not find expected ',' "
	    "or ']'\n"
	    " 2 | \n"
	    "   | ^\n"
	    "t.yaml:1:4: note: while parsing a flow sequence that started "
	    "here\n"
	    " 1 | \xe4\xb8\xad: [1, 2\n"
	    "   |     ^\n");
}

static void
test_errors(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "a:\n  b: 1\n c: 2\n", "t.yaml:3:2: error: yaml: did not "
		    "find expected key" },
		{ "a: \"abc\n", "t.yaml:2:1: error: yaml: found unexpected end "
		    "of stream" },
		{ "a:\n\tb: 1\n", "t.yaml:2:1: error: a tab cannot indent "
		    "YAML: use spaces" },
		{ "a: 1\n---\nb: 2\n", "t.yaml:2:1: error: a second YAML "
		    "document: a profile is one document" },
		{ "a: 1\n...\n---\nb: 2\n", "t.yaml:3:1: error: a second "
		    "YAML document: a profile is one document" },
		/* libyaml wants "---" before a document after "...". */
		{ "a: 1\n...\nb: 2\n", "t.yaml:3:1: error: yaml: did not "
		    "find expected <document start>" },
		{ "? [a]\n: 1\n", "t.yaml:1:3: error: a mapping key must be "
		    "a scalar, not a sequence" },
		{ "{[a]: 1}\n", "t.yaml:1:2: error: a mapping key must be a "
		    "scalar, not a sequence" },
		{ "a: @x\n", "t.yaml:1:4: error: yaml: found character that "
		    "cannot start any token" },
		{ "a: b: c\n", "t.yaml:1:5: error: yaml: mapping values are "
		    "not allowed in this context" },
		{ "key: \"abc\\q\"\n", "t.yaml:1:10: error: yaml: found "
		    "unknown escape character" },
		{ "a: \x01\n", "t.yaml:1:4: error: yaml: control characters "
		    "are not allowed" },
		{ "a: \xe4\xb8\xad\x7f\n", "t.yaml:1:5: error: yaml: control "
		    "characters are not allowed" },
		{ "a: [1, 2]]\n", "t.yaml:1:10: error: yaml: did not find "
		    "expected key" },
		{ "- a\nb: 1\n", "t.yaml:2:1: error: yaml: did not find "
		    "expected '-' indicator" },
		{ "a: 'x\n", "t.yaml:2:1: error: yaml: found unexpected end "
		    "of stream" },
		{ "%YAML 2.0\n---\na: 1\n", "t.yaml:1:1: error: yaml: found "
		    "incompatible YAML document" },
	};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		CHECK(parse(cases[i].text, strlen(cases[i].text)) == NULL);
		CHECK_STR(first(), cases[i].msg);
	}
	CHECK(P("a: \"abc\n") == NULL);
	CHECK(strstr(err, "t.yaml:1:4: note: while scanning a quoted scalar "
	    "that started here\n"));
	CHECK(P("a: b\0c\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:5: error: NUL byte in text");
	CHECK(P("a: \xe4\xb8\xad\xff\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:5: error: invalid UTF-8");
	CHECK(P("a: \xc0\xaf\n") == NULL);
	CHECK_STR(first(), "t.yaml:1:4: error: invalid UTF-8");
	/* UTF-16 is not guessed from a BOM: it is invalid UTF-8. */
	CHECK(P("\xff\xfe" "a\0:\0") == NULL);
	CHECK_STR(first(), "t.yaml:1:1: error: invalid UTF-8");
}

static void
test_depth(void)
{
	struct buf b = BUF_INIT;
	clock_t t0 = clock();
	size_t i;

	for (i = 0; i < 100000; i++)
		buf_putc(&b, '[');
	CHECK(parse(b.data, b.len) == NULL);
	CHECK_STR(first(), "t.yaml:1:1001: error: nesting deeper than 1000 "
	    "levels");
	buf_reset(&b);
	for (i = 0; i < 1000; i++)
		buf_putc(&b, '[');
	for (i = 0; i < 1000; i++)
		buf_putc(&b, ']');
	CHECK(parse(b.data, b.len) != NULL);
	/* Aliases cannot build what nesting may not. */
	buf_reset(&b);
	buf_puts(&b, "a: &a ");
	for (i = 0; i < 600; i++)
		buf_putc(&b, '[');
	for (i = 0; i < 600; i++)
		buf_putc(&b, ']');
	buf_puts(&b, "\nb: ");
	for (i = 0; i < 500; i++)
		buf_putc(&b, '[');
	buf_puts(&b, "*a");
	for (i = 0; i < 500; i++)
		buf_putc(&b, ']');
	buf_puts(&b, "\n");
	CHECK(parse(b.data, b.len) == NULL);
	CHECK_STR(first(), "t.yaml:2:504: error: nesting deeper than 1000 "
	    "levels");
	/* Deep block nesting. */
	buf_reset(&b);
	for (i = 0; i < 1100; i++)
		buf_printf(&b, "%*sk:\n", (int)i, "");
	CHECK(parse(b.data, b.len) == NULL);
	CHECK_STR(first(), "t.yaml:1001:1001: error: nesting deeper than "
	    "1000 levels");
	CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	buf_free(&b);
}

int
main(void)
{
	run_init(&run);
	test_scalars();
	test_tags();
	test_integers();
	test_structure();
	test_anchors();
	test_billion_laughs();
	test_duplicates();
	test_spans();
	test_errors();
	test_depth();
	run_free(&run);
	free(err);
	free(outs);
	return check_done("test_yamltree");
}
