/* jsregex: the split, the JS -> PCRE2 translation checked against values
 * Node computed once (tests/regex/expected.json), errors, limits. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "capture.h"
#include "check.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/jsregex.h"

static struct run run;

static unsigned
flags_of(const char *f)
{
	unsigned fl = 0;

	for (; *f; f++)
		fl |= *f == 'g' ? JSREGEX_G : *f == 'i' ? JSREGEX_I :
		    *f == 'm' ? JSREGEX_M : *f == 's' ? JSREGEX_S :
		    *f == 'u' ? JSREGEX_U : 0;
	return fl;
}

/* The marker string the generator makes: "[match|g1,g2]" per match. */
static bool
marked(const char *pat, size_t plen, const char *flags, const char *in,
    size_t len, struct buf *out)
{
	struct jsregex re;
	struct jsregex_origin at = { NULL, {0, 0}, false, 0, false, "test", false };
	size_t pos = 0, last = 0, *ov;
	uint32_t g;
	void *md;
	uint32_t c;

	if (!jsregex_compile(&run, &at, pat, plen, flags_of(flags), &re)) {
		jsregex_free(&re);
		return false;
	}
	md = jsregex_match_data(re.ngroups);
	ov = xcalloc(2 * (re.ngroups + 1), sizeof(*ov));
	while (pos <= len && jsregex_match(&re, md, in, len, pos, ov) ==
	    JSREGEX_MATCH) {
		buf_put(out, in + last, ov[0] - last);
		buf_putc(out, '[');
		buf_put(out, in + ov[0], ov[1] - ov[0]);
		buf_putc(out, '|');
		for (g = 1; g <= re.ngroups; g++) {
			if (g > 1)
				buf_putc(out, ',');
			if (ov[2 * g] == SIZE_MAX)
				buf_putc(out, '~');
			else
				buf_put(out, in + ov[2 * g],
				    ov[2 * g + 1] - ov[2 * g]);
		}
		buf_putc(out, ']');
		last = ov[1];
		if (!strchr(flags, 'g'))
			break;
		if (ov[1] == ov[0]) {
			size_t k = ov[1] < len ?
			    utf8_decode(in + ov[1], len - ov[1], &c) : 1;
			pos = ov[1] + (k ? k : 1);
		} else {
			pos = ov[1];
		}
	}
	buf_put(out, in + last, len - last);
	free(ov);
	jsregex_match_data_free(md);
	jsregex_free(&re);
	return true;
}

/*
 * Where strata knowingly differs from JavaScript (documented in
 * jsregex.h and strata-tavern(7)): code points, not UTF-16 units; the
 * groups of a look-behind PCRE2 cannot run as it is.
 */
static const struct {
	const char *pattern, *flags, *ours;     /* ours NULL: an error */
} differs[] = {
	{ "a.c", "g", "[abc|] a\nc a\rc a\xe2\x80\xa8" "c a\xe2\x80\xa9" "c "
	    "[a\vc|] [a\xc2\x85" "c|] [a\xf0\x9f\x98\x80" "c|]" },
	{ "", "g", "[|]a[|]\xf0\x9f\x98\x80[|]\xe4\xb8\xad[|]" },
	{ "x*", "g", "[|]a[|]\xf0\x9f\x98\x80[|]" },
	/* a group inside an emulated look-behind is never set */
	{ "(?<=<([a-z]+)>.*)x", "g", "<b>a[x|~] [x|~]" },
};

