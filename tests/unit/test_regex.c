/* regex: reading SillyTavern regex scripts, selection (reference §3.2),
 * application (§3.3), placements and depths (§3.4), the shared samples
 * and the conformance cases d, f and u, errors, speed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"
#include "capture.h"
#include "check.h"
#include "data/json.h"
#include "data/load.h"
#include "data/tree.h"
#include "diag/run.h"
#include "text/regex.h"

#define SHARED "../../shared"

static struct run run;
static char *res;

/* A stand-in macro engine: {{char}}, {{user}} (any case) and
 * {{count}} (a counter, to see how often an expansion runs). */
static int expansions;

static bool
macros(void *ctx, enum regex_macro_use use, const char *s, size_t n,
    struct buf *out)
{
	size_t i;
	const char *v;
	size_t vl;
	char num[16];

	(void)ctx;
	expansions++;
	for (i = 0; i < n;) {
		v = NULL;
		vl = 0;
		if (n - i >= 8 && strncasecmp(s + i, "{{char}}", 8) == 0) {
			v = "Sera.phina";
			vl = 8;
		} else if (n - i >= 8 && strncasecmp(s + i, "{{user}}", 8) ==
		    0) {
			v = "User";
			vl = 8;
		} else if (n - i >= 9 && strncmp(s + i, "{{count}}", 9) == 0) {
			snprintf(num, sizeof(num), "%d", expansions);
			v = num;
			vl = 9;
		}
		if (!v) {
			buf_putc(out, s[i++]);
			continue;
		}
		if (use == REGEX_MACRO_FIND_ESCAPED)
			jsregex_escape_value(v, strlen(v), out);
		else
			buf_puts(out, v);
		i += vl;
	}
	return true;
}

static struct regex_macros mac = { macros, NULL };

/* A broken macro engine: its output is not UTF-8. */
static bool
macros_bad(void *ctx, enum regex_macro_use use, const char *s, size_t n,
    struct buf *out)
{
	(void)ctx;
	(void)use;
	buf_put(out, s, n);
	buf_puts(out, "\xff");
	return true;
}

/* A set from JSON text (as file name), diagnostics in err. */
static bool
load(struct regex_set *set, enum regex_scope scope, const char *name,
    const char *json)
{
	struct source *src = run_source_mem(&run, name, json, strlen(json));
	struct node *root = NULL;
	bool ok;

	capture_begin();
	ok = json_parse(&run, src, &root) &&
	    regex_set_add(&run, set, scope, root);
	capture_end();
	return ok;
}

/* Apply and return the result (static). */
static const char *
apply(struct regex_set *set, enum regex_placement pl, unsigned call,
    int depth, const char *text)
{
	struct buf out = BUF_INIT;

	capture_begin();
	regex_apply(&run, set, pl, call, depth, text, strlen(text), &out,
	    &mac);
	capture_end();
	buf_putc(&out, '\0');
	free(res);
	res = buf_detach(&out);
	return res;
}

/* One script given by its fields (JSON members) over text. */
static const char *
one(const char *fields, enum regex_placement pl, unsigned call, int depth,
    const char *text)
{
	struct regex_set set;
	struct buf j = BUF_INIT;
	const char *r;

	regex_set_init(&set);
	buf_printf(&j, "{\"scriptName\": \"t\", \"placement\": [1, 2, 3, 5, 6],"
	    " %s}", fields);
	CHECK(load(&set, REGEX_GLOBAL, "one.json", j.data));
	r = apply(&set, pl, call, depth, text);
	buf_free(&j);
	regex_set_free(&set);
	return r;
}

#define AI REGEX_AI_OUTPUT
#define ND REGEX_NO_DEPTH
#define P REGEX_PROMPT

