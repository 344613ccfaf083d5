/*
 * strata's own entries in the SillyTavern assembly (tavern_input.entries):
 * a system entry right after main, one anchored before the character's
 * description, an in-chat one after SillyTavern's extension prompts of
 * its depth and role, a context block before the message typed, one the
 * stack left out, and an anchor that names no prompt.  A world book
 * (unit/tavern/world-own.json) adds an entry at depth 1.
 */
#include <stdio.h>
#include <string.h>

#include "base/arena.h"
#include "diag/run.h"
#include "prompt/chat.h"
#include "tavern/tbuild.h"
#include "tavern/titem.h"
#include "check.h"

/* One constant entry at depth 1, system. */
static const char *const worlds[] = { "unit/tavern/world-own.json" };

static void
setup(struct tavern_input *in, struct tavern_entry *e, size_t n)
{
	memset(in, 0, sizeof(*in));
	in->card = "unit/tavern/card.json";
	in->preset = "unit/tavern/preset.json";
	in->settings = "unit/tavern/settings.json";
	in->chat = "unit/tavern/chat.jsonl";
	in->user = "Hello";
	in->now = "2026-11-23T09:30:00Z";
	in->worlds = worlds;
	in->nworlds = 1;
	in->worlds_active = true;
	in->entries = e;
	in->nentries = n;
	in->joiner = "\n\n";
}

/* The index of the first message whose content is s, or -1. */
static long
find(const struct chat *c, const char *s)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->msgs[i].content, s) == 0)
			return (long)i;
	return -1;
}

static const struct item *
item(const struct chat *c, const char *id)
{
	size_t i;

	for (i = 0; c->items && i < c->items->n; i++)
		if (strcmp(c->items->items[i].id, id) == 0)
			return &c->items->items[i];
	return NULL;
}

int
main(void)
{
	struct tavern_entry e[6];
	struct tavern_input in;
	struct tavern_files f;
	const struct item *it;
	struct run run;
	struct chat c;
	long mainx, desc, own, anch, an, last;

	memset(e, 0, sizeof(e));
	e[0].key = "persona";
	e[0].text = "Be kind.";
	e[0].role = "system";
	e[1].key = "tools";
	e[1].text = "Tools here.";
	e[1].role = "system";
	e[2].key = "setting";
	e[2].text = "A harbor town.";
	e[2].role = "system";
	e[2].anchor = "charDescription";
	e[2].before = true;
	e[3].key = "reminder";
	e[3].text = "Be brief.";
	e[3].role = "system";
	e[3].place = TAVERN_PLACE_INCHAT;
	e[3].depth = 1;
	e[4].key = "context.memory";
	e[4].text = "[memory context]\nA boat.\n[/memory context]";
	e[4].role = "user";
	e[4].place = TAVERN_PLACE_USER;
	e[5].key = "gone";
	e[5].text = "Never sent.";
	e[5].role = "system";
	e[5].reason = ENTRY_DISABLED;

	run_init(&run);
	memset(&c, 0, sizeof(c));
	setup(&in, e, 6);
	CHECK(tavern_read(&run, &in, &f) && tavern_build(&run, &in, &f, &c));
	CHECK_INT(run.diag.errors, 0);

	/* System entries: one prompt right after main, joined; the anchored
	 * one right before the description. */
	mainx = find(&c, "Main. ");
	own = find(&c, "Be kind.\n\nTools here.");
	anch = find(&c, "A harbor town.");
	desc = find(&c, "Mira keeps the lighthouse.");
	CHECK(mainx >= 0);
	CHECK_INT(own, mainx + 1);
	CHECK(anch >= 0);
	CHECK_INT(desc, anch + 1);
	/* In-chat: after SillyTavern's extension prompts of that depth and
	 * role, joined with a newline. */
	an = find(&c, "[AN]\n[WI@1 system]\nBe brief.");
	CHECK(an >= 0);
	/* The context block before the message typed. */
	last = (long)c.n - 1;
	CHECK_STR(c.msgs[last].content,
	    "[memory context]\nA boat.\n[/memory context]\n\nHello");
	CHECK_INT(an, last - 1);

	it = item(&c, "persona");
	CHECK(it != NULL);
	if (it) {
		CHECK_STR(item_source_name(it->source), "profile");
		CHECK_INT(it->message, own);
		CHECK_STR(it->note, "after main");
	}
	it = item(&c, "tools");
	CHECK(it && it->sep && strcmp(it->sep, "\n\n") == 0);
	it = item(&c, "setting");
	CHECK(it && strcmp(it->note, "before charDescription") == 0);
	it = item(&c, "context.memory");
	CHECK(it && strcmp(it->place, "user-context") == 0 &&
	    it->message == last);
	it = item(&c, "gone");
	CHECK(it && it->reason == ENTRY_DISABLED &&
	    it->message < 0);
	run_free(&run);

	/* An anchor that names no prompt of prompt_order is an error. */
	run_init(&run);
	memset(&c, 0, sizeof(c));
	e[2].anchor = "charDescripton";
	setup(&in, e, 3);
	CHECK(tavern_read(&run, &in, &f) && !tavern_build(&run, &in, &f, &c));
	CHECK_INT(run.diag.errors, 1);
	run_free(&run);
	return check_done("test_tbuild_own");
}
