/*
 * regex: SillyTavern 1.15 regex scripts (the built-in "Regex"
 * extension).  regex_set_add() reads scripts from a tree node -- one
 * script object or an array of them: a script file, settings'
 * extension_settings.regex, a preset's or a card's
 * extensions.regex_scripts -- and compiles each find regex once.
 * regex_apply() runs, on one text, the scripts that SillyTavern would run
 * for that call (scope order global, preset, scoped; array order inside
 * a scope; flags, edit, depth and placement rules) and writes the
 * result.  Macros are the caller's: a callback expands them in find
 * regexes (substituteRegex 1 and 2), trim strings and replacements.
 *
 * Ownership: a struct regex_set owns its scripts, their compiled regexes
 * and the match data; regex_set_free() releases them.  Strings read from
 * the tree are copied into the run's arena.  regex_apply() changes the
 * set (it caches find regexes built from macros and remembers which
 * scripts have already reported a limit), so it takes it non-const.
 *
 * Which scopes to add (a preset's scripts only when the preset is in
 * preset_allowed_regex, a card's only when the card is in
 * character_allowed_regex) is the caller's decision.  SillyTavern
 * ignores a card's or preset's regex_scripts that is not an array: pass
 * it only when it is one.
 *
 * How prompt assembly calls regex_apply() (SillyTavern 1.15, reference
 * section 3.4):
 *   history message i of n (the message typed now counts, as the last):
 *       placement REGEX_USER_INPUT if the user wrote it, else
 *       REGEX_AI_OUTPUT (narrator messages too); call REGEX_PROMPT;
 *       depth n - i - 1 (minus one more on Continue, so the continued
 *       message has depth -1);
 *   a reasoning block re-added to history: REGEX_REASONING, REGEX_PROMPT,
 *       the message's depth;
 *   a world-info entry's content before insertion: REGEX_WORLD_INFO,
 *       REGEX_PROMPT, the entry's depth for an @depth entry, else
 *       REGEX_NO_DEPTH;
 *   the message typed now, when it is sent (stored text): first
 *       REGEX_USER_INPUT with call 0 and REGEX_NO_DEPTH (permanent
 *       scripts), then as history above;
 *   a new chat's greeting: REGEX_AI_OUTPUT, call 0, REGEX_NO_DEPTH, once
 *       when the chat is created (stored text).
 * Messages read from a chat file already carry the permanent scripts'
 * changes: give them only the prompt calls.
 */
#ifndef REGEX_H
#define REGEX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"
#include "text/jsregex.h"

struct buf;
struct node;
struct run;

/* The placement values of the file format. */
enum regex_placement {
	REGEX_MD_DISPLAY = 0,   /* deprecated */
	REGEX_USER_INPUT = 1,
	REGEX_AI_OUTPUT = 2,
	REGEX_SLASH_COMMAND = 3,
	REGEX_SEND_AS = 4,      /* legacy, unused */
	REGEX_WORLD_INFO = 5,
	REGEX_REASONING = 6,
};

enum regex_scope {
	REGEX_GLOBAL,           /* settings: extension_settings.regex */
	REGEX_PRESET,           /* the API preset's extensions.regex_scripts */
	REGEX_SCOPED,           /* the card's extensions.regex_scripts */
};

/* What a call is (SillyTavern's isPrompt, isMarkdown, isEdit). */
enum regex_call {
	REGEX_PROMPT = 1 << 0,
	REGEX_MARKDOWN = 1 << 1,
	REGEX_EDIT = 1 << 2,
};

/* A call with no depth (WI entries not at @depth, user input). */
#define REGEX_NO_DEPTH INT_MIN

enum regex_macro_use {
	REGEX_MACRO_FIND,       /* findRegex, substituteRegex 1 */
	REGEX_MACRO_FIND_ESCAPED,       /* substituteRegex 2: each value
	                                 * through jsregex_escape_value() */
	REGEX_MACRO_TRIM,       /* a trim string ({{char}}: the message's
	                         * character) */
	REGEX_MACRO_REPLACE,    /* the replacement, after $N were put in */
};

/* Append the expansion of text[0..len) to out; false after reporting an
 * error.  A NULL callback leaves every text as it is. */
struct regex_macros {
	bool (*expand)(void *ctx, enum regex_macro_use use, const char *text,
	    size_t len, struct buf *out);
	void *ctx;
};

enum regex_piece_kind {
	REGEX_PIECE_TEXT,
	REGEX_PIECE_GROUP,
	REGEX_PIECE_NAME,
};

/* The replacement, cut once at load into text and $N / $<name>. */
struct regex_piece {
	enum regex_piece_kind kind;
	const char *s;          /* TEXT and NAME pieces; in the arena */
	size_t len;
	uint64_t group;         /* REGEX_PIECE_GROUP; saturates */
};

