/*
 * wi: SillyTavern 1.15's world-info (lorebook) activation engine, on its
 * own: books, a chat, settings and a few callbacks in; the activated
 * entries, the text per prompt slot, the new timed-effects state and one
 * record per entry (why it is in or out) out.  It assembles no prompt;
 * the caller puts each slot's text where SillyTavern would.
 *
 * Ownership: wi_run() reads its input (borrowed, never changed) and puts
 * every output string and array in run->arena; nothing needs freeing but
 * the run.  PCRE2 objects are made and freed inside wi_run().
 *
 * Determinism: all chance (probability rolls, inclusion-group draws)
 * comes from one SplitMix64 stream (base/rng.h) seeded with input.seed;
 * the default seed is 0.  Same input, same output, byte for byte.
 *
 * Bound: each pass either activates an entry, pops a delay level or
 * widens the min-activation scan by one message, so wi_run() makes at
 * most entries + levels + MAX_SCAN_DEPTH + 1 passes, and fewer with
 * max_recursion_steps.  Regex keys run with PCRE2 match and depth limits.
 *
 * The rules, their order and where SillyTavern's docs and code disagree
 * are in strata(1), WORLD INFO; the engine follows the code.
 */
#ifndef WI_H
#define WI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tavern/world.h"

struct arena;
struct run;

/* Where a book comes from: the order SillyTavern sorts sources in. */
enum wi_source {
	WI_SOURCE_CHAT,         /* chat_metadata.world_info */
	WI_SOURCE_PERSONA,      /* the persona's lorebook */
	WI_SOURCE_CHARACTER,    /* extensions.world + extra books */
	WI_SOURCE_GLOBAL,       /* world_info.globalSelect */
};

struct wi_book {
	const struct world *world;      /* world->name names the book */
	enum wi_source source;
};

/* A chat message, as in the chat file (oldest first). */
struct wi_message {
	const char *name, *text;
	bool is_user, is_system;
};

/* settings.json world_info_settings; wi_settings_default() gives the
 * code defaults. */
struct wi_settings {
	int64_t depth;                  /* world_info_depth: 2 */
	int64_t budget_percent;         /* world_info_budget: 25 */
	int64_t budget_cap;             /* world_info_budget_cap: 0 = none */
	int64_t min_activations;        /* 0 */
	int64_t min_activations_depth_max;      /* 0 = chat length */
	int64_t max_recursion_steps;    /* 0 = unlimited */
	bool include_names;             /* true */
	bool recursive;                 /* false */
	bool case_sensitive;            /* false */
	bool match_whole_words;         /* false */
	bool use_group_scoring;         /* false */
	int strategy;                   /* 0 evenly, 1 character_first (default),
	                                 * 2 global_first */
	bool overflow_alert;            /* false; reported in the result */
	const char *wi_format;          /* preset's wi_format: "{0}" */
};

/* One timed effect: chat_metadata.timedWorldInfo.{sticky,cooldown}. */
struct wi_timed_effect {
	const char *key;                /* "<world>.<uid>" */
	uint64_t hash;
	int64_t start, end;
	bool protect;                   /* "protected" */
};

struct wi_timed {
	struct wi_timed_effect *sticky, *cooldown;
	size_t nsticky, ncooldown;
};

/* An entry activated from outside (an extension's forced activation). */
struct wi_forced {
	const char *world;
	int64_t uid;
};

struct wi_input {
	const struct wi_book *books;
	size_t nbooks;
	const struct wi_message *messages;      /* oldest first */
	size_t nmessages;
	/* When set, a message whose text is NULL has the text this gives
	 * (i indexes messages); it is asked only for the messages the
	 * deepest entry can scan, newest first. */
	const char *(*message_text)(void *ctx, size_t i);
	void *message_text_ctx;
	const struct wi_settings *settings;     /* NULL: defaults */
	int64_t max_context;    /* prompt budget in tokens (context - response) */
	const char *char_filename;      /* avatar file name sans extension */
	const char *const *char_tags;   /* tag ids; NULL: no tag filter runs */
	size_t nchar_tags;
	/* Texts for the match* opt-ins, by enum world_match; NULL = "". */
	const char *match_text[WORLD_MATCH__COUNT];
	enum world_trigger trigger;     /* generation type: normal */
	const char *const *inject;      /* scan=true extension prompts */
	size_t ninject;
	const struct wi_timed *timed;   /* NULL: none */
	const struct wi_forced *forced;
	size_t nforced;
	uint64_t seed;
	/* Macro substitution for keys and content; NULL = identity.  Returns
	 * a string that lives at least as long as the run.  book and e say
	 * whose text it is (for the macros' diagnostics). */
	const char *(*substitute)(void *ctx, const char *text,
	    const struct wi_book *book, const struct world_entry *e);
	void *substitute_ctx;
	/* Token count; NULL = the estimate wi_estimate_tokens().  The
	 * budget compares what SillyTavern's getTokenCountAsync() gives for
	 * the text activated before and for the new text; start says that
	 * text begins at text (what such a count adds once, for the whole
	 * text, is added: 0 for an empty text), else text continues one.
	 * It must add up over a split made just before an ASCII letter or
	 * digit that follows a newline (the BPE encodings' pre-tokenizers
	 * always split there): count(A B, start) = count(A, start) +
	 * count(B, false), so the budget counts each entry's text once. */
	int64_t (*count_tokens)(void *ctx, const char *text, size_t len,
	    bool start);
	void *count_tokens_ctx;
	/* The WORLD_INFO regex scripts, run as SillyTavern runs them: on
	 * each activated entry's content before it joins its slot, with
	 * the entry's depth for an @depth entry, else WI_NO_DEPTH; an entry
	 * they leave empty is dropped.  NULL = none.  Returns a string that
	 * lives at least as long as the run. */
	const char *(*regex)(void *ctx, const char *text, int64_t depth);
	void *regex_ctx;
};

