/*
 * turn: the pipeline driver for many turns from one loaded profile
 * (strata batch).  assemble_prime() reads the profile's files once into
 * the run's read cache (run.h); assemble_mem() then builds one turn from
 * texts in memory -- the user message, a history as JSON text, context
 * texts, variables, injections -- exactly as build would from the same
 * texts given as options.  Everything a turn makes lives in the run's
 * arena and in sources added to the run; the texts in struct turn are
 * borrowed (they are copied into sources).
 */
#ifndef TURN_H
#define TURN_H

#include <stdbool.h>
#include <stddef.h>

#include "pipeline/assemble.h"
#include "prompt/tool.h"

/* A NAME=TEXT pair of a turn; texts need not be NUL-terminated. */
struct turn_kv {
	const char *name, *text;
	size_t namelen, textlen;
};

struct turn {
	const char *where;              /* names its sources: "in.jsonl:7" */
	const char *user;
	size_t userlen;
	const char *history;            /* a JSON array of messages, or NULL */
	size_t historylen;
	const struct turn_kv *contexts, *vars, *injects;
	size_t ncontexts, nvars, ninjects;
};

/* The layers that depend on the profile alone, collected once (in the
 * run's arena). */
struct turn_prime {
	struct entry **entries;
	size_t n;
	struct tool_list tools;
};

/* Collect the profile's own layers into *pr, reading every file the
 * profile names (into the run's readcache when it is set) and reporting
 * errors in them once.  False if there were any. */
bool assemble_prime(struct run *run, const struct options *opt,
    const struct assembly *as, struct turn_prime *pr);
/* Build turn t into *c.  False (after reporting) on any error. */
bool assemble_mem(struct run *run, const struct options *opt,
    const struct assembly *as, const struct turn_prime *pr,
    const struct turn *t, struct chat *c);

#endif