static void
test_selection(void)
{
	const char *perm = "\"findRegex\": \"a\", \"replaceString\": \"b\"";
	const char *pronly = "\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"promptOnly\": true";
	const char *mdonly = "\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"markdownOnly\": true";
	const char *both = "\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"markdownOnly\": true, \"promptOnly\": true";

	/* 1. flags against the call's kind */
	CHECK_STR(one(perm, AI, 0, ND, "a"), "b");
	CHECK_STR(one(perm, AI, P, ND, "a"), "a");
	CHECK_STR(one(perm, AI, REGEX_MARKDOWN, ND, "a"), "a");
	CHECK_STR(one(pronly, AI, P, ND, "a"), "b");
	CHECK_STR(one(pronly, AI, 0, ND, "a"), "a");
	CHECK_STR(one(pronly, AI, REGEX_MARKDOWN, ND, "a"), "a");
	CHECK_STR(one(mdonly, AI, REGEX_MARKDOWN, ND, "a"), "b");
	CHECK_STR(one(mdonly, AI, P, ND, "a"), "a");
	CHECK_STR(one(both, AI, P, ND, "a"), "b");
	CHECK_STR(one(both, AI, REGEX_MARKDOWN, ND, "a"), "b");
	CHECK_STR(one(both, AI, 0, ND, "a"), "a");
	/* 2. edits run only runOnEdit scripts */
	CHECK_STR(one(perm, AI, REGEX_EDIT, ND, "a"), "a");
	CHECK_STR(one("\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"runOnEdit\": true", AI, REGEX_EDIT, ND, "a"), "b");
	/* disabled */
	CHECK_STR(one("\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"disabled\": true", AI, 0, ND, "a"), "a");
	/* 3. depth window */
	{
		const char *w = "\"findRegex\": \"a\", \"replaceString\": \"b\","
		    " \"promptOnly\": true, \"minDepth\": 1, \"maxDepth\": 3";
		CHECK_STR(one(w, AI, P, 0, "a"), "a");
		CHECK_STR(one(w, AI, P, 1, "a"), "b");
		CHECK_STR(one(w, AI, P, 3, "a"), "b");
		CHECK_STR(one(w, AI, P, 4, "a"), "a");
		CHECK_STR(one(w, AI, P, ND, "a"), "b");  /* no depth: runs */
	}
	{
		/* minDepth -1 takes the continued message (depth -1) */
		const char *w = "\"findRegex\": \"a\", \"replaceString\": \"b\","
		    " \"promptOnly\": true, \"minDepth\": -1";
		CHECK_STR(one(w, AI, P, -1, "a"), "b");
		CHECK_STR(one(w, AI, P, -2, "a"), "a");
	}
	{
		/* below -1 (min) and below 0 (max): no limit */
		const char *w = "\"findRegex\": \"a\", \"replaceString\": \"b\","
		    " \"promptOnly\": true, \"minDepth\": -5, \"maxDepth\": -1";
		CHECK_STR(one(w, AI, P, -3, "a"), "b");
		CHECK_STR(one(w, AI, P, 100, "a"), "b");
	}
	{
		const char *w = "\"findRegex\": \"a\", \"replaceString\": \"b\","
		    " \"promptOnly\": true, \"minDepth\": null, "
		    "\"maxDepth\": 0";
		CHECK_STR(one(w, AI, P, 0, "a"), "b");
		CHECK_STR(one(w, AI, P, 1, "a"), "a");
	}
	/* NaN-like depths (strings that are no number): no limit, and a
	 * numeric string counts as its number */
	CHECK_STR(one("\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"promptOnly\": true, \"maxDepth\": \"x\"", AI, P, 9, "a"), "b");
	CHECK_STR(one("\"findRegex\": \"a\", \"replaceString\": \"b\", "
	    "\"promptOnly\": true, \"maxDepth\": \"2\"", AI, P, 3, "a"), "a");
	/* 4. placement, the legacy values too */
	CHECK_STR(one(perm, REGEX_WORLD_INFO, 0, ND, "a"), "b");
	CHECK_STR(one(perm, REGEX_MD_DISPLAY, 0, ND, "a"), "a");
	CHECK_STR(one(perm, REGEX_SEND_AS, 0, ND, "a"), "a");
	{
		struct regex_set set;

		regex_set_init(&set);
		CHECK(load(&set, REGEX_GLOBAL, "legacy.json",
		    "{\"findRegex\": \"a\", \"replaceString\": \"b\", "
		    "\"placement\": [0, 4]}"));
		CHECK_STR(apply(&set, REGEX_MD_DISPLAY, 0, ND, "a"), "b");
		CHECK_STR(apply(&set, REGEX_SEND_AS, 0, ND, "a"), "b");
		CHECK_STR(apply(&set, AI, 0, ND, "a"), "a");
		regex_set_free(&set);
	}
	/* a missing placement never runs */
	{
		struct regex_set set;

		regex_set_init(&set);
		CHECK(load(&set, REGEX_GLOBAL, "np.json",
		    "{\"findRegex\": \"a\", \"replaceString\": \"b\"}"));
		CHECK_STR(apply(&set, AI, 0, ND, "a"), "a");
		regex_set_free(&set);
	}
}

static void
test_scope_order(void)
{
	struct regex_set set;

	regex_set_init(&set);
	/* Added scoped first, then global, then preset: run global, preset,
	 * scoped, each on the output of the one before. */
	CHECK(load(&set, REGEX_SCOPED, "card.json",
	    "[{\"findRegex\": \"/$/\", \"replaceString\": \"S\", "
	    "\"placement\": [2]}]"));
	CHECK(load(&set, REGEX_GLOBAL, "settings.json",
	    "[{\"findRegex\": \"/$/\", \"replaceString\": \"G1\", "
	    "\"placement\": [2]}, {\"findRegex\": \"/$/\", "
	    "\"replaceString\": \"G2\", \"placement\": [2]}]"));
	CHECK(load(&set, REGEX_PRESET, "preset.json",
	    "{\"findRegex\": \"/$/\", \"replaceString\": \"P\", "
	    "\"placement\": [2]}"));
	CHECK_STR(apply(&set, AI, 0, ND, "x"), "xG1G2PS");
	CHECK_INT(set.n, 4);
	/* Asked to, the set names the scripts that changed the text, in
	 * the order they ran; one that changed nothing is not named. */
	{
		struct buf fired = BUF_INIT;

		set.v[0].name = "g1";
		set.v[1].name = "g2";
		set.v[2].name = "";
		set.v[3].name = "card";
		set.fired = &fired;
		CHECK_STR(apply(&set, AI, 0, ND, "x"), "xG1G2PS");
		buf_putc(&fired, '\0');
		CHECK_STR(fired.data, "g1, g2, (unnamed script), card");
		buf_reset(&fired);
		CHECK_STR(apply(&set, REGEX_USER_INPUT, 0, ND, "x"), "x");
		CHECK_INT(fired.len, 0);
		set.fired = NULL;
		buf_free(&fired);
	}
	CHECK_STR(set.v[0].find, "/$/");
	CHECK_INT(set.v[3].scope, REGEX_SCOPED);
	regex_set_free(&set);
}

