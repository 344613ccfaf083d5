/* JSON in (the reader and its spans) and out (the deterministic writer). */
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

static struct run run;
/* What the last parse printed on stderr; the last out() and str(). */
static char *err, *outs, *strs;

/* Parse text as t.json; NULL when it was refused. */
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
	bool ok;

	free(err);
	src = run_source_mem(&run, "t.json", text, len);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	ok = json_parse(&run, src, &tree);
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
	return ok ? tree : NULL;
}

#define P(lit) parse((lit), sizeof(lit) - 1)

/* The first line of what was printed. */
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

/* A tree as compact or pretty JSON, in a static buffer. */
static const char *
out(const struct node *n, int indent)
{
	struct buf b = BUF_INIT;

	free(outs);
	json_write(&b, n, indent);
	buf_putc(&b, '\0');
	outs = buf_detach(&b);
	return outs;
}

static const char *
str(const char *s, size_t len)
{
	struct buf b = BUF_INIT;

	free(strs);
	json_write_string(&b, s, len);
	buf_putc(&b, '\0');
	strs = buf_detach(&b);
	return strs;
}

static const char *
flt(double d)
{
	struct node n;

	memset(&n, 0, sizeof(n));
	n.kind = NODE_FLOAT;
	n.u.f = d;
	return out(&n, -1);
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
test_round_trip(void)
{
	struct node *t;

	t = P("{\"a\": 1, \"b\": [true, false, null],\n \"c\": {\"d\": \"x\"}, "
	    "\"e\": 1.5, \"f\": [], \"g\": {}}");
	CHECK(t != NULL);
	CHECK_STR(out(t, -1), "{\"a\":1,\"b\":[true,false,null],"
	    "\"c\":{\"d\":\"x\"},\"e\":1.5,\"f\":[],\"g\":{}}");
	CHECK_STR(out(t, 2), "{\n"
	    "  \"a\": 1,\n"
	    "  \"b\": [\n"
	    "    true,\n"
	    "    false,\n"
	    "    null\n"
	    "  ],\n"
	    "  \"c\": {\n"
	    "    \"d\": \"x\"\n"
	    "  },\n"
	    "  \"e\": 1.5,\n"
	    "  \"f\": [],\n"
	    "  \"g\": {}\n"
	    "}");
	CHECK_STR(out(t, 0), "{\n\"a\": 1,\n\"b\": [\ntrue,\nfalse,\nnull\n],\n"
	    "\"c\": {\n\"d\": \"x\"\n},\n\"e\": 1.5,\n\"f\": [],\n"
	    "\"g\": {}\n}");
	/* Key order is the document's. */
	t = P("{\"z\":1,\"a\":2,\"m\":{\"y\":0,\"b\":0}}");
	CHECK_STR(out(t, -1), "{\"z\":1,\"a\":2,\"m\":{\"y\":0,\"b\":0}}");
	/* A root that is not an object. */
	CHECK_STR(out(P(" [1, \"x\"] "), -1), "[1,\"x\"]");
	CHECK_STR(out(P("\"s\""), -1), "\"s\"");
	CHECK_STR(out(P("-0"), -1), "0");
	/* A BOM is skipped. */
	t = P("\xef\xbb\xbf{\"a\":1}");
	CHECK(t && tree_get(t, "a") && tree_get(t, "a")->u.i == 1);
	CHECK_STR(out(NULL, -1), "null");
}

static void
test_spans(void)
{
	struct node *t, *arr;
	struct member *m;

	t = P("{\n  \"key\": [1, \"two\", {\"k\": null}],\n\t\"\xe4\xb8\xad\": "
	    "-2.5e3\n}");
	CHECK(t != NULL);
	if (!t)
		return;
	linecol(t, 1, 1);
	CHECK_INT(t->span.len, run_source(&run, t->src)->len);
	m = tree_member(t, "key", 3);
	CHECK(m != NULL);
	CHECK_INT(m->keyspan.len, 5);
	arr = m->value;
	linecol(arr, 2, 10);
	CHECK_INT(arr->span.len, 23);
	linecol(arr->u.array.items[0], 2, 11);
	linecol(arr->u.array.items[1], 2, 14);
	CHECK_INT(arr->u.array.items[1]->span.len, 5);
	linecol(arr->u.array.items[2], 2, 21);
	linecol(tree_get(arr->u.array.items[2], "k"), 2, 27);
	m = tree_member(t, "\xe4\xb8\xad", 3);
	CHECK(m != NULL);
	CHECK(m->value->kind == NODE_FLOAT && m->value->u.f == -2500.0);
	/* Columns count code points: the value is after "中": */
	linecol(m->value, 3, 7);
}

static void
test_numbers(void)
{
	struct node *t;

	t = P("[9223372036854775807, -9223372036854775808, 9223372036854775808,"
	    " 12345678901234567, 1e2, 1.0, 0, -0.5, 1E-2, "
	    "123456789012345678901234567890]");
	CHECK(t && t->u.array.n == 10);
	if (!t)
		return;
	CHECK(t->u.array.items[0]->kind == NODE_INT);
	CHECK(t->u.array.items[0]->u.i == INT64_MAX);
	CHECK(t->u.array.items[1]->kind == NODE_INT);
	CHECK(t->u.array.items[1]->u.i == INT64_MIN);
	CHECK(t->u.array.items[2]->kind == NODE_FLOAT);
	CHECK(t->u.array.items[2]->u.f == 9223372036854775808.0);
	/* Past 2^53 a double would be off by one. */
	CHECK(t->u.array.items[3]->kind == NODE_INT);
	CHECK(t->u.array.items[3]->u.i == 12345678901234567LL);
	CHECK(t->u.array.items[4]->kind == NODE_FLOAT);
	CHECK(t->u.array.items[4]->u.f == 100.0);
	CHECK(t->u.array.items[5]->kind == NODE_FLOAT);
	CHECK(t->u.array.items[6]->kind == NODE_INT);
	CHECK(t->u.array.items[8]->u.f == 0.01);
	CHECK(t->u.array.items[9]->kind == NODE_FLOAT);
	CHECK_STR(out(t, -1), "[9223372036854775807,-9223372036854775808,"
	    "9.223372036854776e+18,12345678901234567,100.0,1.0,0,-0.5,0.01,"
	    "1.2345678901234568e+29]");
	CHECK(P("[1e999]") == NULL);
	CHECK_STR(first(), "t.json:1:2: error: number out of range");
	/* Underflow is just zero. */
	t = P("[1e-999]");
	CHECK(t && t->u.array.items[0]->u.f == 0.0);
}

static void
test_strings(void)
{
	struct node *t;
	struct node *s;

	t = P("[\"a\\u0000b\", \"\\ud83d\\ude00\", "
	    "\"\xe4\xb8\xad\xe6\x96\x87\", "
	    "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u4E2D\", \"\"]");
	CHECK(t && t->u.array.n == 6);
	if (!t)
		return;
	s = t->u.array.items[0];
	CHECK(s->kind == NODE_STRING && s->u.str.len == 3);
	CHECK(memcmp(s->u.str.s, "a\0b", 3) == 0);
	CHECK_STR(t->u.array.items[1]->u.str.s, "\xf0\x9f\x98\x80");
	CHECK_STR(t->u.array.items[2]->u.str.s, "\xe4\xb8\xad\xe6\x96\x87");
	CHECK_STR(t->u.array.items[3]->u.str.s, "\"\\/\b\f\n\r\t");
	CHECK_STR(t->u.array.items[4]->u.str.s, "\xc3\xa9\xe4\xb8\xad");
	CHECK_INT(t->u.array.items[5]->u.str.len, 0);
	/* Written back: NUL escaped, the rest raw, '/' needs no escape. */
	CHECK_STR(out(t, -1), "[\"a\\u0000b\",\"\xf0\x9f\x98\x80\","
	    "\"\xe4\xb8\xad\xe6\x96\x87\",\"\\\"\\\\/\\b\\f\\n\\r\\t\","
	    "\"\xc3\xa9\xe4\xb8\xad\",\"\"]");
	/* Keys with NUL are whole too. */
	t = P("{\"a\\u0000\": 1, \"a\": 2}");
	CHECK(t && t->u.table.n == 2);
	CHECK(t && tree_getn(t, "a\0", 2) && tree_getn(t, "a\0", 2)->u.i == 1);
}

/* Malformed input: the message and its exact place. */
static void
test_errors(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "[1, x]", "t.json:1:5: error: unknown word 'x': JSON has "
		    "true, false and null" },
		{ "[1, ?]", "t.json:1:5: error: unexpected character '?', "
		    "expected a value" },
		{ "[1, ']", "t.json:1:5: error: unexpected character \"'\", "
		    "expected a value" },
		{ "{\"a\": 1,}", "t.json:1:9: error: unexpected character '}', "
		    "expected a string key" },
		{ "{,}", "t.json:1:2: error: unexpected character ',', "
		    "expected a string key or '}'" },
		{ "{\"a\" 1}", "t.json:1:6: error: unexpected character '1', "
		    "expected ':'" },
		{ "[\"abc", "t.json:1:2: error: unterminated string" },
		{ "[\"abc\n\"]", "t.json:1:2: error: unterminated string" },
		{ "[1, 2", "t.json:1:6: error: unexpected end of input, "
		    "expected ',' or ']'" },
		{ "[1 2]", "t.json:1:4: error: unexpected character '2', "
		    "expected ',' or ']'" },
		{ "{\"a\": 1 \"b\": 2}", "t.json:1:9: error: unexpected "
		    "character '\"', expected ',' or '}'" },
		{ "[01]", "t.json:1:3: error: invalid number: leading zeros "
		    "are not allowed" },
		{ "[1.]", "t.json:1:4: error: invalid number: expected a digit "
		    "after '.'" },
		{ "[-.5]", "t.json:1:3: error: invalid number: expected a "
		    "digit after '-'" },
		{ "[1e+]", "t.json:1:5: error: invalid number: expected a "
		    "digit in the exponent" },
		{ "[+1]", "t.json:1:2: error: unexpected character '+', "
		    "expected a value" },
		{ "[.5]", "t.json:1:2: error: unexpected character '.', "
		    "expected a value" },
		{ "[tru]", "t.json:1:2: error: unknown word 'tru': JSON has "
		    "true, false and null" },
		{ "{\"a\": True}", "t.json:1:7: error: unknown word 'True': "
		    "JSON has true, false and null" },
		{ "{\"a\": 1} x", "t.json:1:10: error: unexpected character "
		    "'x' after the JSON value" },
		{ "{} {}", "t.json:1:4: error: unexpected character '{' after "
		    "the JSON value" },
		{ "\"\\ud800\"", "t.json:1:2: error: unpaired surrogate escape "
		    "'\\ud800' in string" },
		{ "\"\\ud800\\u0041\"", "t.json:1:2: error: unpaired "
		    "surrogate escape '\\ud800' in string" },
		{ "\"x\\udc00\"", "t.json:1:3: error: unpaired surrogate "
		    "escape '\\udc00' in string" },
		{ "\"\\q\"", "t.json:1:2: error: invalid escape '\\q' in "
		    "string" },
		{ "\"\\u12g4\"", "t.json:1:2: error: invalid escape '\\u12g4' "
		    "in string" },
		{ "\"\\", "t.json:1:1: error: unterminated string" },
		{ "{\n  \"a\": 1,\n  \"b\": ?\n}", "t.json:3:8: error: "
		    "unexpected character '?', expected a value" },
		{ "[\"\xe4\xb8\xad\xe6\x96\x87\", ?]", "t.json:1:8: error: "
		    "unexpected character '?', expected a value" },
		{ "[\"a\xff\"]", "t.json:1:4: error: invalid UTF-8" },
		{ "[\xc3\xa9]", "t.json:1:2: error: unexpected character "
		    "'\xc3\xa9', expected a value" },
		{ "[\"a\x01\"]", "t.json:1:4: error: control character U+0001 "
		    "in string: write it as an escape" },
		{ "[\"a\tb\"]", "t.json:1:4: error: control character U+0009 "
		    "in string: write it as an escape" },
		/* cJSON takes control bytes for white space; JSON does not. */
		{ "[\x01 1]", "t.json:1:2: error: unexpected character U+0001, "
		    "expected a value" },
		{ "", "t.json:1:1: error: empty JSON document" },
		{ " \n\t", "t.json:2:2: error: empty JSON document" },
		{ "\xef\xbb\xbf", "t.json:1:1: error: empty JSON document" },
		{ "[1]\n}", "t.json:2:1: error: unexpected character '}' after "
		    "the JSON value" },
		{ "{\"a\": [1, {\"b\": }]}", "t.json:1:17: error: unexpected "
		    "character '}', expected a value" },
	};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		CHECK(parse(cases[i].text, strlen(cases[i].text)) == NULL);
		CHECK_STR(first(), cases[i].msg);
	}
	/* NUL bytes, in and after the value. */
	CHECK(P("[1]\0") == NULL);
	CHECK_STR(first(), "t.json:1:4: error: NUL byte in text");
	CHECK(P("[\"a\0\"]") == NULL);
	CHECK_STR(first(), "t.json:1:4: error: NUL byte in text");
	CHECK(P("[1,\0]") == NULL);
	CHECK_STR(first(), "t.json:1:4: error: NUL byte in text");
	/* The caret line. */
	CHECK(P("{\"a\": [1, 2,]}") == NULL);
	CHECK_STR(err, "t.json:1:13: error: unexpected character ']', "
	    "expected a value\n"
	    " 1 | {\"a\": [1, 2,]}\n"
	    "   |             ^\n");
}

