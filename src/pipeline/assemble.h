/*
 * assemble: the pipeline driver shared by build, debug and check.  It
 * loads the profile, reads the inputs the command line names (user text,
 * history, contexts; inputs.c), collects the layers into entries
 * (collect.c), rewrites them (rewrite.h), arranges them into messages
 * (arrange.c) and rewrites those.  Every stage reports all its errors,
 * then the driver stops.  The result lives in the run's arena.
 */
#ifndef ASSEMBLE_H
#define ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "prompt/chat.h"
#include "profile/profile.h"

struct run;

/* A NAME=VALUE argument (-c, -v, -s, -i) as typed. */
struct kv {
	const char *opt;        /* "--context", ... for messages */
	const char *arg;
};

struct options {
	const char *profile;    /* NULL: the embedded default */
	const char *user;       /* -u TEXT, "-" for stdin, or NULL */
	const char *history;    /* -H FILE, "-" for stdin, or NULL */
	const char *format;     /* -f, or NULL */
	struct kv *contexts, *vars, *sets, *injects;
	size_t ncontexts, nvars, nsets, ninjects;
	struct kv *images;      /* --image FILE|URL, in order */
	size_t nimages;
	bool check_only;        /* strata check */
	bool json;              /* debug --json */
};

/* Run the pipeline into *chat.  False (after reporting) on any error. */
bool assemble(struct run *run, const struct options *opt, struct chat *chat);

/* Where "-" is used more than once: a usage error, found before any
 * reading.  Returns the name of the second option, or NULL. */
const char *assemble_stdin_clash(const struct options *opt);

#endif
