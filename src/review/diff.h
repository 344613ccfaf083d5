/*
 * review: what changed between two build results (`strata build -f
 * json`), by layer rather than by line -- entries added, removed,
 * changed, moved, skipped now or no longer; tools and their schema
 * properties; parameters; each message's size -- and where the prefix a
 * provider caches stops being shared.  review_compare() reads the two
 * documents into a struct review of change records; diff_text.c prints
 * them as text, a --stat summary or JSON.  Records and their strings
 * live in the run's arena; the documents are borrowed and must outlive
 * the review.
 */
#ifndef REVIEW_DIFF_H
#define REVIEW_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct buf;
struct node;
struct run;

enum review_kind {
	REVIEW_ADDED,           /* an entry or tool NEW has and OLD not */
	REVIEW_REMOVED,
	REVIEW_CHANGED,         /* an entry's text, a tool's schema */
	REVIEW_MOVED,           /* priority, message or place in it */
	REVIEW_SKIPPED,         /* active in OLD, not in NEW: why */
	REVIEW_UNSKIPPED,       /* the other way round */
	REVIEW_PARAM,           /* a parameter, the model, max_tokens */
	REVIEW_MESSAGE,         /* a message's size */
};

/* What changed: a profile build's entry, a SillyTavern build's item
 * (prompt, card field, world-info entry, chat message; its layer is its
 * source), a tool, or something else. */
enum review_what { REVIEW_ENTRY, REVIEW_ITEM, REVIEW_TOOL, REVIEW_OTHER };

struct review_change {
	enum review_kind kind;
	enum review_what what;
	const char *name;       /* entry key, tool or parameter name */
	const char *layer;      /* entries: their layer */
	const char *detail;     /* "priority 100 -> 900", a reason, ... */
	/* Entries: the texts compared (NULL when unknown); parameters:
	 * the values as JSON (NULL when absent). */
	const char *old, *new;
	size_t oldlen, newlen;
	/* Messages: index, role, bytes and estimated tokens before and
	 * after (-1: the message is absent on that side). */
	size_t index;
	const char *role;
	int64_t oldbytes, newbytes, oldtokens, newtokens;
};

struct review {
	struct review_change *v;
	size_t n, cap;
	const char *provider;   /* whose cache order: "anthropic", ... */
	/* Where the shared prefix ends: same, or at tool `tool`, or at
	 * message `msg` (byte `byte` of its content, inside entry `entry`
	 * when one is found there). */
	bool prefix_same;
	const char *prefix_tool;
	size_t prefix_msg, prefix_byte;
	const char *prefix_entry;
};

/* Compare build results old and new into *r.  False, after reporting,
 * when either is not a strata -f json document. */
bool review_compare(struct run *run, const struct node *old,
    const struct node *new, struct review *r);
/* Do they differ at all (exit status 1 of strata diff). */
bool review_differ(const struct review *r);

/* Print r: by layer, with unified diffs of entry texts (word-level for
 * one-line texts), coloured when color; or one line per change (stat);
 * or as JSON. */
void review_text(struct run *run, const struct review *r, bool color,
    struct buf *out);
void review_stat(struct run *run, const struct review *r, bool color,
    struct buf *out);
void review_json(struct run *run, const struct review *r, struct buf *out);
/* The inspector page (diff_html.c, emit/emit_html.h): the prefix, the
 * changes by layer, and the messages of old and new side by side. */
void review_html(struct run *run, const struct review *r,
    const struct node *old, const struct node *new, const char *oldname,
    const char *newname, struct buf *out);
/* Count the lines added and removed between two texts. */
void review_count(const char *a, size_t alen, const char *b, size_t blen,
    size_t *added, size_t *removed);

#endif
