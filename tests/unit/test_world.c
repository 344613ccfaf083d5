/* world: reading world files and character_books, defaults, the book
 * mapping (extensions win), and the round trip. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "check.h"
#include "data/json.h"
#include "diag/run.h"
#include "diag/source.h"
#include "world/world.h"
#include "data/tree.h"

static struct run run;

static bool
readw(const char *text, struct world *w)
{
	struct source *src = run_source_mem(&run, "t.json", text,
	    strlen(text));
	int saved = dup(2);
	FILE *null = fopen("/dev/null", "w");
	bool ok;

	fflush(stderr);
	dup2(fileno(null), 2);
	ok = world_read(&run, src, NULL, w);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(null);
	return ok;
}

int
main(void)
{
	struct world w, w2;
	struct buf b = BUF_INIT;
	const struct world_entry *e;

	run_init(&run);
	CHECK(readw("{\"entries\": {\"7\": {\"key\": [\"a\", \"b\"]}}}", &w));
	CHECK_INT(w.n, 1);
	e = &w.entries[0];
	CHECK_INT(e->uid, 7);
	CHECK_INT(e->key.n, 2);
	CHECK_STR(e->key.v[1], "b");
	CHECK(e->selective);
	CHECK(e->use_probability);
	CHECK_INT(e->order, 100);
	CHECK_INT(e->depth, 4);
	CHECK_INT(e->position, 0);
	CHECK_INT(e->scan_depth, WORLD_UNSET);
	CHECK_INT(e->case_sensitive, WORLD_UNSET);
	CHECK(e->probability == 100);
	CHECK(e->group_weight == 100);

	CHECK(readw("{\"entries\": {\"0\": {\"key\": [], \"role\": null, "
	    "\"delayUntilRecursion\": true, \"scanDepth\": 3, "
	    "\"caseSensitive\": true, \"triggers\": [\"swipe\"], "
	    "\"characterFilter\": {\"isExclude\": true, \"names\": [\"x\"]},"
	    " \"matchScenario\": true}}}", &w));
	e = &w.entries[0];
	CHECK_INT(e->role, 0);
	CHECK_INT(e->delay_until_recursion, 1);
	CHECK_INT(e->scan_depth, 3);
	CHECK_INT(e->case_sensitive, 1);
	CHECK_INT(e->triggers, 1u << WORLD_TRIGGER_SWIPE);
	CHECK(e->filter_exclude);
	CHECK_STR(e->filter_names.v[0], "x");
	CHECK_INT(e->match, 1u << WORLD_MATCH_SCENARIO);

	/* A book: importer defaults, extensions.* wins, no position means
	 * after_char, top-level case_sensitive ignored. */
	CHECK(readw("{\"name\": \"B\", \"entries\": [{\"keys\": [\"k\"], "
	    "\"case_sensitive\": true, \"enabled\": false, "
	    "\"insertion_order\": 5}, {\"id\": 9, \"keys\": [], "
	    "\"position\": \"before_char\", \"extensions\": {\"position\": 4,"
	    " \"depth\": 1, \"role\": 2, \"useProbability\": false, "
	    "\"case_sensitive\": false, \"group_weight\": 7}}]}", &w));
	CHECK_STR(w.name, "B");
	CHECK(w.from_book);
	CHECK_INT(w.n, 2);
	e = &w.entries[0];
	CHECK_INT(e->uid, 0);
	CHECK(!e->selective);
	CHECK(e->disable);
	CHECK_INT(e->order, 5);
	CHECK_INT(e->position, 1);
	CHECK_INT(e->case_sensitive, WORLD_UNSET);
	e = &w.entries[1];
	CHECK_INT(e->uid, 9);
	CHECK_INT(e->position, 4);
	CHECK_INT(e->depth, 1);
	CHECK_INT(e->role, 2);
	CHECK(!e->use_probability);
	CHECK_INT(e->case_sensitive, 0);
	CHECK(e->group_weight == 7);

	/* A card holding data.character_book. */
	CHECK(readw("{\"spec\": \"chara_card_v2\", \"data\": {\"character_book\":"
	    " {\"entries\": [{\"keys\": [\"x\"]}]}}}", &w));
	CHECK_INT(w.n, 1);

	/* Round trip: world -> book -> world keeps the fields. */
	CHECK(readw("{\"entries\": {\"3\": {\"key\": [\"a\"], \"keysecondary\":"
	    " [\"s\"], \"position\": 4, \"depth\": 2, \"role\": 1, "
	    "\"order\": 7, \"sticky\": 2, \"group\": \"g\", "
	    "\"selectiveLogic\": 3, \"probability\": 40}}}", &w));
	json_write(&b, world_to_book(&run.arena, &w), -1);
	CHECK(readw(b.data, &w2));
	e = &w2.entries[0];
	CHECK_INT(e->uid, 3);
	CHECK_INT(e->position, 4);
	CHECK_INT(e->depth, 2);
	CHECK_INT(e->role, 1);
	CHECK_INT(e->order, 7);
	CHECK_INT(e->sticky, 2);
	CHECK_STR(e->group, "g");
	CHECK_INT(e->selective_logic, 3);
	CHECK(e->probability == 40);
	CHECK(e->selective);
	buf_reset(&b);
	json_write(&b, world_to_file(&run.arena, &w2), -1);
	CHECK(readw(b.data, &w));
	CHECK_INT(w.entries[0].depth, 2);
	CHECK_STR(w.entries[0].keysecondary.v[0], "s");

	/* A key that is not an array: no keys, with a warning (SillyTavern
	 * skips such an entry).  Refused: not an object; no entries. */
	CHECK(readw("{\"entries\": {\"0\": {\"key\": \"a\"}}}", &w));
	CHECK_INT(w.entries[0].key.n, 0);
	CHECK(!readw("[1]", &w));
	CHECK(!readw("{\"x\": 1}", &w));
	/* Coerced: order as a string; a flag that is not a boolean is
	 * read as JavaScript reads it (1 is true), with a warning; disable
	 * is true only when == true holds ("1" yes, "true" no). */
	CHECK(readw("{\"entries\": {\"0\": {\"order\": \"12\", "
	    "\"constant\": 1, \"selective\": null, "
	    "\"disable\": \"true\"}, \"1\": {\"disable\": \"1\", "
	    "\"constant\": \"\"}}}", &w));
	CHECK_INT(w.entries[0].order, 12);
	CHECK(w.entries[0].constant);
	CHECK(!w.entries[0].selective);
	CHECK(!w.entries[0].disable);
	CHECK(w.entries[1].disable);
	CHECK(!w.entries[1].constant);

	buf_free(&b);
	run_free(&run);
	return check_done("world");
}
