/*
 * schema: what a JSON/TOML/YAML asset may hold, as field tables, and the
 * one checker that holds a config tree against them.  A struct schema
 * lists a table's keys (type, allowed strings, required), its groups of
 * mutually exclusive keys, and, for the entries of an array of tables,
 * the key whose values must differ.  schema_check() reports every unknown
 * key (with a suggestion), wrong type and bad choice at its span; when
 * the shapes are right it then reports missing required keys, exclusive
 * keys given together and duplicate entries.  The profile's tables are
 * schema_profile; other assets pass their own.
 *
 * Ownership: tables are static and const; the checker only reads the
 * tree and allocates its messages' text in the run's arena.
 */
#ifndef SCHEMA_H
#define SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"

struct arena;
struct node;
struct run;

enum schema_type {
	SCHEMA_STRING,
	SCHEMA_BOOL,
	SCHEMA_INT,
	SCHEMA_PRIORITY,        /* an integer or a priority name */
	SCHEMA_TABLE,           /* checked against sub */
	SCHEMA_TABLES,          /* an array of tables, each against sub */
	SCHEMA_ANY,             /* a free-form table (output.params) */
	SCHEMA_SCALARS,         /* a table of scalars (vars) */
	SCHEMA_STRINGS,         /* an array of strings (worlds, plugins) */
	SCHEMA_NAMED,           /* a table of tables, each against sub
	                         * (llm_profiles.NAME) */
	SCHEMA_COMMANDS,        /* a string, or an array of strings, none
	                         * empty ([hooks]) */
};

enum schema_flag {
	SCHEMA_REQUIRED = 1 << 0,       /* present, and not "" */
	SCHEMA_NONEMPTY = 1 << 1,       /* if present, not "" */
	SCHEMA_TAG = 1 << 2,            /* one line, no '[' or ']' */
	SCHEMA_ANCHOR = 1 << 3,         /* "before:ID" or "after:ID" */
};

struct schema;

struct schema_field {
	const char *name;               /* NULL ends a table */
	enum schema_type type;
	unsigned flags;                 /* enum schema_flag */
	const struct schema *sub;       /* SCHEMA_TABLE, SCHEMA_TABLES */
	const char *const *choices;     /* strings: the allowed values */
};

/*
 * Mutually exclusive keys: key, or any of others, not both.  Given
 * together, message both is reported at key's value with the arguments
 * (what, others[0], key).  With need, one of the keys in need must be
 * given (else MSG_NEEDS_ONE_OF with need_text).  When a profile extends
 * another, giving one side drops the base's other side.
 */
struct schema_group {
	const char *key;                /* NULL ends the groups */
	const char *const *others;
	enum diag_msg both;
	const char *const *need;        /* NULL: neither side is fine */
	const char *need_text;
};

struct schema {
	const char *what;               /* "an injection", for messages */
	const struct schema_field *fields;
	const struct schema_group *groups;      /* may be NULL */
	/* Entries of an array of tables: no two share a value of unique. */
	const char *unique;
	const char *unique_what;        /* "skill" */
};

/* The profile: the top table and its sections. */
extern const struct schema schema_profile;
/* A plugin's plugin.toml / plugin.yaml: its tools and skills. */
extern const struct schema schema_plugin;
/* Its choices that no other module names: skills' modes and injections'
 * roles, NULL-terminated and indexed like enum skill_mode / enum role. */
extern const char *const schema_skill_modes[];
extern const char *const schema_inject_roles[];
extern const char *const schema_developer_roles[];
/* [agent] kind and lang (layers/agent.h). */
extern const char *const schema_agent_kinds[];
extern const char *const schema_agent_langs[];
/* cut = "drop", "head", "tail" (enum cut_how). */
extern const char *const schema_cut_modes[];
/* [output] cache: "off", "auto". */
extern const char *const schema_cache_modes[];

/* An injection's anchor "before:ID" or "after:ID": true with *before
 * and ID (in s) at *id, *idlen; false when s has another shape. */
bool schema_anchor_parse(const char *s, bool *before, const char **id,
    size_t *idlen);

/*
 * Check table t (its path in messages is prefix, "" at the top) against
 * s.  Reports every error; returns false if there was any.
 */
bool schema_check(struct run *run, const struct node *t,
    const struct schema *s, const char *prefix);

/* The field of s named key[0..len), or NULL. */
const struct schema_field *schema_field(const struct schema *s,
    const char *key, size_t len);
/* The table the value of key is checked against, or NULL. */
const struct schema *schema_sub(const struct schema *s, const char *key,
    size_t len);
/* "; did you mean 'x'?" for the nearest field of s, or "" (in a). */
const char *schema_suggest(struct arena *a, const char *key,
    const struct schema *s);
/* "a string", "an integer or a priority name": for messages. */
const char *schema_type_text(enum schema_type t);

/*
 * What an entry of an array of tables is known by (extends merging,
 * --set, messages): its name, else its key, else the stem of its file
 * ("skills/diary.md" is "diary").  Returns a pointer into the entry's
 * own strings and its length in *len, or NULL.
 */
const char *schema_entry_id(const struct node *e, size_t *len);

/*
 * over is about to be merged into base (both tables of schema s): drop
 * from base each member of an exclusive group whose other side over
 * gives, so a child's `content` replaces its base's `file`.
 */
void schema_drop_excluded(struct arena *a, struct node *base,
    const struct node *over, const struct schema *s);

#endif