static void
test_node_cases(void)
{
	struct source *src = run_read(&run, "regex/expected.json", NULL,
	    span_make(0, 0));
	struct node *root = NULL;
	struct buf out = BUF_INIT;
	size_t k, d, ndiff = 0;
	const struct node *c, *pat, *fl, *in, *want, *e;
	bool ok;

	CHECK(src != NULL);
	if (!src || !json_parse(&run, src, &root))
		return;
	root = tree_get(root, "patterns");
	CHECK(root && root->kind == NODE_ARRAY && root->u.array.n > 100);
	if (!root)
		return;
	for (k = 0; k < root->u.array.n; k++) {
		c = root->u.array.items[k];
		pat = tree_get(c, "pattern");
		fl = tree_get(c, "flags");
		in = tree_get(c, "input");
		want = tree_get(c, "output");
		e = tree_get(c, "error");
		buf_reset(&out);
		capture_begin();
		ok = marked(pat->u.str.s, pat->u.str.len, fl->u.str.s,
		    in->u.str.s, in->u.str.len, &out);
		capture_end();
		for (d = 0; d < LEN(differs); d++)
			if (strcmp(differs[d].pattern, pat->u.str.s) == 0 &&
			    strcmp(differs[d].flags, fl->u.str.s) == 0)
				break;
		if (d < LEN(differs)) {
			ndiff++;
			if (differs[d].ours) {
				CHECK(ok);
				CHECK_STR(out.data ? out.data : "",
				    differs[d].ours);
			} else {
				CHECK(!ok);
			}
			continue;
		}
		if (e) {
			if (ok)
				fprintf(stderr, "case /%s/%s: JS refuses it, "
				    "strata compiled it\n", pat->u.str.s,
				    fl->u.str.s);
			CHECK(!ok);
			continue;
		}
		if (!ok)
			fprintf(stderr, "case /%s/%s: %s", pat->u.str.s,
			    fl->u.str.s, err);
		CHECK(ok);
		if (ok && (out.len != want->u.str.len ||
		    memcmp(out.data, want->u.str.s, out.len) != 0)) {
			fprintf(stderr, "case /%s/%s on \"%s\"\n",
			    pat->u.str.s, fl->u.str.s, in->u.str.s);
			CHECK_STR(out.data, want->u.str.s);
		}
	}
	CHECK_INT(ndiff, LEN(differs));
	buf_free(&out);
}

/* World-info regex keys against Node's parseRegexFromString + test(). */
static void
test_node_keys(void)
{
	struct source *src = run_read(&run, "regex/expected.json", NULL,
	    span_make(0, 0));
	struct node *root = NULL;
	const struct node *keys, *c, *k, *t, *want;
	struct jsregex_origin at = { NULL, {0, 0}, false, 0, false, "key", false };
	struct jsregex re;
	struct buf pat = BUF_INIT;
	size_t i, ov[64];
	unsigned flags;
	bool is_re, hit;
	void *md;

	if (!src || !json_parse(&run, src, &root))
		return;
	keys = tree_get(root, "keys");
	CHECK(keys && keys->u.array.n >= 18);
	for (i = 0; keys && i < keys->u.array.n; i++) {
		c = keys->u.array.items[i];
		k = tree_get(c, "key");
		t = tree_get(c, "text");
		want = tree_get(c, "regex");
		buf_reset(&pat);
		hit = false;
		is_re = jsregex_split_key(k->u.str.s, k->u.str.len, &pat,
		    &flags);
		if (is_re) {
			capture_begin();
			is_re = jsregex_compile(&run, &at, pat.data ? pat.data :
			    "", pat.len, flags, &re);
			capture_end();
			if (is_re) {
				md = jsregex_match_data(re.ngroups);
				hit = jsregex_match(&re, md, t->u.str.s,
				    t->u.str.len, 0, ov) == JSREGEX_MATCH;
				jsregex_match_data_free(md);
			}
			jsregex_free(&re);
		}
		if (is_re != (want->kind != NODE_NULL))
			fprintf(stderr, "key %s\n", k->u.str.s);
		CHECK(is_re == (want->kind != NODE_NULL));
		if (is_re && want->kind != NODE_NULL)
			CHECK(hit == tree_get(want, "test")->u.b);
	}
	buf_free(&pat);
}

static const char *
split(const char *s, unsigned *flags)
{
	static char pat[256];
	struct jsregex_parts p;

	jsregex_split(s, strlen(s), &p);
	*flags = p.flags;
	if (p.none)
		return NULL;
	snprintf(pat, sizeof(pat), "%.*s", (int)p.len, s + p.off);
	return pat;
}

