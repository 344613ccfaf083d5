/*
 * budget: the token budget of a profile build.  The budget is the prompt
 * tokens a request may use: [budget] max_tokens (--budget, --set
 * budget.max_tokens), else the model's context window ([output] context,
 * else the built-in model table, budget_models.c) less the reply's
 * max_tokens.  budget_fit() runs after the stack has decided what is
 * live and before arrange: it counts every live entry, the history by
 * whole turns, the user's text, the tools and the per-message overheads
 * once, keeps what it can in priority order, and drops, truncates or
 * replaces by its fallback what it cannot.  Protected entries (and the
 * first budget.keep_first history messages) are never cut; when they
 * alone are over the budget the build fails, naming them.  Every cut is
 * recorded in a struct budget_report that the debug view, -f json and
 * strata diff read (chat.budget).
 *
 * The fitting itself, budget_order(), works on plain items so that a
 * property test can drive it; it is linear after one sort of the
 * entries (history turns are already in order).
 *
 * Ownership: the report, its cuts and every text it makes live in the
 * run's arena and borrow the entries.
 */
#ifndef BUDGET_H
#define BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "prompt/chat.h"

struct run;
struct inputs;
struct options;

/* One model of the table: names that begin with prefix (after an
 * optional "provider/" and before an optional ":tag"). */
struct budget_model {
	const char *prefix;
	int64_t context;        /* the context window, in tokens */
	int64_t reply;          /* the model's largest reply */
	const char *tokenizer;  /* "o200k_base", "cl100k_base", or NULL:
	                         * strata estimates */
	const char *family;     /* "OpenAI", "Anthropic", "Gemini", "open" */
};

/* The table's row for model (the longest prefix that matches), or NULL. */
const struct budget_model *budget_model(const char *model);
/* The whole table, for the manual's check (test_budget). */
const struct budget_model *budget_models(size_t *n);

/* ---- the fitting, on plain items -------------------------------------- */

enum budget_fate {
	BUDGET_KEPT,
	BUDGET_DROPPED,
	BUDGET_TRUNCATED,
	BUDGET_FALLBACK,
};

struct budget_item {
	int priority;           /* lower is more important */
	size_t seq;             /* ties: lower first */
	bool protect;
	bool turn;              /* a history turn: once one is cut, every
	                         * later turn (older) is cut too */
	enum cut_how cut;
	size_t cost;            /* tokens in full */
	size_t fallback;        /* tokens with the fallback; SIZE_MAX: none */
	size_t extra;           /* what a truncation adds (marker, line) */
	/* out */
	enum budget_fate fate;
	size_t kept;            /* tokens the item costs as kept (0: cut) */
	size_t left;            /* the room left when it was weighed */
	void *ref;              /* the caller's */
};

/* The cost of an item whose cost is SIZE_MAX, when it is weighed. */
typedef size_t budget_cost_fn(void *ctx, struct budget_item *it);

/*
 * Fit v[0..n) into room tokens: the protected ones first (their sum must
 * fit: else false, *need set to it), then the others by (priority, seq),
 * each kept whole if it fits, else given its fallback, else truncated to
 * what is left (when at least one token of text fits besides extra),
 * else dropped.  A turn that does not fit is dropped with every turn
 * after it, which are never weighed: the turns must come in (priority,
 * seq) order, and one whose cost is SIZE_MAX is counted by cost(ctx)
 * only when weighed.  *used is what the kept items cost.
 */
bool budget_order(struct budget_item *v, size_t n, size_t room,
    size_t *used, size_t *need, budget_cost_fn *cost, void *ctx);

/* ---- the report ------------------------------------------------------- */

/* One entry or run of history messages cut. */
struct budget_cut {
	enum budget_fate fate;          /* never BUDGET_KEPT */
	const char *key;                /* an entry's, or NULL: history */
	const char *layer;              /* "history" for messages */
	int priority;
	bool base;                      /* no priority to show */
	const char *how;                /* "head" or "tail" when truncated */
	size_t was, now;                /* tokens before and after */
	/* When it was weighed (history: the newest turn cut, weighed
	 * first): what it would have cost in place, headings, separators
	 * and overheads included, and the budget's tokens still left. */
	size_t need, left;
	bool counted;                   /* was is known (history: only
	                                 * the turns counted) */
	size_t first, last;             /* history: messages, 1-based */
	size_t turns;
	bool has_src;
	uint32_t src;
	struct span span;
	size_t seq;                     /* the order cuts were made in */
};

struct budget_layer {
	const char *layer;
	size_t tokens;
};

struct budget_report {
	bool on;                /* a budget was applied */
	bool shown;             /* the debug view and -f json show it */
	int64_t budget;         /* the prompt tokens allowed */
	int64_t room;           /* the budget less the margin */
	const char *from;       /* where the budget came from, in words */
	const char *none;       /* !on: why there is none */
	const char *counter;    /* "o200k_base" ... or "estimate" */
	bool exact;
	int margin;             /* percent, for estimates */
	size_t used;
	size_t protected_tokens;
	struct budget_layer *layers;
	size_t nlayers;
	struct budget_cut *cuts;
	size_t ncuts;
	size_t history_cut;     /* messages */
};

/*
 * The budget stage: fit the live entries of c->stack and the history in
 * in->hist (which it shortens) before arrange().  Errors (protected
 * entries over the budget) are reported; false then.  c->budget is set
 * in every case but the error.
 */
bool budget_fit(struct run *run, const struct options *opt,
    const struct profile *p, struct inputs *in, struct chat *c);

/* The report's cuts and totals in one line for stderr, or NULL when
 * nothing was cut. */
const char *budget_summary(struct run *run, const struct budget_report *r);

#endif
