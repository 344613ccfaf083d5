/*
 * The schema checker (profile/schema.c) on a table of its own: types,
 * choices and flags, unknown keys with their suggestion, required and
 * exclusive keys, unique entries, nested tables and arrays of tables;
 * every message at its line and column; then the lookups (field, sub,
 * entry id, anchors, type names) and the dropping of a base's exclusive
 * side before a merge.
 */
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "check.h"
#include "data/toml.h"
#include "data/tree.h"
#include "diag/run.h"
#include "profile/schema.h"

static const char *const colours[] = { "red", "green", NULL };
static const char *const item_inline[] = { "content", NULL };
static const char *const item_need[] = { "file", "content", NULL };

static const struct schema_field item_fields[] = {
	{ "name", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "file", SCHEMA_STRING, SCHEMA_NONEMPTY, NULL, NULL },
	{ "content", SCHEMA_STRING, 0, NULL, NULL },
	{ "priority", SCHEMA_PRIORITY, 0, NULL, NULL },
	{ "after", SCHEMA_STRING, SCHEMA_ANCHOR, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};
static const struct schema_group item_groups[] = {
	{ "file", item_inline, MSG_BOTH_GIVEN, item_need,
	  "'file' or 'content'" },
	{ NULL, NULL, 0, NULL, NULL },
};
static const struct schema item = { "an item", item_fields, item_groups,
	"name", "item" };

static const struct schema_field box_fields[] = {
	{ "colour", SCHEMA_STRING, 0, NULL, colours },
	{ "tag", SCHEMA_STRING, SCHEMA_TAG, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};
static const struct schema box = { "the box", box_fields, NULL, NULL,
	NULL };

static const struct schema_field top_fields[] = {
	{ "title", SCHEMA_STRING, SCHEMA_REQUIRED, NULL, NULL },
	{ "count", SCHEMA_INT, 0, NULL, NULL },
	{ "on", SCHEMA_BOOL, 0, NULL, NULL },
	{ "box", SCHEMA_TABLE, 0, &box, NULL },
	{ "item", SCHEMA_TABLES, 0, &item, NULL },
	{ "vars", SCHEMA_SCALARS, 0, NULL, NULL },
	{ "worlds", SCHEMA_STRINGS, 0, NULL, NULL },
	{ NULL, 0, 0, NULL, NULL },
};
static const struct schema top = { "the test file", top_fields, NULL, NULL,
	NULL };

static struct run run;
static struct buf msgs;

static struct source *
mem(const char *name, const char *text)
{
	return run_source_mem(&run, name, text, strlen(text));
}

/* Check text (a TOML file) against top: the checker's answer, with its
 * messages in msgs. */
static bool
check(const char *text, struct node **out)
{
	struct source *src = mem("t.toml", text);
	struct node *root;

	buf_reset(&msgs);
	run.diag.errors = 0;
	if (!toml_parse(&run, src, &root))
		return false;
	if (out)
		*out = root;
	return schema_check(&run, root, &top, "");
}

static bool
said(const char *s)
{
	return msgs.data && strstr(msgs.data, s) != NULL;
}

int
main(void)
{
	struct node *root, *base, *over;
	const char *id;
	size_t len;
	bool before;

	run_init(&run);
	run.diag.to = &msgs;

	/* A good file passes and says nothing. */
	CHECK(check("title = \"t\"\ncount = 3\non = true\n"
	    "vars = { a = 1, b = \"x\" }\nworlds = [\"w.json\"]\n"
	    "[box]\ncolour = \"red\"\ntag = \"ok\"\n"
	    "[[item]]\nname = \"a\"\nfile = \"a.md\"\npriority = \"memories\"\n"
	    "[[item]]\nname = \"b\"\ncontent = \"B\"\nafter = \"after:a\"\n",
	    NULL));
	CHECK_INT(run.diag.errors, 0);
	CHECK_INT(msgs.len, 0);

	/* An unknown key, with the nearest field suggested, at its line. */
	CHECK(!check("title = \"t\"\ncuont = 3\n", NULL));
	CHECK(said("t.toml:2:1: error: unknown key 'cuont'; did you mean "
	    "'count'?"));

	/* Wrong types, each reported (all errors of the stage). */
	CHECK(!check("title = 1\ncount = \"3\"\non = \"yes\"\n", NULL));
	CHECK_INT(run.diag.errors, 3);
	CHECK(said("t.toml:1:9: error: 'title' must be a string"));
	CHECK(said("t.toml:2:9: error: 'count' must be an integer"));
	CHECK(said("t.toml:3:6: error: 'on' must be a boolean"));

	/* Choices and the one-line tag rule, inside a sub-table (the path
	 * in the message is dotted). */
	CHECK(!check("title = \"t\"\n[box]\ncolour = \"blue\"\n", NULL));
	CHECK(said("'box.colour' must be"));
	CHECK(said("'blue'"));
	CHECK(!check("title = \"t\"\n[box]\ntag = \"a [b]\"\n", NULL));
	CHECK_INT(run.diag.errors, 1);

	/* A required key missing; a non-empty one empty. */
	CHECK(!check("count = 1\n", NULL));
	CHECK(said("needs 'title'"));
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\nfile = \"\"\n",
	    NULL));
	CHECK_INT(run.diag.errors, 1);

	/* Exclusive keys given together; neither side given. */
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\nfile = \"a\"\n"
	    "content = \"A\"\n", NULL));
	CHECK_INT(run.diag.errors, 1);
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\n", NULL));
	CHECK(said("needs 'file' or 'content'"));

	/* Two entries of one name; a bad anchor; a bad priority. */
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\ncontent = \"1\"\n"
	    "[[item]]\nname = \"a\"\ncontent = \"2\"\n", NULL));
	CHECK(said("t.toml:6:"));
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\ncontent = \"1\"\n"
	    "after = \"behind:x\"\n", NULL));
	CHECK_INT(run.diag.errors, 1);
	CHECK(!check("title = \"t\"\n[[item]]\nname = \"a\"\ncontent = \"1\"\n"
	    "priority = \"urgent\"\n", NULL));
	CHECK_INT(run.diag.errors, 1);

	/* Tables where scalars go, and the other way round. */
	CHECK(!check("title = \"t\"\nvars = { a = { b = 1 } }\n", NULL));
	CHECK(!check("title = \"t\"\nworlds = [1]\n", NULL));
	CHECK(!check("title = \"t\"\nbox = 1\n", NULL));
	CHECK(!check("title = \"t\"\nitem = 1\n", NULL));

	/* Lookups. */
	CHECK(schema_field(&top, "count", 5) != NULL);
	CHECK(schema_field(&top, "counts", 6) == NULL);
	CHECK(schema_field(&top, "count", 3) == NULL);
	CHECK(schema_sub(&top, "box", 3) == &box);
	CHECK(schema_sub(&top, "item", 4) == &item);
	CHECK(schema_sub(&top, "title", 5) == NULL);
	CHECK_STR(schema_suggest(&run.arena, "titel", &top),
	    "; did you mean 'title'?");
	CHECK_STR(schema_suggest(&run.arena, "zzzzzz", &top), "");
	CHECK_STR(schema_type_text(SCHEMA_INT), "an integer");
	CHECK_STR(schema_type_text(SCHEMA_BOOL), "a boolean");

	/* Anchors. */
	CHECK(schema_anchor_parse("before:intro", &before, &id, &len));
	CHECK(before);
	CHECK_INT(len, 5);
	CHECK(memcmp(id, "intro", 5) == 0);
	CHECK(schema_anchor_parse("after:x", &before, &id, &len));
	CHECK(!before);
	CHECK(!schema_anchor_parse("after:", &before, &id, &len));
	CHECK(!schema_anchor_parse("intro", &before, &id, &len));

	/* What an entry is known by: name, else key, else its file's
	 * stem. */
	CHECK(check("title = \"t\"\n[[item]]\nname = \"n\"\ncontent = \"1\"\n",
	    &root));
	id = schema_entry_id(tree_get(root, "item")->u.array.items[0], &len);
	CHECK(id && len == 1 && id[0] == 'n');
	CHECK(toml_parse(&run, mem("e.toml",
	    "[[s]]\nfile = \"skills/diary.md\"\n[[s]]\nkey = \"k\"\n"
	    "[[s]]\nname = 1\n"), &root));
	id = schema_entry_id(tree_get(root, "s")->u.array.items[0], &len);
	CHECK(id && len == 5 && memcmp(id, "diary", 5) == 0);
	id = schema_entry_id(tree_get(root, "s")->u.array.items[1], &len);
	CHECK(id && len == 1 && id[0] == 'k');
	CHECK(schema_entry_id(tree_get(root, "s")->u.array.items[2],
	    &len) == NULL);

	/* Merging content over a base's file drops the file. */
	CHECK(toml_parse(&run, mem("b.toml",
	    "name = \"a\"\nfile = \"a.md\"\npriority = 5\n"), &base));
	CHECK(toml_parse(&run, mem("o.toml", "content = \"A\"\n"), &over));
	schema_drop_excluded(&run.arena, base, over, &item);
	CHECK(tree_get(base, "file") == NULL);
	CHECK(tree_get(base, "priority") != NULL);

	buf_free(&msgs);
	run_free(&run);
	return check_done("schema");
}
