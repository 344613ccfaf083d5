/* wi: key matching and the loop, on worlds built in memory. */
#include <string.h>

#include "check.h"
#include "diag/run.h"
#include "world/wi.h"
#include "world/world.h"

static struct run run;

static const char *upper(void *ctx, const char *t, const struct wi_book *book,
    const struct world_entry *e);
static bool use_macros;

/* Does an entry with this one key fire on this one message? */
static bool
fires(const char *key, const char *text, int cs, int whole)
{
	struct world w = {0};
	struct world_entry e;
	struct wi_book book = { &w, WI_SOURCE_GLOBAL };
	struct wi_message m = { "U", text, true, false };
	struct wi_settings s;
	struct wi_input in;
	struct wi_result r;
	const char *keys[1] = { key };

	world_entry_default(&e);
	e.key.v = keys;
	e.key.n = 1;
	e.case_sensitive = cs;
	e.match_whole_words = whole;
	e.content = "x";
	w.name = "w";
	w.entries = &e;
	w.n = 1;
	wi_settings_default(&s);
	s.include_names = false;
	memset(&in, 0, sizeof(in));
	in.books = &book;
	in.nbooks = 1;
	in.messages = &m;
	in.nmessages = 1;
	in.settings = &s;
	in.max_context = 1000;
	if (use_macros)
		in.substitute = upper;
	wi_run(&run, &in, &r);
	return r.nactivated == 1;
}

static const char *
upper(void *ctx, const char *t, const struct wi_book *book,
    const struct world_entry *e)
{
	(void)ctx;
	(void)book;
	(void)e;
	return strcmp(t, "{{char}}") == 0 ? "Sera" : t;
}

int
main(void)
{
	run_init(&run);
	/* substring vs whole word */
	CHECK(fires("pine", "pineapple", 0, 0));
	CHECK(!fires("pine", "pineapple", 0, 1));
	CHECK(fires("pine", "a pine.", 0, 1));
	CHECK(fires("pine", "pine", 0, 1));
	CHECK(fires("old road", "the old roads", 0, 1));
	/* case */
	CHECK(fires("FOX", "a fox", 0, 1));
	CHECK(!fires("FOX", "a fox", 1, 1));
	CHECK(fires("\xc3\x89T\xc3\x89", "un \xc3\xa9t\xc3\xa9 chaud", 0, 1));
	/* JS \W: every non-ASCII character is a boundary */
	CHECK(fires("\xe6\x9c\x88", "\xe7\x9c\x8b\xe6\x9c\x88\xe5\x85\x89", 0,
	    1));
	CHECK(!fires("caf", "caf\xc3\xa9", 0, 0) == false);
	CHECK(fires("caf", "caf\xc3\xa9", 0, 1));
	CHECK(!fires("ab_c", "xab_cd", 0, 1));
	/* punctuation keys */
	CHECK(fires("dr.", "ask dr. who", 0, 1));
	CHECK(!fires("dr.", "ask dr.who", 0, 1));
	/* regex keys and their fallbacks */
	CHECK(fires("/fo+x/i", "a FOOX", 0, 1));
	CHECK(!fires("/fo+x/", "a FOOX", 0, 1));
	CHECK(fires("/^\\x01a/", "a b", 0, 1));
	CHECK(fires("/[x/", "see /[x/ here", 0, 1));
	CHECK(fires("/a/b/", "x /a/b/ y", 0, 0));
	CHECK(!fires("/(a+)+$/", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!", 0, 1));
	CHECK(fires("/[^]/", "q", 0, 1));
	CHECK(!fires("/[]/", "q", 0, 1));
	CHECK(fires("/\\u0041/", "A", 0, 1));
	/* a regex key's literal prefix skips the search ahead, and finds
	 * what PCRE2 would: digits after it, any case, U+017F and U+212A
	 * folding to s and k */
	CHECK(fires("/soft\\d+/", "soft, softer, soft12", 0, 1));
	CHECK(!fires("/soft\\d+/", "soft, softer, soft x1", 0, 1));
	CHECK(fires("/\\bRune8(s|es)?\\b/i", "rune81 RUNE8es", 0, 1));
	CHECK(!fires("/\\bRune8(s|es)?\\b/i", "rune81 rune8ess", 0, 1));
	CHECK(fires("/soft/i", "\xc5\xbfoft", 0, 1));
	CHECK(fires("/kin/i", "\xe2\x84\xaain", 0, 1));
	CHECK(!fires("/soft/", "\xc5\xbfoft", 0, 1));
	/* empty: never; whitespace only: always, as SillyTavern looks for
	 * the trimmed "" in the text */
	CHECK(!fires("", "tea", 0, 0));
	CHECK(fires("   ", "tea", 0, 0));
	CHECK(fires("   ", "tea", 1, 1));
	/* keys go through the macro callback before matching */
	CHECK(!fires("{{char}}", "hi Sera", 0, 1));
	use_macros = true;
	CHECK(fires("{{char}}", "hi Sera", 0, 1));
	use_macros = false;
	CHECK(wi_is_js_space(0x3000));
	CHECK(!wi_is_word_byte(0xe6));
	run_free(&run);
	return check_done("wi");
}