struct regex_script {
	const char *name;       /* scriptName; in the arena */
	enum regex_scope scope;
	const struct source *src;
	struct span span;       /* the script object */
	const struct node *node;        /* the script object as read
	                                 * (borrowed from the caller's
	                                 * tree) */
	struct span findspan;   /* the findRegex string (or the object) */
	const char *find;       /* in the arena */
	size_t findlen;
	int substitute;         /* 0 none, 1 raw, 2 escaped */
	bool disabled, markdown_only, prompt_only, run_on_edit;
	uint32_t placements;    /* bit p: placement p (0..31) */
	double min_depth, max_depth;    /* NAN: no limit */
	struct regex_piece *pieces;     /* in the arena */
	size_t npieces;
	const char **trims;     /* in the arena */
	size_t *trimlens;
	size_t ntrims;
	struct jsregex re;      /* substitute 0: compiled at load */
	bool ok;                /* re holds a usable regex */
	bool reported;          /* a limit was reported already */
	char *cache;            /* substitute 1, 2: the last expanded
	                         * pattern (heap), re its regex */
	size_t cachelen;
	bool cached;
	signed char fixed;      /* regex_set_pure(): 0 not asked yet, 1
	                         * its macro texts are fixed, -1 not */
};

struct regex_set {
	struct regex_script *v; /* owned; global, preset, scoped order */
	size_t n, cap;
	void *md;               /* pcre2_match_data, owned */
	uint32_t mdgroups;
	uint32_t match_limit, depth_limit;
	/* What is left of the build's budget (strata(1), SECURITY):
	 * REGEX_BUILD_BUDGET steps, and REGEX_BYTE_BUDGET more for each
	 * byte of each text regex_apply() is given (once, whatever the
	 * number of scripts). */
	uint64_t build_left;
	/* When set, regex_apply() appends the name of each script that
	 * changed the text, ", " between them (for the stage inspector);
	 * the caller owns the buffer. */
	struct buf *fired;
};

/* The cost bounds of the regex scripts, in PCRE2 match steps: one run
 * of one script gets REGEX_RUN_BUDGET plus REGEX_BYTE_BUDGET for each
 * byte of its text; a build gets REGEX_BUILD_BUDGET plus the same per
 * byte of each text the scripts are applied to, counted once per text
 * however many scripts run on it.  Each match attempt starts with a limit of
 * REGEX_STEP_FLOOR steps and doubles it up to the per-match limit, and
 * is charged the limit it ran under (at most twice its real steps). */
#define REGEX_RUN_BUDGET 30000000u
#define REGEX_BUILD_BUDGET 30000000u
#define REGEX_BYTE_BUDGET 1024u
#define REGEX_STEP_FLOOR 256u

void regex_set_init(struct regex_set *set);
void regex_set_free(struct regex_set *set);
/* Lower (or raise) the limits of every regex of the set, now and later. */
void regex_set_limits(struct regex_set *set, uint32_t match, uint32_t depth);

/*
 * Add the scripts of `scripts` (one script object or an array of them)
 * to scope `scope`, after the scope's earlier scripts and before the
 * later scopes.  Reports what is wrong at its place; returns false if
 * anything was an error (the good scripts are still added).
 */
bool regex_set_add(struct run *run, struct regex_set *set,
    enum regex_scope scope, const struct node *scripts);

/*
 * Seed 002's merge (SmartTavern's assets normaliser): a script whose
 * key -- its "id" when it has a non-empty one, else its scriptName when
 * non-empty, else its findRegex -- is the key of a script before it in
 * run order is dropped, with a warning at its place; the first stays.
 * Returns how many were dropped (merged_regex's dedup_removed_count).
 */
size_t regex_set_dedup(struct run *run, struct regex_set *set);

/*
 * Run the scripts that apply to this call on text[0..len) and append the
 * result to out.  call: enum regex_call bits; depth: the message depth
 * or REGEX_NO_DEPTH.  Returns false after reporting a script that hit a
 * match limit (that script then leaves the text as it was).
 */
/*
 * Can regex_apply() for placement and call run on text[0..len) at any
 * depth, at any time or never, without changing anything but its result?
 * Macros in a replacement, a substituted find pattern or a trim string
 * are the only way a script reaches beyond its text (a {{setvar}}, a
 * {{random}} draw, a {{getvar}} that reads what a later one sets), so it
 * can when the text has no '{' and, for every script that may apply:
 * each "{{" of the replacement opens a macro that closes inside the same
 * literal piece (so no $N can join or complete one), fixed() accepts
 * every literal piece, the find pattern when substituted, and every trim
 * string, and no $N follows (in a later script) a replacement that may
 * write a '{'.  fixed(ctx, s, n) answers for one text whose macros are all
 * given (the tavern layer knows which macros change or read state); its
 * answer is kept per script.  A yes is safe; a no only costs time.
 */
bool regex_set_pure(struct regex_set *set, enum regex_placement placement,
    unsigned call, const char *text, size_t len,
    bool (*fixed)(void *ctx, const char *s, size_t n), void *ctx);

bool regex_apply(struct run *run, struct regex_set *set,
    enum regex_placement placement, unsigned call, int depth,
    const char *text, size_t len, struct buf *out,
    const struct regex_macros *macros);

/* Would the script run for this call (SillyTavern 1.15's selection)? */
bool regex_selected(const struct regex_script *s,
    enum regex_placement placement, unsigned call, int depth);

#endif