#define WI_NO_DEPTH INT64_MIN

/* Why an entry is in or out (the record's reason). */
enum wi_reason {
	WI_NOT_REACHED,         /* the loop stopped before it was decided */
	/* activated */
	WI_BY_KEY,
	WI_BY_CONSTANT,
	WI_BY_STICKY,
	WI_BY_DECORATOR,        /* @@activate */
	WI_BY_FORCE,
	/* not activated */
	WI_DISABLED,
	WI_TRIGGER,
	WI_CHARACTER_FILTER,
	WI_DELAY,
	WI_COOLDOWN,
	WI_DELAY_UNTIL_RECURSION,
	WI_RECURSION_LEVEL,
	WI_EXCLUDE_RECURSION,
	WI_DONT_ACTIVATE,       /* @@dont_activate */
	WI_NO_KEYS,
	WI_NO_MATCH,
	WI_SECONDARY,
	WI_PROBABILITY,
	WI_GROUP_LOST,
	WI_GROUP_SCORE,
	WI_GROUP_TAKEN,         /* its group was won in an earlier pass */
	WI_GROUP_SPLICE,        /* removed as SillyTavern removes a member
	                         * already gone: the last new entry */
	WI_BUDGET,
	WI_EMPTY,               /* activated, but its content is empty */
	WI_REGEX_EMPTY,         /* activated, emptied by a WORLD_INFO regex */
	WI__REASON_COUNT,
};

/* Which part of the scan buffer a key matched in. */
enum wi_where {
	WI_IN_MESSAGE,          /* where_index: 0 = newest message */
	WI_IN_CARD,             /* where_index: enum world_match */
	WI_IN_INJECT,           /* where_index: input.inject index */
	WI_IN_RECURSION,        /* where_index: the pass that added it */
};

struct wi_record {
	const struct world_entry *entry;
	const char *world;
	enum wi_source source;
	bool activated;
	enum wi_reason reason;
	int pass;               /* 1-based pass that decided it */
	int level;              /* recursion delay level then */
	const char *key;        /* WI_BY_KEY: the key (after macros) */
	enum wi_where where;
	size_t where_index;
	double roll;            /* WI_PROBABILITY or passed roll; < 0: none */
	int64_t winner;         /* group reasons: the winner's uid */
	const char *group;      /* group reasons: the group name */
	int64_t tokens;         /* WI_BUDGET: the running total it hit */
	bool regex_limit;       /* a regex key hit PCRE2's limit */
	const char *content;    /* after macros */
	size_t order_index;     /* activation order (activated only) */
};

struct wi_depth_prompt {
	int64_t depth;
	int role;
	const char *text;       /* joined with "\n" */
};

struct wi_outlet {
	const char *name;
	const char *text;       /* joined with "\n", highest order first */
};

struct wi_result {
	struct wi_record *records;      /* activation-priority order */
	size_t nrecords;
	struct wi_record **activated;   /* activation order */
	size_t nactivated;
	/* The slots.  Empty strings when nothing went there. */
	const char *before, *after;     /* joined with "\n" */
	const char *before_formatted, *after_formatted; /* through wi_format */
	const char *an_top, *an_bottom; /* see wi_author_note() */
	struct wi_depth_prompt *depth;  /* in creation order */
	size_t ndepth;
	const char **em_top, **em_bottom;       /* one example block each */
	size_t nem_top, nem_bottom;
	struct wi_outlet *outlets;      /* by first appearance */
	size_t noutlets;
	struct wi_timed timed;          /* the state to save */
	int64_t budget, tokens_used;
	bool overflow;                  /* the budget was hit */
	int passes;
	size_t chat_length;             /* scanned (non-system) messages */
};