/* Objects of many members: the duplicate found while the members wait
 * on the reader's stack (up to 32), after they moved into the table,
 * and keys of the same first and last bytes and length that differ. */
static void
test_duplicates_wide(void)
{
	struct buf b = BUF_INIT;
	int i;

	/* A fresh run: its count of messages shown is capped. */
	run_free(&run);
	run_init(&run);
	buf_putc(&b, '{');
	for (i = 0; i < 40; i++)
		buf_printf(&b, "\"k%02d\": %d, ", i, i);
	buf_puts(&b, "\"kab\": 1, \"kbb\": 2, \"k05\": 3, \"k39\": 4}");
	CHECK(parse(b.data, b.len) == NULL);
	CHECK(strstr(err, "duplicate key 'k05'") != NULL);
	CHECK(strstr(err, "duplicate key 'k39'") != NULL);
	CHECK(strstr(err, "'kab'") == NULL && strstr(err, "'kbb'") == NULL);
	buf_reset(&b);
	buf_putc(&b, '{');
	for (i = 0; i < 20; i++)
		buf_printf(&b, "\"k%02d\": %d, ", i, i);
	buf_puts(&b, "\"k07\": 0}");
	CHECK(parse(b.data, b.len) == NULL);
	CHECK(strstr(first(), "duplicate key 'k07'") != NULL);
	buf_free(&b);
}

