/*
 * entry: the one model for every piece of text that can reach the model,
 * and the stack that orders them (PromptStack semantics).  Adding a key
 * that is already live replaces it in place -- it keeps its position, so
 * ties keep their order -- and the old entry is kept, marked replaced.
 * Empty or whitespace-only content is never added and never removes a
 * live entry; it is kept, marked empty.  So every entry ever offered is
 * in `all`, with the reason it is in or out, for the debug view.  Entries
 * and the stack's arrays live in the run's arena.
 *
 * An entry's text is a struct etext: bytes plus the runs of the sources
 * they came from, so that a pass of the rewrite stage that finds an
 * error in text it (or an earlier pass) produced still points at the
 * file, line and column.  Collect fills `raw`; the rewrite stage records
 * each pass's output in `stages` and leaves the last in content/len.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/map.h"
#include "prompt/names.h"
#include "diag/source.h"

struct arena;

enum placement {
	PLACE_SYSTEM,           /* composed into the system prompt */
	PLACE_USER,             /* a context block in the current user turn */
	PLACE_DEPTH,            /* its own message inside the conversation */
};

/* What an entry said itself, so that a replacement (-i on a live key)
 * keeps the rest from the entry it replaces (a bit set). */
enum entry_given {
	ENTRY_GIVEN_PRIORITY = 1,
	ENTRY_GIVEN_PLACE = 2,          /* role, placement, depth */
	ENTRY_GIVEN_SCOPE = 4,
	ENTRY_GIVEN_ALL = 7,
};

/*
 * A run of text that came from one place.  When exact, byte k of the
 * run is byte span.off + k of source src; otherwise the whole run stands
 * for span (a string with escapes, a substituted value).
 */
struct seg {
	size_t at;              /* where the run starts in the text */
	uint32_t src;
	struct span span;
	bool exact;
};

/* Text with its origin: segs cover [0, len) in order; nsegs may be 0
 * (generated text: tool prose, outlines). */
struct etext {
	const char *s;
	size_t len;
	const struct seg *segs;
	size_t nsegs;
};

/* Which passes of the rewrite stage apply to an entry (a bit set). */
enum entry_rewrite {
	ENTRY_TEMPLATE = 1,     /* {{NAME}} placeholders are expanded */
	ENTRY_TIDY = 2,         /* trimmed after the passes */
	ENTRY_CRLF = 4,         /* CRLF read as LF (prompt files) */
};

/*
 * Whether a piece of text is in, and why not: the one set for both
 * builds (the SillyTavern build's items, item.h, use it too, with the
 * numbers and details in their notes).  entry_status_name() spells each.
 */
enum entry_status {
	ENTRY_ACTIVE,
	ENTRY_EMPTY,            /* empty or whitespace-only content */
	ENTRY_DISABLED,         /* enabled = false; disabled in the
	                         * preset's prompt_order */
	ENTRY_REPLACED,         /* a later entry took its key; a reply
	                         * that --type regenerate or swipe redoes */
	ENTRY_MISSING,          /* a context with no content given */
	ENTRY_REMOVED,          /* --remove KEY */
	ENTRY_OUT_OF_SCOPE,     /* its scope is not in --scope */
	ENTRY_BUDGET,           /* dropped to fit the token budget */
	/* The SillyTavern build's reasons. */
	ENTRY_TRIGGER,          /* not sent on this generation type */
	ENTRY_INTERVAL,         /* the Author's Note's interval skips it */
	ENTRY_DUPLICATE,        /* an identifier already in prompt_order */
	ENTRY_NOT_PLACED,       /* no place in the prompt takes it */
	ENTRY_MOVED,            /* sent elsewhere (the persona) */
	ENTRY_NO_DEPTH,         /* in-chat without injection_depth */
	ENTRY_DEPTH,            /* a depth the chat does not reach */
	ENTRY_NO_USER_MESSAGE,  /* user context with no user message */
	ENTRY_CONTINUED,        /* the message continued stands instead */
	ENTRY__STATUS_COUNT,
};