static void
test_split(void)
{
	unsigned f;

	CHECK_STR(split("/abc/gi", &f), "abc");
	CHECK_INT(f, JSREGEX_G | JSREGEX_I);
	CHECK_STR(split("abc", &f), "abc");
	CHECK_INT(f, 0);
	CHECK_STR(split("/abc/", &f), "abc");
	CHECK_INT(f, 0);
	CHECK_STR(split("/a/b/c", &f), "/a/b/c");        /* "c": no flag */
	CHECK_INT(f, 0);
	CHECK_STR(split("/a/b/gm", &f), "a/b");
	CHECK_INT(f, JSREGEX_G | JSREGEX_M);
	CHECK_STR(split("/abc/gg", &f), "/abc/gg");      /* repeated */
	CHECK_STR(split("/abc/I", &f), "/abc/I");        /* capital I */
	CHECK_STR(split("/abc/y", &f), "/abc/y");
	CHECK_STR(split("/abc/d", &f), "/abc/d");
	CHECK_STR(split("/abc/v", &f), "/abc/v");
	CHECK_STR(split("/abc/x", &f), "abc");
	CHECK_INT(f, JSREGEX_INERT);
	CHECK_STR(split("/abc/gU", &f), "abc");
	CHECK_INT(f, JSREGEX_G | JSREGEX_INERT);
	CHECK_STR(split("/abc", &f), "/abc");
	CHECK_STR(split("//", &f), "//");                /* needs one char */
	CHECK_STR(split("/abc/gi tail", &f), "abc");     /* unanchored */
	CHECK_INT(f, JSREGEX_G | JSREGEX_I);
	CHECK_STR(split("foo\nbar", &f), "foo");         /* "." stops */
	CHECK_STR(split("\nfoo", &f), "foo");
	CHECK_STR(split("/foo\nbar/g", &f), "/foo");
	CHECK(split("", &f) == NULL);
	CHECK(split("\n\r", &f) == NULL);
}

/* A script-like JSON file whose findRegex is at a known place. */
static const char *
compile_json(const char *json, const char *what)
{
	struct source *src = run_source_mem(&run, "s.json", json,
	    strlen(json));
	struct node *root = NULL;
	const struct node *v;
	struct jsregex_parts p;
	struct jsregex re;
	struct jsregex_origin at;
	bool ok;

	CHECK(json_parse(&run, src, &root));
	v = tree_get(root, "findRegex");
	jsregex_split(v->u.str.s, v->u.str.len, &p);
	memset(&at, 0, sizeof(at));
	at.src = src;
	at.span = v->span;
	at.json = true;
	at.whole = false;
	at.base = p.off;
	at.what = what;
	capture_begin();
	ok = jsregex_compile(&run, &at, v->u.str.s + p.off, p.len, p.flags,
	    &re);
	capture_end();
	jsregex_free(&re);
	return ok ? NULL : err;
}

static void
test_errors(void)
{
	/* An emulated look-behind's body is compiled on its own: a
	 * back-reference from it to a group outside has nothing to refer
	 * to, and the message points into the body. */
	CHECK_STR(compile_json("{\"findRegex\": \"/(a)(?<=\\\\1+)b/g\"}",
	    "findRegex of script 'T'"),
	    "s.json:1:24: error: findRegex of script 'T': this look-behind "
	    "is not of a fixed length and refers to a group outside it; "
	    "strata cannot run it\n"
	    " 1 | {\"findRegex\": \"/(a)(?<=\\\\1+)b/g\"}\n"
	    "   |                        ^~~\n");
	/* Offsets map through JSON escapes: \\d is two bytes of JSON. */
	CHECK_STR(compile_json("{\"findRegex\": \"\\\\d\\\\d[z-a]\"}", "X"),
	    "s.json:1:23: error: X: range out of order in character class\n"
	    " 1 | {\"findRegex\": \"\\\\d\\\\d[z-a]\"}\n"
	    "   |                       ^~~\n");
	CHECK_STR(compile_json("{\"findRegex\": \"/a**/\"}", "X"),
	    "s.json:1:19: error: X: nothing to repeat\n"
	    " 1 | {\"findRegex\": \"/a**/\"}\n"
	    "   |                   ^\n");
	CHECK_STR(compile_json("{\"findRegex\": \"/(a/\"}", "X"),
	    "s.json:1:19: error: X: unterminated group\n"
	    " 1 | {\"findRegex\": \"/(a/\"}\n"
	    "   |                   ^\n");
	CHECK_STR(compile_json("{\"findRegex\": \"\\u00e9[\"}", "X"),
	    "s.json:1:22: error: X: unterminated character class\n"
	    " 1 | {\"findRegex\": \"\\u00e9[\"}\n"
	    "   |                      ^\n");
	CHECK(compile_json("{\"findRegex\": \"/ok/g\"}", "X") == NULL);
}