static void
test_duplicates(void)
{
	CHECK(P("{\"a\": 1, \"b\": {\"a\": 1}, \"a\": 2}") == NULL);
	CHECK_STR(err, "t.json:1:25: error: duplicate key 'a'\n"
	    " 1 | {\"a\": 1, \"b\": {\"a\": 1}, \"a\": 2}\n"
	    "   |                         ^~~\n"
	    "t.json:1:2: note: 'a' first appears here\n"
	    " 1 | {\"a\": 1, \"b\": {\"a\": 1}, \"a\": 2}\n"
	    "   |  ^~~\n");
	/* All duplicates are reported, not just the first. */
	CHECK(P("{\"x\": 1, \"x\": 2, \"y\": 3, \"y\": 4}") == NULL);
	CHECK(strstr(err, "duplicate key 'x'") != NULL);
	CHECK(strstr(err, "duplicate key 'y'") != NULL);
	/* Keys that differ after a NUL are different keys. */
	CHECK(P("{\"a\\u0000b\": 1, \"a\\u0000c\": 2}") != NULL);
	CHECK(P("{\"a\\u0000b\": 1, \"a\\u0000b\": 2}") == NULL);
	CHECK_STR(first(), "t.json:1:17: error: duplicate key 'a\\u0000b'");
}