static void
test_replace(void)
{
	/* g against first match only */
	CHECK_STR(one("\"findRegex\": \"o\", \"replaceString\": \"0\"", AI, 0,
	    ND, "foo boo"), "f0o boo");
	CHECK_STR(one("\"findRegex\": \"/o/g\", \"replaceString\": \"0\"", AI,
	    0, ND, "foo boo"), "f00 b00");
	/* {{match}} in any case is $0 */
	CHECK_STR(one("\"findRegex\": \"/t(e)a/gi\", \"replaceString\": "
	    "\"[{{match}}|{{MATCH}}|{{Match}}|$0|$1]\"", AI, 0, ND,
	    "Tea tea"), "[Tea|Tea|Tea|Tea|e] [tea|tea|tea|tea|e]");
	/* {{match}}1 becomes $01: group 1 (a SillyTavern quirk) */
	CHECK_STR(one("\"findRegex\": \"(a)b\", \"replaceString\": "
	    "\"{{match}}1\"", AI, 0, ND, "ab"), "a");
	/* named groups */
	CHECK_STR(one("\"findRegex\": \"/(?<y>\\\\d{4})-(?<m>\\\\d\\\\d)/g\","
	    " \"replaceString\": \"$<m>/$<y> $<none>|\"", AI, 0, ND,
	    "2024-05 1999-12"), "05/2024 | 12/1999 |");
	/* $<name> without named groups, $<> and an open $< are text/"" */
	CHECK_STR(one("\"findRegex\": \"(a)\", \"replaceString\": "
	    "\"$<a>|$<>|$<x\"", AI, 0, ND, "a"), "|$<>|$<x");
	/* missing and empty groups give "" */
	CHECK_STR(one("\"findRegex\": \"(x)?(y*)b\", \"replaceString\": "
	    "\"[$1|$2]\"", AI, 0, ND, "b"), "[|]");
	/* $& $` $' $$ are not interpreted */
	CHECK_STR(one("\"findRegex\": \"b\", \"replaceString\": "
	    "\"$&$`$'$$\"", AI, 0, ND, "abc"), "a$&$`$'$$c");
	/* past the groups: the offset (UTF-16 units; 0 is falsy), the
	 * whole string; then nothing */
	CHECK_STR(one("\"findRegex\": \"/(b)/g\", \"replaceString\": "
	    "\"<$2>\"", AI, 0, ND, "b😀b"), "<>😀<3>");
	CHECK_STR(one("\"findRegex\": \"(b)\", \"replaceString\": "
	    "\"<$3|$4>\"", AI, 0, ND, "abc"), "a<abc|>c");
	/* the groups object: SillyTavern throws; strata inserts nothing */
	CHECK_STR(one("\"findRegex\": \"(?<n>b)\", \"replaceString\": "
	    "\"<$4>\"", AI, 0, ND, "abc"), "a<>c");
	/* trimStrings, macro-substituted, removed from inserted captures
	 * only */
	CHECK_STR(one("\"findRegex\": \"/Drink (your \\\\w+)\\\\./g\", "
	    "\"replaceString\": \"Sip $1! your\", \"trimStrings\": "
	    "[\"your \", \"{{user}}\"]", AI, 0, ND,
	    "Drink your tea. Drink your UserTea."),
	    "Sip tea! your Sip Tea! your");
	/* the final replacement is macro-substituted; its result is
	 * inserted literally, captured macro text included */
	CHECK_STR(one("\"findRegex\": \"\\\\[(.*?)\\\\]\", "
	    "\"replaceString\": \"{{user}}: $1\"", AI, 0, ND,
	    "[{{char}} $1]"), "User: Sera.phina $1");
	/* substituteRegex 0: the macro is a literal pattern (braces) */
	CHECK_STR(one("\"findRegex\": \"{{char}}\", \"replaceString\": "
	    "\"X\"", AI, 0, ND, "{{char}} Sera.phina"), "X Sera.phina");
	/* 1: raw (the '.' is a regex dot); 2: escaped */
	CHECK_STR(one("\"findRegex\": \"/{{char}}/g\", \"replaceString\": "
	    "\"X\", \"substituteRegex\": 1", AI, 0, ND,
	    "Sera.phina SeraXphina"), "X X");
	CHECK_STR(one("\"findRegex\": \"/{{char}}/g\", \"replaceString\": "
	    "\"X\", \"substituteRegex\": 2", AI, 0, ND,
	    "Sera.phina SeraXphina"), "X SeraXphina");
	/* an empty text is left alone, even by a pattern matching "" */
	CHECK_STR(one("\"findRegex\": \"/^/\", \"replaceString\": \"X\"", AI,
	    0, ND, ""), "");
	/* an empty findRegex does nothing */
	CHECK_STR(one("\"findRegex\": \"\", \"replaceString\": \"X\"", AI, 0,
	    ND, "abc"), "abc");
	/* empty matches advance by one character, not one byte */
	CHECK_STR(one("\"findRegex\": \"/x*/g\", \"replaceString\": \"-\"",
	    AI, 0, ND, "日a"), "-日-a-");
	/* a bare pattern has no flags: case-sensitive, first match */
	CHECK_STR(one("\"findRegex\": \"a\", \"replaceString\": \"b\"", AI, 0,
	    ND, "A a a"), "A b a");
}

