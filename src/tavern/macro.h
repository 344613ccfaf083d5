/*
 * macro: SillyTavern 1.15's legacy macro engine ({{user}}, {{char}},
 * {{setvar::x::1}}, <USER>, ...), the default engine of that version.
 * It is one pass over a fixed list of steps (macro_steps below, in
 * SillyTavern's order); each step replaces every occurrence of its
 * macros, names compared without case.  A macro no step knows is left
 * as it is.  The values come from a struct macro_env the caller fills;
 * no macro reads the environment, a file or the clock (time comes from
 * env->now_ms, randomness from env->seed).
 *
 * It is one half of strata's one {{...}} engine (DESIGN.md): the tokens
 * are found by the shared lexer (text/macro_lex.h), the names, their
 * steps and the state-free macros come from the shared registry
 * (text/macros.h); what is here is the tavern state and the policy of
 * SillyTavern's assets (unknown names left as written).
 *
 * Ownership: the env borrows its strings; the variables it changes
 * (struct macro_vars) live in the run's arena, as do the results.
 */
#ifndef MACRO_H
#define MACRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run;
struct node;

/* Variables: chat-local ones (chat_metadata.variables) or global ones
 * (extension_settings.variables.global), name -> text in JSON's way. */
struct macro_var {
	const char *name;
	const char *value;
};

struct macro_vars {
	struct macro_var *v;
	size_t n, cap;
};

/* The outlet seam: the text of {{outlet::name}}, or NULL for "". */
typedef const char *macro_outlet_fn(void *ctx, const char *name);

struct macro_env {
	/* The names and card texts ({{description}} ...), already
	 * substituted once; NULL reads as "". */
	const char *user, *char_name, *group, *description, *personality,
	    *scenario, *persona, *mes_examples, *mes_examples_raw,
	    *char_prompt, *char_instruction, *char_depth_prompt,
	    *creator_notes, *char_version, *model;
	/* Chat state for {{lastMessage}} and kin. */
	const char *last_message, *last_user_message, *last_char_message,
	    *input, *last_chat_message;
	long last_message_id;           /* -1: no message */
	/* {{firstIncludedMessageId}}, {{firstDisplayedMessageId}},
	 * {{lastSwipeId}}, {{currentSwipeId}} as SillyTavern prints them
	 * (NULL reads as ""). */
	const char *first_included_id, *first_displayed_id, *last_swipe_id,
	    *current_swipe_id;
	/* {{lastGenerationType}}; {{authorsNote}}, {{charAuthorsNote}},
	 * {{defaultAuthorsNote}} and {{summary}} (the Summarize
	 * extension's latest memory; NULL: the extension is off and the
	 * macro is left as written). */
	const char *gen_type, *authors_note, *char_authors_note,
	    *default_authors_note, *summary;
	/* A group chat: {{group}} is group (all its members' names), and
	 * {{groupNotMuted}} group_not_muted; {{notChar}} joins members'
	 * names but char_name's, then user's.  NULL: a solo chat. */
	const char *group_not_muted;
	const char *const *members;
	size_t nmembers;
	long max_prompt;                /* {{maxPrompt}} */
	bool card_macros;               /* false: the card texts are not
	                                 * offered (card fields themselves) */
	struct macro_vars *locals, *globals;
	/* The user's own macros (--macro NAME=TEXT): {{NAME}} is TEXT,
	 * before any other macro; a name -> text table, or NULL. */
	const struct node *user_macros;
	int64_t now_ms;                 /* for the time macros */
	uint64_t rng;                   /* {{random}}, {{roll}}: state */
	uint64_t chat_id_hash;          /* {{pick}}: cyrb53 of the chat */
	macro_outlet_fn *outlet;
	void *outlet_ctx;
	/* The cost bounds (strata(1), SECURITY), zero to start: bytes
	 * given to and made by macro_expand() so far in this env, and
	 * whether a cap was hit (reported once; expansion then stops). */
	size_t in_total, out_total;
	bool over;
	/* What the text being expanded is, for those diagnostics: the
	 * asset and its field or entry ("card 'c.json', field
	 * description"); NULL: "a text of the build".  Set by the caller
	 * around each expansion. */
	const char *asset;
};

/* One expansion makes at most MACRO_OUT_BASE + MACRO_OUT_FACTOR times
 * its text's bytes, all the expansions of an env at most
 * MACRO_TOTAL_BASE + MACRO_OUT_FACTOR times all their texts; a variable
 * holds at most MACRO_VAR_MAX bytes.  An overrun is an error naming the
 * asset being expanded (env->asset), never quoting its text. */
#define MACRO_OUT_BASE (1u << 20)
#define MACRO_TOTAL_BASE (8u << 20)
#define MACRO_OUT_FACTOR 16u
#define MACRO_VAR_MAX (1u << 20)

/*
 * Expand the macros of text (len bytes) in env.  original, when not
 * NULL, is the value of {{original}} (its first occurrence only).
 * Returns a NUL-terminated string in the run's arena.
 */
char *macro_expand(struct run *run, struct macro_env *env,
    const char *text, size_t len, const char *original);
/* The same for a NUL-terminated text. */
char *macro_expands(struct run *run, struct macro_env *env,
    const char *text);

/*
 * Is every macro of s[0..n) fixed in env: does expanding s neither change
 * state (a variable, the {{random}}/{{roll}} generator) nor read state
 * that changes during a build (a variable, a world-info outlet, the
 * message a continue picks for {{lastChatMessage}}), so that it gives
 * the same text at any time?  Conservative: false as well when a '{'
 * does not open a "{{...}}" that closes with no '{' inside (macros built
 * from other macros' output), and when a value the text may insert (a
 * name, a card text, a message) itself holds a '{'.
 */
bool macro_fixed(const struct macro_env *env, const char *s, size_t n);

/* env->asset, or "a text of the build" without one. */
const char *macro_asset(const struct macro_env *env);
/* Set a variable (copies the strings into the arena). */
void macro_var_set(struct run *run, struct macro_vars *vars,
    const char *name, const char *value);
/* Load a JSON table of variables (numbers and strings as their text,
 * other values as JSON). */
void macro_vars_load(struct run *run, struct macro_vars *vars,
    const struct node *table);

/* SillyTavern's getStringHash: cyrb53 over UTF-16 code units, seed 0. */
uint64_t macro_cyrb53(const char *s, size_t len);

#endif
