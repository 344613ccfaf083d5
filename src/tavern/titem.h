/*
 * titem: what a SillyTavern build (tbuild.h) decided about each piece of
 * text it met, for the debug view and -f json.  An item is one prompt
 * of the preset's prompt_order, or one piece strata adds around them
 * (markers appended, extension prompts, in-chat injections, the
 * Author's and Character's Notes, the persona, world-info slots,
 * example messages, each chat message): its identifier, where it came
 * from, its role and position, its tokens, why it is in the request or
 * not, and its text at the four stages
 *
 *     raw          as read (the file's text, the message typed)
 *     regex-pre    after the regex scripts that run before macros
 *                  (a message typed or a greeting: the scripts that
 *                  change the text stored in the chat)
 *     macros       after macro substitution
 *     regex-post   after the regex scripts that run on the finished
 *                  text (promptOnly scripts on chat history)
 *
 * A stage that changed nothing shares its text pointer with the stage
 * before, so memory stays linear.  Each output message lists its items
 * (several when squash or post-processing joined messages).  The build
 * decides every reason where it decides the thing itself; the emitters
 * only print.  Everything lives in the run's arena.
 */
#ifndef TITEM_H
#define TITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/span.h"
#include "prompt/entry.h"

enum tavern_stage {
	TAVERN_STAGE_RAW,
	TAVERN_STAGE_REGEX_PRE,
	TAVERN_STAGE_MACROS,
	TAVERN_STAGE_REGEX_POST,
	TAVERN_NSTAGES,
};

struct tavern_item {
	const char *id;         /* identifier: main, chatHistory#3, ... */
	const char *source;     /* preset, card, chat, settings, world info,
	                         * strata, profile (the profile's entries
	                         * and -i) */
	const char *role;       /* system, user, assistant */
	int64_t depth;          /* in-chat at this depth, or -1: relative */
	const char *place;      /* NULL: relative or in-chat, by depth;
	                         * else its position (user-context) */
	enum entry_status reason;       /* ENTRY_ACTIVE (0): in the request;
	                                 * else why not (one spelling:
	                                 * entry_status_name()) */
	const char *note;       /* more words on either, or NULL */
	size_t tokens;          /* counted as SillyTavern counts, or 0 */
	bool counted;           /* tokens holds a count */
	long message;           /* the output message (0-based), or -1 */
	const char *sep;        /* what joins it to the item before it in
	                         * its message; NULL: "\n" */
	const char *text[TAVERN_NSTAGES];
	/* What changed the text at a stage, when known: the regex scripts'
	 * names, ", " between them; else NULL. */
	const char *by[TAVERN_NSTAGES];
	/* Where its text was read, as struct entry (prompt/entry.h) says
	 * it: when has_src, span inside the run's source src (preset.json,
	 * the card, world.json, chat.jsonl, settings.json, the profile or
	 * the -i option).  field names the card field a card item came
	 * from (a PNG card's source is the PNG file, which has no lines:
	 * its file and field say where), else NULL. */
	bool has_src;
	uint32_t src;
	struct span span;
	const char *field;
	/* The object it was read from, when it is one: a preset prompt
	 * (its identifier, name, role, injection fields, ...); else NULL.
	 * Seed 002's source carries its fields. */
	const struct node *object;
	/* joined: from the macros stage on, its text is part of item
	 * into's (extension prompts at one place are joined, then
	 * substituted once, tbuild_ext.c); its own texts stay for its
	 * stages alone, and a message's text at those stages skips it. */
	bool joined;
	uint32_t into;
	/* A chat message's thinking (seed 002's role "thinking"): the
	 * same text at every stage, sent as the reasoning of its message;
	 * where it was read.  NULL: none. */
	const char *thinking;
	uint32_t thinking_src;
	struct span thinking_span;
};

struct tavern_report {
	struct tavern_item *items;
	size_t n, cap;
	/* For output message i: its items, msg_items[i][0..msg_nitems[i]). */
	const uint32_t **msg_items;
	uint32_t *msg_nitems;
	long budget, used;      /* the context budget and the prompts' use */
	const char *type;       /* the generation type */
	const char *tokenizer;  /* its name, or NULL: estimated counts */
	/* A group chat: the member who speaks and why, or NULL. */
	const char *speaker;
};

/* SillyTavern's generation types (--type). */
enum tavern_gen {
	TAVERN_GEN_NORMAL,
	TAVERN_GEN_CONTINUE,
	TAVERN_GEN_IMPERSONATE,
	TAVERN_GEN_SWIPE,
	TAVERN_GEN_REGENERATE,
	TAVERN_GEN_QUIET,
	TAVERN_NGENS,
};

/* A generation type's name (normal, continue, ...). */
const char *tavern_gen_name(enum tavern_gen g);
/* The generation type named name; false when there is none. */
bool tavern_gen_parse(const char *name, enum tavern_gen *g);

/* A stage's name (raw, regex-pre, macros, regex-post). */
const char *tavern_stage_name(enum tavern_stage s);
/* The stage named name; false when there is none. */
bool tavern_stage_parse(const char *name, enum tavern_stage *s);

#endif