static void
test_errors(void)
{
	struct regex_set set;

	regex_set_init(&set);
	CHECK(!load(&set, REGEX_GLOBAL, "bad.json", "{\"findRegex\": "));
	CHECK_STR(err, "bad.json:1:15: error: unexpected end of input, "
	    "expected a value\n"
	    " 1 | {\"findRegex\": \n"
	    "   |               ^\n");
	CHECK(!load(&set, REGEX_GLOBAL, "types.json",
	    "[{\"scriptName\": \"T\", \"findRegex\": 5,\n"
	    "  \"trimStrings\": \"x\", \"disabled\": \"false\"}, 7]"));
	CHECK_STR(err,
	    "types.json:1:35: error: 'findRegex' of a regex script must be a "
	    "string, not an integer\n"
	    " 1 | [{\"scriptName\": \"T\", \"findRegex\": 5,\n"
	    "   |                                   ^\n"
	    "types.json:2:18: error: 'trimStrings' of a regex script must be "
	    "an array of strings, not a string\n"
	    " 2 |   \"trimStrings\": \"x\", \"disabled\": \"false\"}, 7]\n"
	    "   |                  ^~~\n"
	    "types.json:2:35: warning: 'disabled' is a string; SillyTavern "
	    "reads it as true\n"
	    " 2 |   \"trimStrings\": \"x\", \"disabled\": \"false\"}, 7]\n"
	    "   |                                   ^~~~~~~\n"
	    "types.json:2:45: error: a regex script must be an object, not an "
	    "integer\n"
	    " 2 |   \"trimStrings\": \"x\", \"disabled\": \"false\"}, 7]\n"
	    "   |                                             ^\n");
	/* A script strata cannot run is left out with a warning, as
	 * SillyTavern leaves out one whose regex it cannot make. */
	CHECK(load(&set, REGEX_GLOBAL, "pcre.json",
	    "{\"scriptName\": \"LB\", \"findRegex\": \"/(a)(?<=\\\\1+)x/\"}"));
	CHECK_STR(err,
	    "pcre.json:1:44: warning: findRegex of script 'LB': this "
	    "look-behind is not of a fixed length and refers to a group "
	    "outside it; strata cannot run it\n"
	    " 1 | {\"scriptName\": \"LB\", \"findRegex\": \"/(a)(?<=\\\\1+)x/\"}\n"
	    "   |                                            ^~~\n");
	CHECK(load(&set, REGEX_GLOBAL, "flags.json",
	    "{\"scriptName\": \"F\", \"findRegex\": \"/a/gx\", "
	    "\"replaceString\": \"b\", \"placement\": [2]}"));
	CHECK_STR(err,
	    "flags.json:1:34: warning: findRegex of script 'F': flag 'x' is "
	    "not a JavaScript flag; SillyTavern ignores this script\n"
	    " 1 | {\"scriptName\": \"F\", \"findRegex\": \"/a/gx\", "
	    "\"replaceString\": \"b\", \"placement\": [2]}\n"
	    "   |                                  ^~~~~~~\n");
	CHECK_STR(apply(&set, AI, 0, ND, "aaa"), "aaa");
	CHECK(load(&set, REGEX_GLOBAL, "gg.json",
	    "{\"scriptName\": \"G\", \"findRegex\": \"/a/gg\", "
	    "\"replaceString\": \"b\", \"placement\": [2]}"));
	CHECK_STR(err,
	    "gg.json:1:34: warning: findRegex of script 'G': the letters "
	    "after the last '/' are not a set of flags, so SillyTavern takes "
	    "the whole string, slashes included, as the pattern\n"
	    " 1 | {\"scriptName\": \"G\", \"findRegex\": \"/a/gg\", "
	    "\"replaceString\": \"b\", \"placement\": [2]}\n"
	    "   |                                  ^~~~~~~\n");
	CHECK_STR(apply(&set, AI, 0, ND, "a /a/gg"), "a b");
	regex_set_free(&set);

	/* Text that is not UTF-8, and a macro that breaks it: an error,
	 * the text as it was. */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "u.json",
	    "{\"findRegex\": \"/a/g\", \"replaceString\": \"b\", "
	    "\"placement\": [2]}"));
	CHECK_STR(apply(&set, AI, 0, ND, "a\xff" "a"), "a\xff" "a");
	CHECK_STR(err, "test_regex: error: invalid UTF-8\n");
	mac.expand = macros_bad;
	CHECK_STR(apply(&set, AI, 0, ND, "xa"), "xa");
	CHECK_STR(err, "test_regex: error: invalid UTF-8\n");
	mac.expand = macros;
	regex_set_free(&set);

	/* A catastrophic pattern stops at the match limit, once per
	 * script; the text stays as it was. */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "cat.json",
	    "{\"scriptName\": \"Cat\", \"findRegex\": \"/(a+)+$/\", "
	    "\"replaceString\": \"X\", \"placement\": [2]}"));
	{
		char text[64];
		struct buf out = BUF_INIT;
		bool ok;

		memset(text, 'a', 40);
		strcpy(text + 40, "b");
		capture_begin();
		ok = regex_apply(&run, &set, AI, 0, ND, text, 41, &out, &mac);
		ok = regex_apply(&run, &set, AI, 0, ND, text, 41, &out, &mac)
		    || ok;
		capture_end();
		CHECK(!ok);
		CHECK_INT(out.len, 82);
		CHECK_STR(err,
		    "cat.json:1:36: error: match limit exceeded in script "
		    "'Cat'\n"
		    " 1 | {\"scriptName\": \"Cat\", \"findRegex\": "
		    "\"/(a+)+$/\", \"replaceString\": \"X\", \"placement\": "
		    "[2]}\n"
		    "   |                                    ^~~~~~~~~~\n");
		buf_free(&out);
	}
	regex_set_free(&set);
}

