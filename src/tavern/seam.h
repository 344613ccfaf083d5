/*
 * seam: where modules that land later plug into the SillyTavern
 * assembly (tbuild.h).  Each seam is a struct of a function pointer and
 * its context; tavern_seams_default() fills all three with a trivial
 * default, so the assembly runs without them:
 *
 *  - tokens: counts one message as the budget sees it.  Default: an
 *    estimate, 3 tokens per message + 1 for a name + one per 4 bytes
 *    of content (rounded up).  The exact counter is cl100k_base with
 *    gpt-3.5-turbo's per-message overheads (3, and 1 per name).
 *  - wi: the world-info scan.  The assembly gives the scan input
 *    (struct tavern_wi_scan) and takes back the activated text per
 *    position (struct tavern_wi_result).  Default: nothing activates.
 *  - regex: SillyTavern regex scripts.  Called with the placement,
 *    whether it is prompt time (only promptOnly scripts run) and the
 *    message depth (TAVERN_NO_DEPTH when there is none).  Default: the
 *    text unchanged.
 *
 * Ownership: everything a seam returns lives in the run's arena (or is
 * the text it was given); the inputs are borrowed for the call.
 */
#ifndef SEAM_H
#define SEAM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct card;
struct macro_env;
struct node;
struct run;
struct wi_result;

/* --- token counting --- */

struct tavern_tokens {
	/* role: "system", "user" or "assistant"; name may be NULL. */
	size_t (*count)(void *ctx, const char *role, const char *name,
	    const char *text, size_t len);
	void *ctx;
	const char *name;       /* the tokenizer, for the debug view, or
	                         * NULL: an estimate */
};

struct tavern_regex;

/* --- world info --- */

struct tavern_wi_msg {
	const char *name;               /* speaker */
	const char *text;               /* after the prompt-time regex */
};

struct tavern_wi_scan {
	/* The chat, newest first, without hidden (is_system) messages. */
	const struct tavern_wi_msg *msgs;
	size_t nmsgs;
	/* When set, a message whose text is NULL has the text this gives
	 * (i as in msgs), asked for only when the scan reaches it. */
	const char *(*text)(void *ctx, size_t i);
	void *text_ctx;
	/* Texts an entry may opt into (match* flags), already substituted. */
	const char *persona, *description, *personality, *depth_prompt,
	    *scenario, *creator_notes;
	/* Text of the extension prompts registered with scan=true, joined
	 * with "\n" (the inject buffer). */
	const char *inject;
	const struct card *card;
	const char *card_file;          /* avatar name without extension */
	const struct node *chat_metadata;       /* or NULL */
	const struct node *wi_settings;         /* world_info_settings */
	const char *const *worlds;      /* --world files */
	size_t nworlds;
	int64_t max_context;            /* openai_max_context - max_tokens */
	const char *type;               /* generation type */
	struct macro_env *macros;       /* to substitute keys and content */
	bool an_fires;                  /* positions 2/3 are used */
	const struct node *settings;    /* all of settings.json, or NULL
	                                 * (persona lorebook, charLore) */
	const struct tavern_tokens *tokens;     /* for the WI budget */
	const struct tavern_regex *regex;       /* WORLD_INFO placement */
	uint64_t seed;                  /* --seed, else 0: probability and
	                                 * inclusion-group draws */
};

struct tavern_wi_depth {
	int64_t depth;
	int role;                       /* 0 system, 1 user, 2 assistant */
	const char *text;               /* entries joined with "\n" */
};

struct tavern_wi_outlet {
	const char *name;
	const char *text;
};

struct tavern_wi_result {
	const char *before, *after;     /* positions 0/1, joined; or NULL */
	const char *an_top, *an_bottom; /* positions 2/3, joined; or NULL */
	/* positions 5/6: each entry becomes an example block */
	const char **em_top, **em_bottom;
	size_t nem_top, nem_bottom;
	struct tavern_wi_depth *depth;  /* position 4, by (depth, role) */
	size_t ndepth;
	struct tavern_wi_outlet *outlets;       /* position 7 */
	size_t noutlets;
	/* What the engine decided, for the debug view and -f json
	 * (world/wi.h), or NULL when no scan ran. */
	const struct wi_result *detail;
	/* chat_metadata.timedWorldInfo after the scan, or NULL. */
	const struct node *timed;
};

struct tavern_wi {
	/* Fill *out (zeroed by the caller); false after reporting. */
	bool (*scan)(void *ctx, struct run *run,
	    const struct tavern_wi_scan *in, struct tavern_wi_result *out);
	void *ctx;
};

/* --- regex scripts --- */

enum tavern_regex_place {
	TAVERN_RE_USER_INPUT = 1,
	TAVERN_RE_AI_OUTPUT = 2,
	TAVERN_RE_SLASH_COMMAND = 3,
	TAVERN_RE_WORLD_INFO = 5,
	TAVERN_RE_REASONING = 6,
};

#define TAVERN_NO_DEPTH INT_MIN

/* The scripts in scope, in SillyTavern's order: global, then the
 * preset's, then the character's -- the last two only when
 * settings.json allows them (preset_allowed_regex.openai names the
 * preset file without .json; character_allowed_regex the card file). */
struct tavern_regex_scope {
	const struct node *global;      /* extension_settings.regex */
	const struct node *preset;      /* extensions.regex_scripts */
	bool preset_allowed;
	const struct node *scoped;      /* the card's regex_scripts */
	bool scoped_allowed;
	const char *const *files;       /* --regex, after the global ones */
	size_t nfiles;
	struct macro_env *macros;       /* replacement and trim strings */
};

struct tavern_regex {
	/* Called once before any apply (may be NULL); false after
	 * reporting. */
	bool (*load)(void *ctx, struct run *run,
	    const struct tavern_regex_scope *scope);
	const char *(*apply)(void *ctx, struct run *run,
	    enum tavern_regex_place place, bool is_prompt, int depth,
	    const char *text);
	/* May apply(place, is_prompt = true, any depth, text) run at any
	 * time, or not at all, without changing anything but its result
	 * (text/regex.h regex_set_pure())?  NULL: never assumed. */
	bool (*pure)(void *ctx, enum tavern_regex_place place,
	    const char *text);
	/* The names of the scripts that changed the text in the last
	 * apply(), ", " between them, or NULL (none, or not known).  May
	 * be NULL. */
	const char *(*fired)(void *ctx);
	void *ctx;
};

struct tavern_seams {
	struct tavern_tokens tokens;
	struct tavern_wi wi;
	struct tavern_regex regex;
};

/* The defaults described above. */
void tavern_seams_default(struct tavern_seams *s);
size_t tavern_tokens_estimate(void *ctx, const char *role,
    const char *name, const char *text, size_t len);

#endif
