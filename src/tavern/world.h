/*
 * world: SillyTavern lorebooks.  Reads a world file
 * ({"entries": {"<uid>": {...}}}), a V2/V3 `character_book` (alone or
 * inside a card's `data`) into one entry model that carries every field
 * SillyTavern 1.15 has, each with SillyTavern's default; and writes a
 * world back out as a world file or as a V2 character_book.
 *
 * Ownership: everything (entries, strings, arrays) lives in the run's
 * arena; the source text belongs to the run.  A struct world is a plain
 * value that points into both.
 *
 * Wrong types: SillyTavern refuses a file whose top level is not an
 * object with `entries` (object, or array for a book), or whose entry is
 * not an object, or whose `key`/`keysecondary` (book: `keys`/
 * `secondary_keys`) is not an array -- its code calls array methods on
 * them.  Those are errors here.  Any other field of the wrong type is a
 * warning and the field keeps its default; numbers given as strings
 * ("100") are accepted as numbers, as JavaScript's arithmetic would.
 * Unknown fields are ignored.
 */
#ifndef WORLD_H
#define WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"

struct arena;
struct node;
struct run;
struct source;

enum world_logic {
	WORLD_AND_ANY = 0,
	WORLD_NOT_ALL = 1,
	WORLD_NOT_ANY = 2,
	WORLD_AND_ALL = 3,
};

enum world_position {
	WORLD_BEFORE = 0,       /* before char defs */
	WORLD_AFTER = 1,        /* after char defs */
	WORLD_AN_TOP = 2,
	WORLD_AN_BOTTOM = 3,
	WORLD_DEPTH = 4,        /* @depth, with role */
	WORLD_EM_TOP = 5,
	WORLD_EM_BOTTOM = 6,
	WORLD_OUTLET = 7,
};

/* Generation types for `triggers` (bit 1 << value). */
enum world_trigger {
	WORLD_TRIGGER_NORMAL,
	WORLD_TRIGGER_CONTINUE,
	WORLD_TRIGGER_IMPERSONATE,
	WORLD_TRIGGER_SWIPE,
	WORLD_TRIGGER_REGENERATE,
	WORLD_TRIGGER_QUIET,
	WORLD_TRIGGER__COUNT,
};

/* match* opt-ins (bit 1 << value), in the order SillyTavern appends them. */
enum world_match {
	WORLD_MATCH_PERSONA,            /* matchPersonaDescription */
	WORLD_MATCH_DESCRIPTION,        /* matchCharacterDescription */
	WORLD_MATCH_PERSONALITY,        /* matchCharacterPersonality */
	WORLD_MATCH_DEPTH_PROMPT,       /* matchCharacterDepthPrompt */
	WORLD_MATCH_SCENARIO,           /* matchScenario */
	WORLD_MATCH_CREATOR_NOTES,      /* matchCreatorNotes */
	WORLD_MATCH__COUNT,
};

/* A tri-state for SillyTavern's `null` = "use the global setting". */
#define WORLD_UNSET (-1)

struct world_strings {
	const char **v;
	size_t n;
};

struct world_entry {
	int64_t uid;
	struct world_strings key, keysecondary;
	const char *comment, *content;
	bool constant, vectorized, selective, disable;
	bool ignore_budget, exclude_recursion, prevent_recursion;
	bool use_probability, group_override;
	int selective_logic;            /* enum world_logic */
	int64_t order;
	int position;                   /* enum world_position */
	int64_t depth;
	/* The depth a position-4 group this entry opens is injected at
	 * (SillyTavern groups by depth ?? 4 but keeps the raw value):
	 * depth; 0 for a null depth; WORLD_UNSET (never) for none. */
	int64_t depth_at;
	int role;                       /* 0 system, 1 user, 2 assistant */
	const char *outlet_name, *group, *automation_id;
	int64_t delay_until_recursion;  /* 0 none; true is 1 */
	double probability;
	double group_weight;
	int use_group_scoring;          /* WORLD_UNSET, 0, 1 */
	int case_sensitive;             /* WORLD_UNSET, 0, 1 */
	int match_whole_words;          /* WORLD_UNSET, 0, 1 */
	int64_t scan_depth;             /* WORLD_UNSET or >= 0 */
	int64_t sticky, cooldown, delay;        /* 0 = none */
	unsigned match;                 /* enum world_match bits */
	unsigned triggers;              /* enum world_trigger bits; 0 = all */
	bool filter_exclude;
	struct world_strings filter_names, filter_tags;
	int64_t display_index;          /* WORLD_UNSET if absent */
	const struct node *extensions;  /* book entry's extensions, or NULL */
	uint32_t src;                   /* where the entry was read */
	struct span span;
};

struct world {
	const char *name;               /* book name: file name sans .json */
	struct world_entry *entries;    /* in file order */
	size_t n;
	bool from_book;                 /* read from a character_book */
};

/* An entry with every field at SillyTavern's default for a new entry. */
void world_entry_default(struct world_entry *e);

/*
 * Read src as a world file, a character_book, or a card holding
 * data.character_book (a book's own name wins; else the file name without
 * its directory and ".json").  Reports at path:line:col and returns false on
 * errors; warnings do not fail.
 */
bool world_read(struct run *run, struct source *src, const char *name,
    struct world *out);
/* A world file's name as SillyTavern knows it: path without its
 * directory and ".json" (in a). */
const char *world_file_name(struct arena *a, const char *path);
/* The same, from a tree already parsed (a card's character_book). */
bool world_from_node(struct run *run, const struct node *root,
    const char *name, struct world *out);

/* Output trees (json_write): a world file, or a V2 character_book. */
struct node *world_to_file(struct arena *a, const struct world *w);
struct node *world_to_book(struct arena *a, const struct world *w);

const char *world_position_name(int position);
const char *world_logic_name(int logic);
const char *world_trigger_name(int trigger);
/* A match* field's key: the world file's spelling (matchScenario) or,
 * with book, the card's character_book one (match_scenario). */
const char *world_match_key(int match, bool book);

#endif