static void
test_limit(void)
{
	struct jsregex re;
	struct jsregex_origin at = { NULL, {0, 0}, false, 0, false, "t", false };
	char text[64];
	size_t ov[4];
	void *md;

	memset(text, 'a', 40);
	text[40] = 'b';
	CHECK(jsregex_compile(&run, &at, "(a+)+$", 6, 0, &re));
	md = jsregex_match_data(re.ngroups);
	CHECK_INT(jsregex_match(&re, md, text, 41, 0, ov), JSREGEX_LIMIT);
	jsregex_set_limits(&re, 1000, 100);
	CHECK_INT(jsregex_match(&re, md, text, 41, 0, ov), JSREGEX_LIMIT);
	CHECK_INT(jsregex_match(&re, md, "aa", 2, 0, ov), JSREGEX_MATCH);
	jsregex_match_data_free(md);
	jsregex_free(&re);

	/* An emulated look-behind's body runs under the same limits: a
	 * catastrophic one stops with the limit, not a hang. */
	memset(text, 'a', 40);
	text[40] = '!';
	text[41] = 'c';
	CHECK(jsregex_compile(&run, &at, "(?<=(a+)+b*)c", 13, 0, &re));
	CHECK(re.nbehind == 1);
	md = jsregex_match_data(re.ngroups);
	jsregex_set_limits(&re, 100000, 1000);
	CHECK_INT(jsregex_match(&re, md, text, 42, 0, ov), JSREGEX_LIMIT);
	CHECK_INT(jsregex_match(&re, md, "aabc", 4, 0, ov), JSREGEX_MATCH);
	CHECK_INT(jsregex_match(&re, md, "c", 1, 0, ov), JSREGEX_NOMATCH);
	jsregex_match_data_free(md);
	jsregex_free(&re);
}

static const char *
tr(const char *pat, unsigned flags)
{
	static char b[512];
	struct buf out = BUF_INIT;
	struct jsregex_origin at = { NULL, {0, 0}, false, 0, false, "t", false };

	if (!jsregex_translate(&run, &at, pat, strlen(pat), flags, &out))
		snprintf(b, sizeof(b), "(error)");
	else
		snprintf(b, sizeof(b), "%s", out.data ? out.data : "");
	buf_free(&out);
	return b;
}

static void
test_translate(void)
{
	CHECK_STR(tr("a.b", 0), "a[^\\n\\r\\x{2028}\\x{2029}]b");
	CHECK_STR(tr("^a$", 0), "\\Aa\\z");
	CHECK_STR(tr("^$", JSREGEX_M),
	    "(?<![^\\n\\r\\x{2028}\\x{2029}])(?![^\\n\\r\\x{2028}\\x{2029}])");
	CHECK_STR(tr("[^]|[]", 0), "[\\s\\S]|[^\\s\\S]");
	CHECK_STR(tr("(?<y>\\d)\\k<y>\\1", 0), "(\\d)\\g{1}\\g{1}");
	CHECK_STR(tr("\\/\\a{", 0), "\\x{2f}a\\x{7b}");
	CHECK_STR(tr("\\p{sc=Han}", JSREGEX_U), "\\p{sc:Han}");
	CHECK_STR(tr("\\v\\cJ\\0", 0), "\\x{b}\\x{a}\\x{0}");
}

static void
test_escape_value(void)
{
	struct buf b = BUF_INIT;

	jsregex_escape_value("a.b*(c)\n\t/x-y", 13, &b);
	CHECK_STR(b.data, "a\\.b\\*\\(c\\)\\n\\t\\/x-y");
	buf_free(&b);
}

/* jsregex_prefix(): the literal read from the source, and matches with
 * the skip the same as without it, for every start offset. */
static const char *
prefix_of(const char *pat, bool caseless)
{
	static char b[64];
	struct jsregex_prefix p;

	if (!jsregex_prefix(pat, strlen(pat), caseless, false, &p))
		return "(none)";
	snprintf(b, sizeof(b), "%.*s%s%s", (int)p.len, p.lit,
	    p.digit ? "+digit" : "", p.sk ? "+sk" : "");
	return b;
}