static void
test_depth(void)
{
	struct buf b = BUF_INIT;
	clock_t t0 = clock();
	size_t i;

	/* cJSON's own limit, 1000 levels, is fine. */
	for (i = 0; i < 1000; i++)
		buf_putc(&b, '[');
	for (i = 0; i < 1000; i++)
		buf_putc(&b, ']');
	CHECK(parse(b.data, b.len) != NULL);
	buf_reset(&b);
	for (i = 0; i < 1001; i++)
		buf_putc(&b, '[');
	for (i = 0; i < 1001; i++)
		buf_putc(&b, ']');
	CHECK(parse(b.data, b.len) == NULL);
	CHECK_STR(first(), "t.json:1:1001: error: nesting deeper than 1000 "
	    "levels");
	buf_reset(&b);
	for (i = 0; i < 100000; i++)
		buf_puts(&b, i % 2 ? "[" : "{\"k\":");
	CHECK(parse(b.data, b.len) == NULL);
	CHECK(strstr(first(), "error: nesting deeper than 1000 levels"));
	CHECK((clock() - t0) / CLOCKS_PER_SEC < 5);
	buf_free(&b);
}

static void
test_write_strings(void)
{
	CHECK_STR(str("\"\\\b\f\n\r\t\x01\x1f\x7f", 10),
	    "\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\"");
	CHECK_STR(str("\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80", 11),
	    "\"\xe4\xb8\xad\xe6\x96\x87 \xf0\x9f\x98\x80\"");
	/* Bad UTF-8 becomes U+FFFD: overlong, lone continuation, cut. */
	CHECK_STR(str("a\xffz\xc0\xafy\x80\xe4\xb8", 9),
	    "\"a\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbdy\xef\xbf\xbd"
	    "\xef\xbf\xbd\xef\xbf\xbd\"");
	/* A UTF-16 surrogate encoded in UTF-8 is not valid UTF-8. */
	CHECK_STR(str("\xed\xa0\x80", 3),
	    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	CHECK_STR(str("a\0b", 3), "\"a\\u0000b\"");
	CHECK_STR(str("", 0), "\"\"");
	CHECK_STR(str("/</script>", 10), "\"/</script>\"");
}

/* json_plain_span() reads eight bytes at a time: every byte value at
 * every place of strings up to three words long, after a plain run or
 * after another stop byte (a borrow must not hide the first stop), is
 * found where a byte at a time finds it. */
static void
test_plain_span(void)
{
	char s[24];
	size_t len, at, want, bad = 0;
	int c, d;

	for (len = 1; len <= sizeof(s); len++)
		for (at = 0; at < len; at++)
			for (c = 0; c < 256; c++)
				for (d = 0; d < 3; d++) {
					memset(s, 'a', sizeof(s));
					s[at] = (char)c;
					/* a second stop byte after it */
					if (d && at + 1 < len)
						s[at + 1] = d == 1 ? '"' :
						    '\x01';
					want = c >= 0x20 && c < 0x80 &&
					    c != '"' && c != '\\' ? (d &&
					    at + 1 < len ? at + 1 : len) : at;
					bad += json_plain_span(s, len) != want;
				}
	CHECK_INT(bad, 0);
	CHECK_INT(json_plain_span("", 0), 0);
	CHECK_INT(json_plain_span("abcdefgh\xe4\xb8\xad", 11), 8);
}

static void
test_write_floats(void)
{
	CHECK_STR(flt(0.1), "0.1");
	CHECK_STR(flt(1.0), "1.0");
	CHECK_STR(flt(-3.0), "-3.0");
	CHECK_STR(flt(100.0), "100.0");
	CHECK_STR(flt(1.5), "1.5");
	CHECK_STR(flt(0.1 + 0.2), "0.30000000000000004");
	CHECK_STR(flt(1e20), "1e+20");
	CHECK_STR(flt(1.5e300), "1.5e+300");
	CHECK_STR(flt(1e-7), "1e-07");
	CHECK_STR(flt(9007199254740992.0), "9007199254740992.0");
	CHECK_STR(flt(123456789012345678.0), "1.2345678901234568e+17");
	CHECK_STR(flt(-0.0), "-0.0");
	CHECK_STR(flt(5e-324), "4.94065645841247e-324");
	CHECK_STR(flt(1.7976931348623157e308), "1.7976931348623157e+308");
	CHECK_STR(flt(INFINITY), "null");
	CHECK_STR(flt(-INFINITY), "null");
	CHECK_STR(flt(NAN), "null");
	/* Every form written reads back the same. */
	{
		double d = 1.0 / 3.0;
		int i;

		for (i = 0; i < 200; i++, d *= -1.7)
			CHECK(strtod(flt(d), NULL) == d);
	}
}

static void
test_write_scalars(void)
{
	struct node n;

	memset(&n, 0, sizeof(n));
	n.kind = NODE_INT;
	n.u.i = INT64_MIN;
	CHECK_STR(out(&n, 2), "-9223372036854775808");
	n.kind = NODE_BOOL;
	n.u.b = true;
	CHECK_STR(out(&n, -1), "true");
	n.kind = NODE_NULL;
	CHECK_STR(out(&n, -1), "null");
	n.kind = NODE_DATETIME;
	n.u.dt.kind = DT_OFFSET;
	n.u.dt.year = 1979;
	n.u.dt.month = 5;
	n.u.dt.day = 27;
	n.u.dt.hour = 7;
	n.u.dt.minute = 32;
	CHECK_STR(out(&n, -1), "\"1979-05-27T07:32:00Z\"");
	n.u.dt.nanosecond = 999999000;
	n.u.dt.offset_minutes = -7 * 60;
	CHECK_STR(out(&n, -1), "\"1979-05-27T07:32:00.999999-07:00\"");
	n.u.dt.nanosecond = 500000000;
	n.u.dt.offset_minutes = 9 * 60 + 30;
	CHECK_STR(out(&n, -1), "\"1979-05-27T07:32:00.5+09:30\"");
	n.u.dt.kind = DT_LOCAL;
	n.u.dt.nanosecond = 0;
	CHECK_STR(out(&n, -1), "\"1979-05-27T07:32:00\"");
	n.u.dt.kind = DT_DATE;
	CHECK_STR(out(&n, -1), "\"1979-05-27\"");
	n.u.dt.kind = DT_TIME;
	n.u.dt.nanosecond = 1;
	CHECK_STR(out(&n, -1), "\"07:32:00.000000001\"");
}

int
main(void)
{
	run_init(&run);
	test_round_trip();
	test_spans();
	test_numbers();
	test_strings();
	test_errors();
	test_duplicates();
	test_duplicates_wide();
	test_depth();
	test_write_strings();
	test_plain_span();
	test_write_floats();
	test_write_scalars();
	run_free(&run);
	free(err);
	free(outs);
	free(strs);
	return check_done("test_json");
}