void wi_settings_default(struct wi_settings *s);
bool wi_run(struct run *run, const struct wi_input *in,
    struct wi_result *out);
/* The Author's Note text with the WI AN-top/bottom entries around it, as
 * SillyTavern builds it -- only when the note fires this turn. */
const char *wi_author_note(struct arena *a, const struct wi_result *r,
    const char *note);
/* ceil(UTF-16 code units / 3.35): SillyTavern's own fallback estimate. */
int64_t wi_estimate_tokens(void *ctx, const char *text, size_t len);
const char *wi_reason_name(enum wi_reason reason);
const char *wi_source_name(enum wi_source source);
const char *wi_where_name(enum wi_where where);
const char *wi_match_name(int match);

/*
 * Data in and out (wi_io.c).  wi_settings_from_node() reads a
 * settings.json (its world_info_settings, the preset's wi_format and the
 * context size from oai_settings) or a bare world_info_settings object;
 * wrong types are warnings and keep the default.  *max_context gets
 * openai_max_context - openai_max_tokens when both are there.
 */
struct node;
bool wi_settings_from_node(struct run *run, const struct node *root,
    struct wi_settings *s, int64_t *max_context);
/* chat_metadata.timedWorldInfo <-> struct wi_timed. */
void wi_timed_from_node(struct run *run, const struct node *n,
    struct wi_timed *t);
struct node *wi_timed_to_node(struct arena *a, const struct wi_timed *t);
/* The whole result as a tree for json_write(): activated, considered,
 * slots, budget, timed state. */
struct node *wi_result_to_node(struct arena *a, const struct wi_result *r);

/*
 * The outcome in words (wi_show.c), shared by `strata wi` and the debug
 * view.  wi_record_describe() writes one line: "+" (activated) or "-",
 * book.uid (with source: its kind in brackets), the comment, the reason
 * and its details (key, where, roll, group winner, running total), the
 * pass and recursion level.  wi_result_summary() writes "N messages
 * scanned, P passes, U of B tokens" without a newline.
 */
struct buf;
void wi_record_describe(struct buf *b, const struct wi_record *r,
    bool source);
void wi_result_summary(struct buf *b, const struct wi_result *r);
/* A build's world_info object for -f json: activated and considered
 * (book, source, uid, comment, outcome, reason and its details), the
 * budget, and the timed-effects state to save as
 * chat_metadata.timedWorldInfo. */
struct node *wi_build_node(struct arena *a, const struct wi_result *r);

/*
 * Internal to wi_*.c: key preparation and the scan buffer (wi_scan.c).
 */
struct wi_scan;
struct wi_key;

/* The keys of one entry, after macros and trimming, regexes compiled. */
struct wi_keys {
	struct wi_key *primary, *secondary;
	size_t nprimary, nsecondary;
};

struct wi_match {
	bool found;
	bool limit;             /* some regex hit its match limit */
	size_t key;             /* index of the first matching key */
	enum wi_where where;
	size_t where_index;
};

/* reach: the most messages any entry can scan (SIZE_MAX: all); only
 * these are read. */
struct wi_scan *wi_scan_new(struct run *run, const struct wi_input *in,
    const struct wi_settings *s, size_t reach);
void wi_scan_free(struct wi_scan *sc);
/* Prepare an entry's keys (once per run). */
void wi_keys_prepare(struct wi_scan *sc, const struct wi_book *book,
    const struct world_entry *e, struct wi_keys *k);
/* Scan state for the buffer: min-activation passes leave recursion out. */
void wi_scan_set(struct wi_scan *sc, int64_t skew, bool with_recursion);
void wi_scan_add_recursion(struct wi_scan *sc, const char *text, int pass);
/* Test key i of keys[0..n) for entry e; the result is also stored. */
bool wi_scan_key(struct wi_scan *sc, const struct world_entry *e,
    struct wi_key *keys, size_t i, struct wi_match *m);
const char *wi_key_text(const struct wi_key *keys, size_t i);
/* Whether key text s compiles when it is a /regex/ key, for the
 * linter: on failure err and erroff say why. */
bool wi_regex_check(const char *s, char *err, size_t errlen,
    size_t *erroff, bool *is_regex);
/* JS's /\s/ and /\w/ for one code point (whole-word rule). */
bool wi_is_js_space(uint32_t cp);
bool wi_is_word_byte(unsigned char c);

/*
 * The world-info linter (wi_lint.c, strata wi): warn, at each entry, of
 * duplicate uids, empty keys, /regex/ keys that do not compile, plain
 * keys whole-word matching can never find (a non-word character at an
 * edge), and inclusion groups of one member.  whole_words is the
 * settings' world_info_match_whole_words, what an entry that leaves
 * matchWholeWords unset uses.  Warnings only: it returns nothing.
 */
void wi_lint(struct run *run, const struct world *w, bool whole_words);

#endif
