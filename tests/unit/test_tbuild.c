/*
 * The SillyTavern assembly through its seams: a fake world-info scan
 * gives one text per position, a fake regex marks the depth it was
 * called with, a fake counter counts messages; the test checks where
 * each lands and what the scan was given.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "prompt/chat.h"
#include "tavern/seam.h"
#include "tavern/tbuild.h"
#include "tavern/titem.h"
#include "check.h"

static const struct tavern_wi_scan *seen;
static size_t seen_n;
static char seen_newest[64];
static bool seen_an;

static bool
fake_wi(void *ctx, struct run *run, const struct tavern_wi_scan *in,
    struct tavern_wi_result *out)
{
	static const char *top[] = { "{{user}}: Top?\n{{char}}: Top!" };
	static const char *bottom[] = { "{{user}}: Bottom?\n{{char}}: Bottom!" };
	static struct tavern_wi_depth depth[] = {
		{ 0, 1, "[WI@0 user]" },
		{ 1, 0, "[WI@1 system]" },
	};
	static struct tavern_wi_outlet outlets[] = { { "lore", "[outlet]" } };

	seen = in;
	seen_n = in->nmsgs;
	snprintf(seen_newest, sizeof(seen_newest), "%s: %s",
	    in->msgs[0].name, in->msgs[0].text);
	seen_an = in->an_fires;
	out->before = "[before]";
	out->after = "[after]";
	out->an_top = "[AN top]";
	out->an_bottom = "[AN bottom]";
	out->em_top = top;
	out->nem_top = 1;
	out->em_bottom = bottom;
	out->nem_bottom = 1;
	out->depth = depth;
	out->ndepth = 2;
	out->outlets = outlets;
	out->noutlets = 1;
	return true;
}

static int loads;
static bool load_preset_allowed = true, load_scoped_allowed = true;

static bool
fake_load(void *ctx, struct run *run, const struct tavern_regex_scope *sc)
{
	loads++;
	load_preset_allowed = sc->preset_allowed;
	load_scoped_allowed = sc->scoped_allowed;
	return sc->macros != NULL;
}

static const char *
fake_regex(void *ctx, struct run *run, enum tavern_regex_place place,
    bool is_prompt, int depth, const char *text)
{
	if (!is_prompt || depth == TAVERN_NO_DEPTH)
		return text;
	return arena_printf(&run->arena, "%s <d%d>", text, depth);
}

static size_t
one_per_message(void *ctx, const char *role, const char *name,
    const char *text, size_t len)
{
	return 1;
}

int
main(void)
{
	static const char *const want[][3] = {
		{ "system", NULL, "Main. [outlet]" },
		{ "system", NULL, "[before]" },
		{ "system", NULL, "Mira keeps the lighthouse." },
		{ "system", NULL, "[after]" },
		{ "system", NULL, "[Ex]" },
		{ "system", "example_user", "Top?" },
		{ "system", "example_assistant", "Top!" },
		{ "system", NULL, "[Ex]" },
		{ "system", "example_user", "Hi" },
		{ "system", "example_assistant", "Hello." },
		{ "system", NULL, "[Ex]" },
		{ "system", "example_user", "Bottom?" },
		{ "system", "example_assistant", "Bottom!" },
		{ "system", NULL, "[New]" },
		{ "assistant", NULL, "Welcome. <d3>" },
		{ "user", NULL, "Is the lamp lit? <d2>" },
		{ "assistant", NULL, "Always. <d1>" },
		{ "system", NULL, "[AN top]\n[AN]\n[AN bottom]\n[WI@1 system]" },
		{ "user", NULL, "Hello <d0>" },
		{ "user", NULL, "[WI@0 user]" },
	};
	struct tavern_input in;
	struct run run;
	struct chat c;
	size_t i;

	run_init(&run);
	memset(&in, 0, sizeof(in));
	memset(&c, 0, sizeof(c));
	in.card = "unit/tavern/card.json";
	in.preset = "unit/tavern/preset.json";
	in.settings = "unit/tavern/settings.json";
	in.chat = "unit/tavern/chat.jsonl";
	in.user = "Hello";
	in.now = "2026-11-23T09:30:00Z";
	in.seams.wi.scan = fake_wi;
	in.seams.regex.apply = fake_regex;
	in.seams.regex.load = fake_load;
	in.seams.tokens.count = one_per_message;
	CHECK(tavern_build(&run, &in, &c));
	CHECK_INT(run.diag.errors, 0);

	/* The regex seam was loaded once, nothing allowed by settings. */
	CHECK_INT(loads, 1);
	CHECK(!load_preset_allowed);
	CHECK(!load_scoped_allowed);

	/* What the scan saw: the chat newest first, the message typed
	 * included, after the prompt-time regex. */
	CHECK(seen != NULL);
	CHECK_INT(seen_n, 4);
	CHECK_STR(seen_newest, "Sam: Hello <d0>");
	CHECK(seen_an);

	CHECK_INT(c.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < c.n && i < sizeof(want) / sizeof(want[0]); i++) {
		const struct message *m = &c.msgs[i];

		CHECK_STR(names_role(m->role), want[i][0]);
		if (want[i][1])
			CHECK_STR(m->name, want[i][1]);
		else
			CHECK(m->name == NULL);
		CHECK_STR(m->content, want[i][2]);
	}
	/* The items: every message has its own, each knows its message;
	 * the message typed went raw -> regex-post, the stages between
	 * sharing the raw text; the Author's Note and the world info at
	 * depth 1 share one message. */
	CHECK(c.dialect == DIALECT_TAVERN && c.items != NULL);
	for (i = 0; c.items && i < c.n; i++) {
		uint32_t j;

		CHECK(c.items->msg_nitems[i] >= 1);
		for (j = 0; j < c.items->msg_nitems[i]; j++)
			CHECK_INT(c.items->items[c.items->msg_items[i][j]]
			    .message, (long)i);
	}
	if (c.items && c.n == sizeof(want) / sizeof(want[0])) {
		const struct item *it =
		    &c.items->items[c.items->msg_items[18][0]];

		CHECK_STR(it->id, "chat#3");
		CHECK_STR(it->text[ITEM_STAGE_RAW], "Hello");
		CHECK(it->text[ITEM_STAGE_REGEX_PRE] ==
		    it->text[ITEM_STAGE_RAW]);
		CHECK(it->text[ITEM_STAGE_MACROS] ==
		    it->text[ITEM_STAGE_RAW]);
		CHECK_STR(it->text[ITEM_STAGE_REGEX_POST], "Hello <d0>");
		CHECK(it->reason == ENTRY_ACTIVE);
		CHECK_INT(c.items->msg_nitems[17], 2);
		CHECK_STR(c.items->items[c.items->msg_items[17][0]].id,
		    "authorsNote");
	}
	run_free(&run);
	return check_done("test_tbuild");
}
