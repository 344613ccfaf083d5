/*
 * layer: turns a loaded profile and the command line's inputs into
 * entries -- the prefix, persona, format, skills (inline and outline),
 * tools, injections, context blocks -- in that order.  Entries come out
 * with their raw text and where it came from; the rewrite stage
 * (pipeline/rewrite.h) expands and tidies them, and compose.h joins them.
 * The files the layers read are sources owned by the run; entries and
 * texts live in the run's arena.
 */
#ifndef LAYER_H
#define LAYER_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/entry.h"
#include "profile/profile.h"

struct agent_state;
struct run;
struct tool_list;

/* Content for a [[context]], from -c NAME=FILE. */
struct context_input {
	const char *name;
	const struct source *text;      /* the content, read already */
	const struct source *arg;       /* the -c argument, for messages */
	struct span namespan;
};

/* An -i KEY=TEXT or KEY@ATTR=VALUE:...=TEXT injection: what it gave is
 * in given (enum entry_given); the rest keeps the defaults, or, when it
 * replaces a live entry, that entry's values. */
struct cli_inject {
	const struct source *arg;
	struct span key, text;
	int priority, depth;
	enum role role;
	enum placement placement;
	enum scope scope;
	unsigned given;
};

struct layer_input {
	const struct context_input *contexts;
	size_t ncontexts;
	const struct cli_inject *injects;
	size_t ninjects;
	bool check_only;        /* strata check: no -c needed for contexts */
	/* For an [agent] profile (agent.h): the loop state, and -u. */
	const struct agent_state *state;        /* may be NULL */
	const struct source *user;              /* may be NULL */
};

/*
 * Append every layer's entries to out, in layer order, and read the tool
 * definitions into tools.  Reports all errors of the stage; false if any.
 */
bool layer_collect(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out,
    struct tool_list *tools);
/* The same in two steps: the layers that depend on the profile alone
 * (prefix, persona, format, skills, tools), then those that depend on
 * the turn's inputs (injections, contexts).  strata batch collects the
 * first once. */
bool layer_collect_profile(struct run *run, const struct profile *p,
    struct entry_vec *out, struct tool_list *tools);
bool layer_collect_turn(struct run *run, const struct profile *p,
    const struct layer_input *in, struct entry_vec *out);

#endif