struct entry {
	const char *key;
	const char *title;      /* heading for the sections style */
	const char *layer;      /* persona, format, skill, tools, inject, ... */
	const char *content;    /* trimmed; may be NULL when missing */
	size_t len;
	int priority;
	enum role role;
	enum placement placement;
	int depth;              /* PLACE_DEPTH: messages that follow it */
	unsigned given;         /* enum entry_given; all, unless -i */
	enum scope scope;
	bool enabled;
	enum entry_status status;
	bool base;              /* history system text: no heading */
	bool has_src;           /* src/span say where the content is */
	uint32_t src;
	struct span span;
	size_t pos;             /* position among live entries */
	struct entry *replaced_by;      /* when status is ENTRY_REPLACED */
	int message;            /* index of the output message, or -1 */
	unsigned rewrite;       /* enum entry_rewrite */
	struct etext raw;       /* as collected */
	const struct etext *stages;     /* per pass that ran, or NULL */
	size_t nstages;
};

/* A growable list of entries (base/vec.h's shape), in the arena. */
struct entry_vec {
	struct entry **v;
	size_t n, cap;
};

struct stack {
	struct arena *arena;    /* borrowed */
	struct entry **all;     /* every entry offered, in order */
	size_t nall, capall;
	struct entry **live;    /* by position; replaced slots reused */
	size_t nlive, caplive;
	struct map index;       /* key -> position + 1 */
};

void stack_init(struct stack *st, struct arena *a);
/* A new entry with the defaults: priority 100, role system, placement
 * system, scope turn, enabled, everything given. */
struct entry *entry_new(struct arena *a, const char *key, const char *layer);
/* Offer e to the stack (PromptStack add).  A replacement keeps the
 * priority, place and scope of the entry it replaces unless it gave its
 * own (e->given). */
void stack_add(struct stack *st, struct entry *e);
/* PromptStack remove: the live entry of key, marked removed; NULL when
 * there is none. */
struct entry *stack_remove(struct stack *st, const char *key);
/* Mark every live entry whose scope is not in the bit set scopes (1 <<
 * enum scope) out of scope; the history's base text stays. */
void stack_keep_scopes(struct stack *st, unsigned scopes);
/*
 * The active entries of one placement and role, ordered by priority,
 * ties by position.  *out is allocated in the arena.
 */
size_t stack_select(const struct stack *st, enum placement place,
    enum role role, struct entry ***out);
/* The active in-chat entries (PLACE_DEPTH), deepest first, then by
 * priority, ties by position. */
size_t stack_select_depth(const struct stack *st, struct entry ***out);

const char *entry_status_name(enum entry_status s);

/* What is wrong with an injection's place, from entry_place(). */
enum entry_place_error {
	ENTRY_PLACE_OK,
	ENTRY_PLACE_INCHAT_ROLE,        /* developer at a depth */
	ENTRY_PLACE_NEEDS_DEPTH,        /* user or assistant, no depth */
	ENTRY_PLACE_DEPTH,              /* a depth against the position */
	ENTRY_PLACE_ROLE,               /* a role against the position */
};
/*
 * Where an injection goes, from what it gave: position (an index in
 * names_positions, or -1), role (when has_role) and whether it gave a
 * depth.  Sets *role and *place; the one rule for [[inject]] and -i.
 */
enum entry_place_error entry_place(int position, bool has_role,
    enum role *role, bool has_depth, enum placement *place);

/* Set e's raw text (and, until the rewrite stage runs, its content) to
 * s[0..len), all of it from one place. */
void entry_set_raw(struct arena *a, struct entry *e, const char *s,
    size_t len, uint32_t src, struct span span, bool exact);
/*
 * Where text [at, at + len) of t came from: false if t has no origin
 * there.  An exact run gives the bytes' own span (clipped to the run);
 * another gives the run's span.
 */
bool etext_locate(const struct etext *t, size_t at, size_t len,
    uint32_t *src, struct span *span);

/* Trim blank lines and trailing white space; returns the new length and
 * moves *s past leading blank lines. */
size_t entry_trim(const char **s, size_t len);

#endif
