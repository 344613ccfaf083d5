/*
 * rewrite: the rewrite stage -- an ordered list of passes over the
 * entries' texts (before arrange decides what is in: a text that expands
 * to nothing is skipped, as an empty one is) and over the arranged
 * messages.  Today's plan is two entry passes: placeholders ({{NAME}},
 * text/template.h) and tidy (CRLF to LF for prompt files, then trim).
 * SillyTavern's stages plug in as further passes of the plan -- regex
 * before macros, macros, regex after macros, per-message depth rules --
 * with no change to the driver.
 *
 * Every pass reads a struct etext and writes one (text/edit.h keeps the
 * origin runs), so an error in text an earlier pass produced still
 * points at its file and line.  Each pass's output is kept: entry and
 * message `stages[i]` is the text after the plan's i-th pass of that
 * kind, for a per-stage view.  A message pass sees a history message's
 * text as standing for its element of the -H file; composed messages
 * carry no origin runs yet (their entries' runs are the place to add
 * them, with compose_entries()' starts).  All texts live in the run's
 * arena.
 */
#ifndef REWRITE_H
#define REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/chat.h"
#include "prompt/entry.h"

struct profile;
struct run;
struct tvars;

/* What a pass may read besides the text. */
struct rewrite_ctx {
	struct run *run;
	const struct profile *profile;
	struct tvars *vars;     /* [vars] and -v; passes mark use */
};

struct rewrite_pass {
	const char *name;       /* "placeholders": the stage's name */
	/* Entries whose rewrite bits (enum entry_rewrite) meet these. */
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
};

/* The passes of the standard plan. */
extern const struct rewrite_pass rewrite_placeholders;
extern const struct rewrite_pass rewrite_tidy;

struct rewrite_plan {
	const struct rewrite_pass *const *passes;
	size_t n;
};

/* The plan for profile p (today the same for every profile). */
void rewrite_plan_for(const struct profile *p, struct rewrite_plan *plan);

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

#endif