/* The messages of a chat.jsonl, in order (strings in the arena). */
static size_t
chat(const char *path, const char **mes, int *user, size_t max)
{
	struct source *src = run_read(&run, path, NULL, span_make(0, 0));
	size_t n = 0, i = 0, e;
	struct source *line;
	struct node *t;
	const struct node *v;

	if (!src)
		return 0;
	while (i < src->len && n < max) {
		for (e = i; e < src->len && src->text[e] != '\n'; e++)
			;
		line = run_source_mem(&run, path, src->text + i, e - i);
		if (json_parse(&run, line, &t) && (v = tree_get(t, "mes"))) {
			mes[n] = v->u.str.s;
			user[n++] = tree_get(t, "is_user")->u.b;
		}
		i = e + 1;
	}
	return n;
}

/*
 * A conformance case by hand: stored messages get only promptOnly
 * scripts, with depth chatLen - index - 1 (the typed message counts); the
 * typed message first gets the permanent user-input scripts, then the
 * prompt ones at depth 0.  The non-system messages of expected.json
 * from index 3 on must be the results.
 */
static void
conformance(const char *dir, const char *typed)
{
	char path[512];
	struct source *src;
	struct node *root, *exp;
	const struct node *rx, *msgs, *m;
	struct regex_set set;
	const char *mes[16], *got;
	int user[16];
	size_t n, k, e;
	struct buf t = BUF_INIT;

	snprintf(path, sizeof(path), "%s/settings.json", dir);
	CHECK(load_file(&run, path, LOAD_JSON, NULL, span_make(0, 0), &root,
	    &src));
	rx = tree_get(tree_get(root, "extension_settings"), "regex");
	regex_set_init(&set);
	CHECK(regex_set_add(&run, &set, REGEX_GLOBAL, rx));
	snprintf(path, sizeof(path), "%s/chat.jsonl", dir);
	n = chat(path, mes, user, 15);
	CHECK(n > 0);
	/* the typed message, as stored at send time */
	got = apply(&set, REGEX_USER_INPUT, 0, ND, typed);
	mes[n] = arena_strdup(&run.arena, got);
	user[n++] = 1;
	snprintf(path, sizeof(path), "%s/expected.json", dir);
	CHECK(load_file(&run, path, LOAD_JSON, NULL, span_make(0, 0), &exp,
	    &src));
	msgs = tree_get(exp, "messages");
	for (k = 0, e = 3; k < n && e < msgs->u.array.n; k++, e++) {
		m = msgs->u.array.items[e];
		if (strcmp(tree_get(m, "role")->u.str.s, "system") == 0) {
			k--;
			continue;
		}
		got = apply(&set, user[k] ? REGEX_USER_INPUT : AI, P,
		    (int)(n - k - 1), mes[k]);
		buf_reset(&t);
		CHECK_STR(got, tree_get(m, "content")->u.str.s);
	}
	CHECK_INT(k, n);
	buf_free(&t);
	regex_set_free(&set);
}

/* {{char}} is Seraphina in the conformance cases. */
static bool
macros_sera(void *ctx, enum regex_macro_use use, const char *s, size_t n,
    struct buf *out)
{
	size_t i;

	(void)ctx;
	(void)use;
	for (i = 0; i < n;) {
		if (n - i >= 8 && strncasecmp(s + i, "{{char}}", 8) == 0) {
			buf_puts(out, "Seraphina");
			i += 8;
		} else if (n - i >= 8 && strncasecmp(s + i, "{{user}}", 8) ==
		    0) {
			buf_puts(out, "User");
			i += 8;
		} else {
			buf_putc(out, s[i++]);
		}
	}
	return true;
}

