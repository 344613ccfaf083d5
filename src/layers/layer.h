/*
 * layer: turns a loaded profile and the command line's inputs into
 * entries -- persona, format, skills (inline and outline), tools,
 * injections, context blocks -- and composes the system prompt from them
 * in one of the four join styles.  The files it reads are sources owned
 * by the run; entries and texts live in the run's arena.
 */
#ifndef LAYER_H
#define LAYER_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/entry.h"
#include "profile/profile.h"

struct buf;
struct run;
struct tool_list;
struct tvars;

/* Content for a [[context]], from -c NAME=FILE. */
struct context_input {
	const char *name;
	const struct source *text;      /* the content, read already */
	const struct source *arg;       /* the -c argument, for messages */
	struct span namespan;
	bool used;
};

/* An -i KEY=TEXT injection. */
struct cli_inject {
	const struct source *arg;
	struct span key, text;
};

struct layer_input {
	struct tvars *vars;
	struct context_input *contexts;
	size_t ncontexts;
	const struct cli_inject *injects;
	size_t ninjects;
	bool check_only;        /* strata check: no -c needed for contexts */
};

/*
 * Offer every layer's entries to st and read the tool definitions into
 * tools.  Reports all errors of the stage; false if any.
 */
bool layer_collect(struct run *run, const struct profile *p,
    struct layer_input *in, struct stack *st, struct tool_list *tools);

/* Compose entries (already ordered) in the given style. */
void layer_compose(struct buf *out, enum style style, struct entry **v,
    size_t n);

#endif