static void
test_prefix(void)
{
	static const struct {
		const char *pat, *flags, *text;
	} cases[] = {
		{ "soft\\d+", "g", "soft softer soft1 so ft2 Soft3" },
		{ "\\brune8(s|es)?\\b", "gi", "rune81 RUNE8s Rune8 rune8es" },
		{ " {2,}", "g", "a b  c   d" },
		{ "\\*{2,}", "g", "*a* **b*** *" },
		{ "\\bSeraphina\\b", "g", "Seraphinas Seraphina's, seraphina" },
		{ "sun", "gi", "\xC5\xBFun SUN \xE2\x84\xAA" "sun" },
		{ "kin", "gi", "\xE2\x84\xAA" "in KIN" },
		{ "ab?c", "g", "ac abc a" },
		{ "a*b", "g", "aab b" },
		{ "x{,2}y", "g", "x{,2}y xy" },
		{ "\\.\\.\\.", "g", "a... b.." },
		{ "q\\d?z", "g", "qz q1z" },
		{ "x(a|b)", "g", "xc xb xa" },
		{ "ab[|)]", "g", "ab ab| ab)" },
		{ "^\\s+|\\s+$", "g", " \t a b \xC2\xA0x \xE3\x80\x80" },
		{ "^\\s+|\\s+$", "g", "" },
		{ "^\\s+|\\s+$", "g", "   " },
		{ "^a|[bc\\u00e9]+|^d", "gi", "aBcd\xC3\xA9 \xC3\x89" "b a" },
		{ "^(a|b)|(x)", "g", "bxax" },
	};
	struct jsregex_origin at = { NULL, {0, 0}, false, 0, false, "t", false };
	size_t i, pos;

	CHECK_STR(prefix_of("soft\\d+", false), "soft+digit");
	{
		struct jsregex t;

		CHECK(jsregex_compile(&run, &at, "^\\s+|\\s+$", 9, 0, &t));
		CHECK(t.has_starts);
		jsregex_free(&t);
	}
	CHECK_STR(prefix_of("\\bRune8(s|es)?\\b", true), "rune8");
	CHECK_STR(prefix_of(" {2,}", false), "  ");
	CHECK_STR(prefix_of("ab?c", false), "a");
	CHECK_STR(prefix_of("a*b", false), "(none)");
	CHECK_STR(prefix_of("a|b", false), "(none)");
	CHECK_STR(prefix_of("x(a|b)", false), "x");
	CHECK_STR(prefix_of("ab[|)]", false), "ab");
	CHECK_STR(prefix_of("ab(c)|d", false), "(none)");
	CHECK_STR(prefix_of("ab[[:alpha:]|]", false), "(none)");
	CHECK_STR(prefix_of("ab\\Q|\\E", false), "(none)");
	CHECK_STR(prefix_of("Sky", true), "sky+sk");
	CHECK_STR(prefix_of("x{,2}y", false), "(none)");
	CHECK_STR(prefix_of("ab{3}c", false), "abbb");
	CHECK_STR(prefix_of("\\bu\\d{2}", false), "u");
	for (i = 0; i < LEN(cases); i++) {
		struct jsregex a, b;
		const char *t = cases[i].text;
		size_t n = strlen(t), ova[16], ovb[16];
		void *md;

		CHECK(jsregex_compile(&run, &at, cases[i].pat,
		    strlen(cases[i].pat), flags_of(cases[i].flags), &a));
		CHECK(jsregex_compile(&run, &at, cases[i].pat,
		    strlen(cases[i].pat), flags_of(cases[i].flags), &b));
		CHECK(2 * (a.ngroups + 1) <= LEN(ova));
		b.has_prefix = false;
		b.has_starts = false;
		md = jsregex_match_data(a.ngroups + 1);
		for (pos = 0; pos <= n; pos++) {
			enum jsregex_result ra, rb;

			if (pos < n && ((unsigned char)t[pos] & 0xC0) == 0x80)
				continue;
			ra = jsregex_match(&a, md, t, n, pos, ova);
			rb = jsregex_match(&b, md, t, n, pos, ovb);
			CHECK_INT(ra, rb);
			if (ra == JSREGEX_MATCH && rb == JSREGEX_MATCH) {
				CHECK_INT(ova[0], ovb[0]);
				CHECK_INT(ova[1], ovb[1]);
			}
		}
		jsregex_match_data_free(md);
		jsregex_free(&a);
		jsregex_free(&b);
	}
}

int
main(void)
{
	progname = "test_jsregex";
	run_init(&run);
	test_split();
	if (access("regex/expected.json", R_OK) == 0) {
		test_node_cases();
		test_node_keys();
	}
	else
		fprintf(stderr, "skipped: regex/expected.json not found\n");
	test_translate();
	test_errors();
	test_limit();
	test_escape_value();
	test_prefix();
	run_free(&run);
	free(err);
	return check_done("jsregex");
}
