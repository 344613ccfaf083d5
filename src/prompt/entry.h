/*
 * entry: the one model for every piece of text that can reach the model,
 * and the stack that orders them (PromptStack semantics).  Adding a key
 * that is already live replaces it in place -- it keeps its position, so
 * ties keep their order -- and the old entry is kept, marked replaced.
 * Empty or whitespace-only content is never added and never removes a
 * live entry; it is kept, marked empty.  So every entry ever offered is
 * in `all`, with the reason it is in or out, for the debug view.  Entries
 * and the stack's arrays live in the run's arena.
 */
#ifndef ENTRY_H
#define ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prompt/names.h"
#include "diag/source.h"

struct arena;
struct node;

enum placement {
	PLACE_SYSTEM,           /* composed into the system prompt */
	PLACE_USER,             /* a context block in the current user turn */
};

enum entry_status {
	ENTRY_ACTIVE,
	ENTRY_EMPTY,            /* empty or whitespace-only content */
	ENTRY_DISABLED,         /* enabled = false */
	ENTRY_REPLACED,         /* a later entry took its key */
	ENTRY_MISSING,          /* a context with no content given */
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
};

struct stack {
	struct arena *arena;    /* borrowed */
	struct entry **all;     /* every entry offered, in order */
	size_t nall, capall;
	struct entry **live;    /* by position; replaced slots reused */
	size_t nlive, caplive;
	struct node *index;     /* key -> position */
};

void stack_init(struct stack *st, struct arena *a);
/* A new entry with the defaults: priority 100, role system, placement
 * system, scope turn, enabled. */
struct entry *entry_new(struct arena *a, const char *key, const char *layer);
/* Offer e to the stack (PromptStack add). */
void stack_add(struct stack *st, struct entry *e);
/*
 * The active entries of one placement and role, ordered by priority,
 * ties by position.  *out is allocated in the arena.
 */
size_t stack_select(const struct stack *st, enum placement place,
    enum role role, struct entry ***out);

const char *entry_status_name(enum entry_status s);

/* Trim blank lines and trailing white space; returns the new length and
 * moves *s past leading blank lines. */
size_t entry_trim(const char **s, size_t len);

#endif
