/*
 * settings: what a prompt needs from SillyTavern's settings.json -- the
 * persona (user_avatar selects power_user.personas and
 * persona_descriptions; the older power_user.persona_description* keys
 * are the fallback), the power_user flags, the Author's Note defaults
 * (extension_settings.note), global variables, and the parts handed on
 * untouched to world info and the regex scripts.  A missing settings file
 * gives SillyTavern's defaults.  Borrows the JSON tree (run's arena).
 */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct node;
struct run;

/* power_user.persona_description_position */
enum settings_persona_pos {
	PERSONA_IN_PROMPT = 0,
	PERSONA_AFTER_CHAR = 1,         /* deprecated: means 0 */
	PERSONA_TOP_AN = 2,
	PERSONA_BOTTOM_AN = 3,
	PERSONA_AT_DEPTH = 4,
	PERSONA_NONE = 9,
};

struct settings {
	const struct node *root;        /* NULL without a file */
	const char *user_name;          /* persona name ("User") */
	const char *persona;            /* persona description ("") */
	int64_t persona_position, persona_depth, persona_role;
	bool prefer_char_prompt, prefer_char_instructions;
	bool strip_examples, pin_examples, collapse_newlines;
	const char *user_prompt_bias;
	int64_t chat_truncation;        /* messages shown (100; 0: all) */
	/* power_user.reasoning: earlier replies' extra.reasoning in the
	 * prompt, as prefix reasoning suffix separator, for the newest
	 * max_additions of them. */
	bool reasoning_add;
	int64_t reasoning_max;
	const char *reasoning_prefix, *reasoning_suffix, *reasoning_sep;
	/* Author's Note defaults for a chat that sets none. */
	const char *note_default;
	int64_t note_position, note_interval, note_depth, note_role;
	const struct node *note_chara;  /* extension_settings.note.chara */
	bool note_wi_scan;              /* note.allowWIScan: the notes feed
	                                 * the world-info scan */
	const struct node *global_vars; /* extension_settings.variables.global */
	/* The Summarize extension (extension_settings.memory), unless
	 * disabledExtensions names "memory": its latest summary goes in as
	 * the extension prompt 1_memory through template. */
	bool memory_on, memory_scan;
	const char *memory_template;
	int64_t memory_position, memory_depth, memory_role;
	/* For world info and the regex scripts. */
	const struct node *world_info;  /* world_info_settings */
	const struct node *regex;       /* extension_settings.regex */
	const struct node *extensions;  /* extension_settings */
	const char *strict_placeholder; /* "[Start a new chat]" */
	/* power_user.custom_stopping_strings, a JSON array in a string:
	 * its non-empty strings (anything else reads as none, as in
	 * SillyTavern), and whether macros run on them. */
	const char **stops;
	size_t nstops;
	bool stops_macros;
	/* Where the texts above were read, for the build's items: the
	 * persona description, the Author's Note default, the user prompt
	 * bias; NULL when the file has none. */
	const struct node *persona_node, *note_node, *bias_node;
};

/* Read path (NULL: the defaults).  Errors are reported. */
bool settings_read(struct run *run, const char *path,
    const struct node *named, struct settings *s);

#endif