static void
test_samples(void)
{
	static const char *const files[] = {
		"find_last_character.json", "replace_pic.json",
		"swap_(_for_).json", "trim.json",
	};
	struct regex_set set;
	struct node *root;
	struct source *src;
	char path[512];
	size_t k;

	if (access(SHARED "/samples/sillytavern/regex", R_OK) != 0) {
		fprintf(stderr, "skipped: %s not found: sample scripts and "
		    "conformance cases d, f, u\n", SHARED);
		return;
	}
	regex_set_init(&set);
	for (k = 0; k < LEN(files); k++) {
		snprintf(path, sizeof(path),
		    SHARED "/samples/sillytavern/regex/%s", files[k]);
		CHECK(load_file(&run, path, LOAD_JSON, NULL, span_make(0, 0),
		    &root, &src));
		CHECK(regex_set_add(&run, &set, REGEX_GLOBAL, root));
	}
	CHECK_INT(set.n, 4);
	CHECK_STR(set.v[0].name, "Find Last Character");
	CHECK(set.v[1].markdown_only && set.v[0].run_on_edit);
	CHECK_INT(set.v[1].placements, (1u << 1) | (1u << 2));
	CHECK(isnan(set.v[2].min_depth) && isnan(set.v[2].max_depth));
	/* Permanent AI-output scripts in file order, each on the output of
	 * the one before: Find Last Character repeats the opening mark
	 * ("smiles.*"), which Trim then cuts again after the last sentence
	 * end; Swap turns a final "(" into ")", which Trim cuts too. */
	CHECK_STR(apply(&set, AI, 0, ND, "She nods. *She smiles."),
	    "She nods. *She smiles.");
	CHECK_STR(apply(&set, AI, 0, ND, "Are you well? ("),
	    "Are you well?");
	CHECK_STR(apply(&set, AI, 0, ND, "It was late. The light fades"),
	    "It was late.");
	/* Replace Pic is markdown only, {{getglobalvar::$1}} left to the
	 * macro engine */
	CHECK_STR(apply(&set, REGEX_USER_INPUT, REGEX_MARKDOWN, ND,
	    "[ P123 ]"), "<div style=\"text-align: center;\"><img "
	    "src=\"{{getglobalvar::123}}\" height=\"500\"></div>");
	CHECK_STR(apply(&set, REGEX_USER_INPUT, P, ND, "[ P123 ]"),
	    "[ P123 ]");
	regex_set_free(&set);

	{
		/* conformance runs with {{char}} = Seraphina */
		mac.expand = macros_sera;
		conformance(SHARED "/conformance/sillytavern/d-regex-authors-note",
		    "Will you stay with me tonight? (");
		conformance(SHARED "/conformance/sillytavern/u-regex-depth-match",
		    "Please, is Seraphina still awake? It is so quiet and the "
		    "tea is cold.");
		mac.expand = macros;
	}
	/* f: the card's scoped prompt-only script, on the greeting only */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_SCOPED, "card.json",
	    "[{\"findRegex\": \"/amber eyes/g\", \"replaceString\": "
	    "\"golden eyes\", \"placement\": [2], \"promptOnly\": true}]"));
	CHECK_STR(apply(&set, AI, P, 1, "*Her amber eyes search yours.*"),
	    "*Her golden eyes search yours.*");
	CHECK_STR(apply(&set, REGEX_WORLD_INFO, P, ND, "amber eyes"),
	    "amber eyes");
	regex_set_free(&set);
}

/* Whole scripts whose results Node computed once
 * (tests/regex/gen-expected.mjs). */
