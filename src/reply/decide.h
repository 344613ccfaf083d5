/*
 * decide: read what a model answered -- a planner's decision (seed 004,
 * Fay) or an importance score -- as tolerantly as a tool loop needs and
 * no more.  A planner must answer {"action": "tool", "tool": NAME,
 * "args": {...}} or {"action": "finish", "message": TEXT}; models wrap
 * that in <think> blocks, Markdown fences and prose, and bend JSON
 * (jsonish.h says how far that is forgiven).
 *
 * The steps, in order:
 *   1. <think>...</think> blocks are set aside (an unclosed <think> hides
 *      the rest of the text; a lone </think> hides what is before it);
 *   2. the text inside Markdown fences (``` or ~~~) is tried first, then
 *      the whole text;
 *   3. at each { or [ in turn, one value is read: the first object with
 *      an "action" key (or array holding one) is the decision;
 *   4. the decision is checked: action is "tool" or "finish" (any case,
 *      trimmed); finish needs a string message; tool needs a tool name
 *      -- one of tools, when the caller has a list -- and args, an object
 *      (or a string holding one; missing args read as {}), valid against
 *      that tool's JSON Schema (args.h).
 *
 * Problems are reported at the model's own text (path:line:col of the
 * input) and the first one is kept in why, for the error object a loop
 * reads.  Everything lives in the run's arena; the decision borrows the
 * source and the tools.
 */
#ifndef DECIDE_H
#define DECIDE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct node;
struct run;
struct source;
struct tool_list;

enum decide_action {
	DECIDE_TOOL,
	DECIDE_FINISH,
};

struct decision {
	enum decide_action action;
	const char *tool;               /* DECIDE_TOOL */
	const struct node *args;        /* DECIDE_TOOL: a table */
	const char *message;            /* DECIDE_FINISH */
	size_t message_len;
	const char *why;                /* on failure: the first problem */
};

/* A span of text set aside (a <think> block). */
struct decide_range {
	size_t off, end;
};

/*
 * Find and check the decision in src.  tools may be NULL: any tool name
 * is then accepted and args are only checked to be an object.
 */
bool decide_parse(struct run *run, const struct source *src,
    const struct tool_list *tools, struct decision *d);

/* The normalized decision: {"action":"tool","tool":..,"args":{..}} or
 * {"action":"finish","message":..}. */
struct node *decide_tree(struct arena *a, const struct decision *d);
/* The error object printed when nothing usable was found:
 * {"action":"error","error":WHY,"raw":TEXT}. */
struct node *decide_error_tree(struct arena *a, const char *why,
    const struct source *src);

/*
 * The <think> blocks of s[0..n), in order, into *out (arena); returns
 * their number.  Shared with the history clean-up.
 */
size_t decide_think_ranges(struct arena *a, const char *s, size_t n,
    struct decide_range **out);

/*
 * An importance score: an integer in [lo, hi] found in the answer -- a
 * JSON object's score/importance/rating/poignancy field, a number after
 * such a label (also 评分, 分数, 重要性, 打分), N/10, or the only integer in
 * the text -- <think> blocks set aside.  Reports and returns false when
 * there is none, several disagree, or it is out of range.  *why as for
 * decisions.
 */
bool decide_score(struct run *run, const struct source *src, int lo,
    int hi, int *out, const char **why);

#endif
