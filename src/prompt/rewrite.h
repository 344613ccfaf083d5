/*
 * rewrite: the rewrite stage both dialects run -- an ordered list of
 * passes over texts (a plan) and the one driver that runs it.  Each
 * dialect owns its plan and its passes, in its own layer: the profile
 * build's (placeholders, tidy: pipeline/rewrite.h) over entries before
 * arrange decides what is in and over the arranged messages; the
 * SillyTavern build's (regex-pre, macros, regex-post: tavern/
 * tbuild_rewrite.c) over each text it meets, at the moment SillyTavern
 * runs each stage on that kind of text.  The plan types and the driver
 * sit here, in the model both builds share, so one driver runs both.
 * A new pass is its file and one line in its dialect's plan.
 *
 * Every pass reads a struct etext and writes one (text/edit.h keeps the
 * origin runs), so an error in text an earlier pass produced still
 * points at its file and line.  Each pass's output is kept: entry and
 * message `stages[i]` is the text after the plan's i-th pass of that
 * kind; a dialect's own texts are handed to its record hook after each
 * pass (the SillyTavern build keeps them as an item's stages,
 * prompt/item.h).  A message pass sees a history message's text as
 * standing for its element of the -H file; composed messages carry no
 * origin runs yet.  Passes read their dialect's state through the
 * context's opaque pointer; the driver never looks inside it.  All
 * texts live in the run's arena.
 */
#ifndef REWRITE_H
#define REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/chat.h"
#include "prompt/entry.h"

struct run;
struct rewrite_pass;

/* What a pass may read besides the text. */
struct rewrite_ctx {
	struct run *run;
	/* The dialect's state (the profile build's struct rewrite_profile,
	 * the SillyTavern build's struct tb), borrowed: only the
	 * dialect's passes and hook read it. */
	void *dialect;
	/* Called by rewrite_text() after each pass that ran over what,
	 * with the text before and after it; NULL: nothing recorded. */
	void (*record)(const struct rewrite_ctx *cx, const void *what,
	    const struct rewrite_pass *pass, const struct etext *in,
	    const struct etext *out);
};

struct rewrite_pass {
	const char *name;       /* "placeholders": the stage's name */
	/* Texts whose kind bits meet these (entries: enum entry_rewrite;
	 * a dialect's texts: its own set). */
	unsigned applies;
	/* Rewrite an entry's text in into *out (out = in: no change).
	 * Reports its errors; false if any.  NULL: not an entry pass. */
	bool (*entry)(const struct rewrite_ctx *cx, const struct entry *e,
	    const struct etext *in, struct etext *out);
	/* The same for a message; depth counts messages from the end of
	 * the chat (the last is 0).  NULL: not a message pass. */
	bool (*message)(const struct rewrite_ctx *cx,
	    const struct message *m, size_t depth, const struct etext *in,
	    struct etext *out);
	/* The same for a text of the dialect's own, what (the dialect's
	 * description of it: its kind, where it goes).  NULL: not a text
	 * pass. */
	bool (*text)(const struct rewrite_ctx *cx, const void *what,
	    const struct etext *in, struct etext *out);
	/* Where the dialect records the output of its text passes (the
	 * SillyTavern build: an enum item_stage); rewrite_text() runs the
	 * passes in a range of it.  0 for entry and message passes. */
	unsigned stage;
};

struct rewrite_plan {
	const struct rewrite_pass *const *passes;
	size_t n;
};

/*
 * Run the plan's entry passes over v[0..n) in order, recording stages
 * and leaving each entry's final text in content/len.  Every entry is
 * rewritten (errors of all are reported); false if any failed.
 */
bool rewrite_entries(const struct rewrite_ctx *cx,
    const struct rewrite_plan *plan, struct entry **v, size_t n);
/* Run the plan's message passes over the chat's messages (nothing to do,
 * and nothing allocated, when the plan has none). */
bool rewrite_messages(const struct rewrite_ctx *cx,
    const struct rewrite_plan *plan, struct chat *c);
/*
 * Run the plan's text passes whose stage is in [from, to], in order,
 * over in into *out: a pass whose applies misses kind leaves the text
 * as it is.  cx->record sees each of them (those that did not apply
 * too, so a record holds every stage).  false if a pass failed.
 */
bool rewrite_text(const struct rewrite_ctx *cx,
    const struct rewrite_plan *plan, unsigned from, unsigned to,
    unsigned kind, const void *what, const struct etext *in,
    struct etext *out);

/* Set m's text; text parts kept for the shape of a list (history.c)
 * are dropped when the text changes, so the new text is what is sent. */
void message_set_text(struct run *run, struct message *m, const char *s,
    size_t len);

#endif
