/*
 * item: the record a SillyTavern build (the tavern dialect, tavern/
 * tbuild.h) keeps of each piece of text it met, for the views (debug,
 * -f json, -f result, the inspector).  An item is one prompt of the
 * preset's prompt_order, or one piece the build adds around them
 * (markers appended, extension prompts, in-chat injections, the
 * Author's and Character's Notes, the persona, world-info slots,
 * example messages, each chat message, a profile's entries and -i): its
 * identifier, where it came from, its role and position, its tokens,
 * why it is in the request or not (enum entry_status, the one set both
 * dialects use), and its text at the four stages
 *
 *     raw          as read (the file's text, the message typed)
 *     regex-pre    after the regex scripts that run before macros
 *                  (a message typed or a greeting: the scripts that
 *                  change the text stored in the chat)
 *     macros       after macro substitution
 *     regex-post   after the regex scripts that run on the finished
 *                  text (promptOnly scripts on chat history)
 *
 * It lives here, in the prompt model, so that the build that fills it
 * and the emitters that print it meet below both: emit/ never includes
 * tavern/.  A stage that changed nothing shares its text pointer with
 * the stage before, so memory stays linear.  Each output message lists
 * its items (several when squash or post-processing joined messages).
 * The build decides every reason where it decides the thing itself;
 * the emitters only print.  Everything lives in the run's arena.
 */
#ifndef ITEM_H
#define ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/span.h"
#include "prompt/entry.h"
#include "prompt/names.h"

struct arena;
struct node;

enum item_stage {
	ITEM_STAGE_RAW,
	ITEM_STAGE_REGEX_PRE,
	ITEM_STAGE_MACROS,
	ITEM_STAGE_REGEX_POST,
	ITEM_NSTAGES,
};

/* Which of the build's inputs an item's text came from (its kind in the
 * views; where in that input is its span).  item_source_name() spells
 * each. */
enum item_source {
	ITEM_SOURCE_PRESET,
	ITEM_SOURCE_CARD,
	ITEM_SOURCE_CHAT,       /* the chat, its metadata, the message typed */
	ITEM_SOURCE_SETTINGS,
	ITEM_SOURCE_WORLD_INFO,
	ITEM_SOURCE_PROFILE,    /* a profile's entries and -i */
	ITEM_NSOURCES,
};

struct item {
	const char *id;         /* identifier: main, chatHistory#3, ... */
	enum item_source source;        /* which input it came from */
	enum role role;         /* system, user, assistant */
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
	const char *text[ITEM_NSTAGES];
	/* What changed the text at a stage, when known: the regex scripts'
	 * names, ", " between them; else NULL. */
	const char *by[ITEM_NSTAGES];
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
	 * substituted once, tavern/tbuild_ext.c); its own texts stay for its
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

/*
 * What the provider shaping (emit/emit_shape.c) takes of a SillyTavern
 * build besides its messages: the preset's and settings' choices, read
 * and substituted by the build, that SillyTavern applies per provider.
 */
struct item_request {
	bool sysprompt;                 /* the preset's use_sysprompt */
	const char *user_name, *char_name;
	const char *placeholder;        /* settings' promptPlaceholder */
	/* The assistant prefill (on impersonate the preset's
	 * assistant_impersonation) as read and after macros, its
	 * identifier and where it was read; prefill_id is NULL when the
	 * request is not Claude's or the generation type sends none
	 * (quiet; continue with continue_prefill). */
	const char *prefill_id, *prefill_key, *prefill_raw, *prefill;
	bool prefill_has_src;
	uint32_t prefill_src;
	struct span prefill_span;
	/* The samplers: the preset's body, as the OpenAI-compatible source
	 * sends it for the model (logit bias, reasoning effort, verbosity),
	 * Claude's and Google's. */
	const struct node *body, *body_model, *body_claude, *body_google;
	/* Claude's extended thinking budget_tokens for the model, 0 for
	 * none. */
	int64_t claude_budget;
	/* The tokenizer family body_model's logit_bias needed and strata
	 * lacks (no logit_bias is in it), or NULL: a warning when it is
	 * sent. */
	const char *bias_missing;
	/* The custom stopping strings, after macros when the settings say
	 * so. */
	const char *const *stops;
	size_t nstops;
	bool all_stops;                 /* the source takes them all, not 4 */
	/* The connection's custom_include_body and custom_exclude_body
	 * (YAML text, "" for none). */
	const char *include_body, *exclude_body;
	/* A group chat's members' names (a message the character sends may
	 * start with any of them), or none. */
	const char *const *members;
	size_t nmembers;
};

struct item_report {
	struct item *items;
	size_t n, cap;
	/* For output message i: its items, msg_items[i][0..msg_nitems[i]). */
	const uint32_t **msg_items;
	uint32_t *msg_nitems;
	long budget, used;      /* the context budget and the prompts' use */
	const char *type;       /* the generation type */
	const char *tokenizer;  /* its name, or NULL: estimated counts */
	/* A group chat: the member who speaks and why, or NULL. */
	const char *speaker;
	struct item_request req;
};

/* content with "who: " in front, unless it starts with it already (as
 * SillyTavern's startsWith(`${name}: `) tests it); in a. */
const char *item_prefixed(struct arena *a, const char *who,
    const char *content);
/* The same for q's character: a group chat's message may start with any
 * member's name instead (SillyTavern's startsWithGroupName). */
const char *item_bot_prefixed(struct arena *a, const struct item_request *q,
    const char *content);

/* A source's name (preset, card, chat, settings, world info,
 * profile). */
const char *item_source_name(enum item_source s);

/* A stage's name (raw, regex-pre, macros, regex-post). */
const char *item_stage_name(enum item_stage s);
/* The stage named name; false when there is none. */
bool item_stage_parse(const char *name, enum item_stage *s);

#endif
