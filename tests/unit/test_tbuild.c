/*
 * The SillyTavern assembly with its world info and regex scripts: a
 * world book (unit/tavern/world.json) gives one constant entry per
 * position, regex scripts (unit/tavern/regex.json) mark the depth a
 * prompt-time call had; the test checks where each lands and what the
 * scan saw.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "data/tree.h"
#include "diag/run.h"
#include "prompt/chat.h"
#include "tavern/tbuild.h"
#include "tavern/tbuild_int.h"
#include "tavern/titem.h"
#include "world/wi.h"
#include "check.h"

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
	static const char *const worlds[] = { "unit/tavern/world.json" };
	static const char *const regex[] = { "unit/tavern/regex.json" };
	struct tavern_input in;
	struct tavern_files f;
	struct run run;
	struct chat c;
	const struct node *meta;
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
	in.worlds = worlds;
	in.nworlds = 1;
	in.worlds_active = true;
	in.regex = regex;
	in.nregex = 1;
	CHECK(tavern_read(&run, &in, &f) && tavern_build(&run, &in, &f, &c));
	CHECK_INT(run.diag.errors, 0);

	/* The scripts: the --regex file's four, nothing else in scope. */
	meta = c.merged_regex ? tree_get(c.merged_regex, "meta") : NULL;
	CHECK(meta && tree_get(meta, "total")->u.i == 4);

	/* What the scan saw: the chat, the message typed included; every
	 * entry activated. */
	CHECK(c.world_info != NULL);
	if (c.world_info) {
		CHECK_INT(c.world_info->chat_length, 4);
		CHECK_INT(c.world_info->nactivated, 9);
	}

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
	/* The dialect's plan: each pass records the item stage it is
	 * named for. */
	CHECK_STR(item_stage_name(tb_pass_regex_pre.stage),
	    tb_pass_regex_pre.name);
	CHECK_STR(item_stage_name(tb_pass_macros.stage), tb_pass_macros.name);
	CHECK_STR(item_stage_name(tb_pass_regex_post.stage),
	    tb_pass_regex_post.name);
	run_free(&run);
	return check_done("test_tbuild");
}