static void
test_node_scripts(void)
{
	struct source *src;
	struct node *root = NULL;
	const struct node *v, *c, *t;
	struct buf j = BUF_INIT;
	struct regex_set set;
	size_t k, i;

	if (access("regex/expected.json", R_OK) != 0) {
		fprintf(stderr, "skipped: regex/expected.json not found\n");
		return;
	}
	src = run_read(&run, "regex/expected.json", NULL, span_make(0, 0));
	CHECK(src && json_parse(&run, src, &root));
	v = tree_get(root, "scripts");
	CHECK(v && v->u.array.n >= 20);
	for (k = 0; v && k < v->u.array.n; k++) {
		c = v->u.array.items[k];
		buf_reset(&j);
		buf_puts(&j, "{\"placement\": [2], \"findRegex\": ");
		t = tree_get(c, "find");
		json_write_string(&j, t->u.str.s, t->u.str.len);
		buf_puts(&j, ", \"replaceString\": ");
		t = tree_get(c, "replace");
		json_write_string(&j, t->u.str.s, t->u.str.len);
		buf_puts(&j, ", \"trimStrings\": [");
		t = tree_get(c, "trims");
		for (i = 0; i < t->u.array.n; i++) {
			if (i)
				buf_putc(&j, ',');
			json_write_string(&j, t->u.array.items[i]->u.str.s,
			    t->u.array.items[i]->u.str.len);
		}
		buf_puts(&j, "]}");
		regex_set_init(&set);
		load(&set, REGEX_GLOBAL, "node.json", j.data);
		t = tree_get(c, "input");
		{
			struct buf out = BUF_INIT;

			capture_begin();
			regex_apply(&run, &set, AI, 0, ND, t->u.str.s,
			    t->u.str.len, &out, NULL);
			capture_end();
			buf_putc(&out, '\0');
			if (strcmp(out.data, tree_get(c, "output")->u.str.s))
				fprintf(stderr, "script %s\n", j.data);
			CHECK_STR(out.data, tree_get(c, "output")->u.str.s);
			buf_free(&out);
		}
		regex_set_free(&set);
	}
	buf_free(&j);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * 40 prompt-only scripts of the kinds cards carry (cut a block, strip
 * tags, swap words, tidy spaces) over a 400-message chat; then the
 * sample Trim script, which is quadratic on a long line (JavaScript's
 * too), on its own.
 */
static double
speed(const char *const *finds, size_t nfinds, size_t nscripts,
    const char *msg, size_t len)
{
	struct regex_set set;
	struct buf j = BUF_INIT, out = BUF_INIT;
	size_t k;
	double t0, t;
	int m;

	regex_set_init(&set);
	buf_putc(&j, '[');
	for (k = 0; k < nscripts; k++)
		buf_printf(&j, "%s{\"scriptName\": \"s%zu\", \"findRegex\": "
		    "\"%s\", \"replaceString\": \"$1\", \"placement\": [1, 2], "
		    "\"promptOnly\": true}", k ? "," : "", k,
		    finds[k % nfinds]);
	buf_putc(&j, ']');
	if (!load(&set, REGEX_GLOBAL, "speed.json", j.data))
		fprintf(stderr, "%s", err);
	CHECK(err[0] == 0);
	t0 = now();
	for (m = 0; m < 400; m++) {
		buf_reset(&out);
		regex_apply(&run, &set, m % 2 ? AI : REGEX_USER_INPUT, P,
		    400 - m - 1, msg, len, &out, &mac);
	}
	t = now() - t0;
	buf_free(&j);
	buf_free(&out);
	regex_set_free(&set);
	return t;
}

static void
test_speed(void)
{
	static const char *const typical[] = {
		"/<thinking>[\\\\s\\\\S]*?<\\\\/thinking>/g",
		"/<[^>]+>/g",
		"/\\\\b(quiet|tea|night)\\\\b/gi",
		"/\\\\[\\\\s*P(\\\\d{3})\\\\s*\\\\]/g",
		"/ {2,}/g",
		"/(Seraphina|she) (says|whispers)/g",
		"/\\\\*\\\\*([^*]+)\\\\*\\\\*/g",
		"/^\\\\s+|\\\\s+$/g",
		"/静かな(夜)/g",
		"/{{char}}/gi",
	};
	static const char *const trim[] = {
		"([.!?]|\\\\.{3})(?!.*[.!?]|\\\\.{3}).*$",
	};
	struct buf msg = BUF_INIT;
	size_t k;
	double t;

	for (k = 0; k < 6; k++)
		buf_puts(&msg, "*She sets a steaming cup of tea beside you.* "
		    "\"Rest now, it is quiet tonight,\" she says softly. "
		    "[P123] 静かな夜です。😀 ");
	t = speed(typical, LEN(typical), 40, msg.data, msg.len);
	fprintf(stderr, "speed: 40 typical scripts x 400 messages of %zu "
	    "bytes: %.2f ms\n", msg.len, t * 1000);
	/* generous, for sanitizers; valgrind runs without JIT */
	CHECK(t < 2.0 || getenv("STRATA_NO_JIT"));
	if (getenv("SPEED_EACH"))
		for (k = 0; k < LEN(typical); k++)
			fprintf(stderr, "  %s: %.2f ms\n", typical[k],
			    speed(typical + k, 1, 40, msg.data, msg.len) *
			    1000);
	t = speed(trim, 1, 1, msg.data, msg.len);
	fprintf(stderr, "speed: the sample Trim script x 400 messages of %zu "
	    "bytes: %.2f ms\n", msg.len, t * 1000);
	buf_free(&msg);
}

/* regex_set_pure()'s fixed(): a text is fixed unless it holds
 * "{{count}}" (the stand-in engine's one macro that changes state). */
static int fixed_calls;

static bool
fixed(void *ctx, const char *s, size_t n)
{
	size_t i;

	(void)ctx;
	fixed_calls++;
	for (i = 0; i + 9 <= n; i++)
		if (memcmp(s + i, "{{count}}", 9) == 0)
			return false;
	return true;
}

/* Is one script (fields) pure on text, as a prompt-time AI output? */
static bool
pure_raw(const char *fields, const char *text)
{
	struct regex_set set;
	struct buf j = BUF_INIT;
	bool r;

	regex_set_init(&set);
	buf_printf(&j, "{\"scriptName\": \"t\", %s}", fields);
	CHECK(load(&set, REGEX_GLOBAL, "pure.json", j.data));
	r = regex_set_pure(&set, AI, P, text, strlen(text), fixed, NULL);
	buf_free(&j);
	regex_set_free(&set);
	return r;
}

static bool
pure1(const char *fields, const char *text)
{
	struct buf j = BUF_INIT;
	bool r;

	buf_printf(&j, "\"placement\": [2], \"promptOnly\": true, %s",
	    fields);
	r = pure_raw(j.data, text);
	buf_free(&j);
	return r;
}

static void
test_pure(void)
{
	struct regex_set set;

	/* Literal text and groups: pure... */
	CHECK(pure1("\"findRegex\": \"/a(b)/g\", \"replaceString\": "
	    "\"[$1]\"", "abab"));
	/* ...but a '{' in the text may become a macro through $1. */
	CHECK(!pure1("\"findRegex\": \"/a(.)/g\", \"replaceString\": "
	    "\"$1\"", "a{{count}}"));
	/* A fixed macro that closes in its own piece: pure. */
	CHECK(pure1("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{char}}: $0\"", "abc"));
	/* {{match}} is the match, not a macro. */
	CHECK(pure1("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"<{{match}}>\"", "abc"));
	/* A macro fixed() refuses, anywhere it can run. */
	CHECK(!pure1("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{count}}\"", "abc"));
	CHECK(!pure1("\"findRegex\": \"/{{count}}/g\", \"substituteRegex\":"
	    " 1, \"replaceString\": \"x\"", "abc"));
	CHECK(!pure1("\"findRegex\": \"/a(b)/g\", \"replaceString\": "
	    "\"$1\", \"trimStrings\": [\"{{count}}\"]", "abc"));
	/* A macro a group completes or joins: "{{" with a $ before "}}",
	 * an unclosed one, a single '{' next to a group. */
	CHECK(!pure1("\"findRegex\": \"/a(b)/g\", \"replaceString\": "
	    "\"{{$1}}\"", "abc"));
	CHECK(!pure1("\"findRegex\": \"/a(b)/g\", \"replaceString\": "
	    "\"{{char\"", "abc"));
	CHECK(!pure1("\"findRegex\": \"/a(b)/g\", \"replaceString\": "
	    "\"{$1{count}}\"", "abc"));
	/* A script that does not apply here does not count: markdownOnly,
	 * neither flag (the chat's text, not the prompt's), disabled,
	 * another placement. */
	CHECK(pure_raw("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{count}}\", \"placement\": [2], \"markdownOnly\": true",
	    "abc"));
	CHECK(pure_raw("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{count}}\", \"placement\": [2]", "abc"));
	CHECK(pure1("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{count}}\", \"disabled\": true", "abc"));
	CHECK(pure_raw("\"findRegex\": \"/a/g\", \"replaceString\": "
	    "\"{{count}}\", \"placement\": [1], \"promptOnly\": true",
	    "abc"));
	/* Chained: after a replacement that writes a '{', a later $1 may
	 * carry it into a macro; a later literal replacement may not. */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "chain.json", "[{\"scriptName\": "
	    "\"a\", \"placement\": [2], \"promptOnly\": true, "
	    "\"findRegex\": \"/w/\", \"replaceString\": \"{{abc}}\"}, "
	    "{\"scriptName\": \"b\", \"placement\": [2], \"promptOnly\": "
	    "true, \"findRegex\": \"/(.)abc/\", \"replaceString\": "
	    "\"$1\"}]"));
	CHECK(!regex_set_pure(&set, AI, P, "w", 1, fixed, NULL));
	regex_set_free(&set);
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "chain.json", "[{\"scriptName\": "
	    "\"a\", \"placement\": [2], \"promptOnly\": true, "
	    "\"findRegex\": \"/w/\", \"replaceString\": \"{{abc}}\"}, "
	    "{\"scriptName\": \"b\", \"placement\": [2], \"promptOnly\": "
	    "true, \"findRegex\": \"/abc/\", \"replaceString\": "
	    "\"x\"}]"));
	CHECK(regex_set_pure(&set, AI, P, "w", 1, fixed, NULL));
	regex_set_free(&set);
	/* The other order: the $1 comes first, so nothing it copies can
	 * hold a '{'. */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "chain.json", "[{\"scriptName\": "
	    "\"b\", \"placement\": [2], \"promptOnly\": true, "
	    "\"findRegex\": \"/(.)abc/\", \"replaceString\": \"$1\"}, "
	    "{\"scriptName\": \"a\", \"placement\": [2], \"promptOnly\": "
	    "true, \"findRegex\": \"/w/\", \"replaceString\": "
	    "\"{{abc}}\"}]"));
	CHECK(regex_set_pure(&set, AI, P, "w", 1, fixed, NULL));
	regex_set_free(&set);
	/* No script at all: anything is pure, braces too. */
	regex_set_init(&set);
	CHECK(regex_set_pure(&set, AI, P, "{{x}}", 5, fixed, NULL));
	regex_set_free(&set);
	/* The answer is kept per script: fixed() runs once for many
	 * texts. */
	regex_set_init(&set);
	CHECK(load(&set, REGEX_GLOBAL, "pure.json", "{\"scriptName\": \"t\","
	    " \"placement\": [2], \"promptOnly\": true, \"findRegex\": "
	    "\"/a/\", \"replaceString\": \"{{char}}\"}"));
	fixed_calls = 0;
	CHECK(regex_set_pure(&set, AI, P, "a", 1, fixed, NULL));
	CHECK(regex_set_pure(&set, AI, P, "b", 1, fixed, NULL));
	CHECK(!regex_set_pure(&set, AI, P, "{", 1, fixed, NULL));
	CHECK(fixed_calls == 1);
	regex_set_free(&set);
}

int
main(void)
{
	progname = "test_regex";
	run_init(&run);
	test_selection();
	test_scope_order();
	test_replace();
	test_errors();
	test_samples();
	test_node_scripts();
	test_pure();
	test_speed();
	run_free(&run);
	free(err);
	free(res);
	return check_done("regex");
}
