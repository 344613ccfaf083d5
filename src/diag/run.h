/*
 * run: the state of one invocation.  main() creates one struct run per
 * command and passes it, explicitly and first, to every stage.  The run
 * owns its arena (all pipeline data), its diagnostics, and every source
 * text it has read; run_free() releases all of it.
 */
#ifndef RUN_H
#define RUN_H

#include <stddef.h>

#include "base/arena.h"
#include "diag/diag.h"

struct source;

struct run {
	struct arena arena;
	struct diag diag;
	struct source **sources;        /* owned; index = source id */
	size_t nsources, capsources;
};

void run_init(struct run *run);
void run_free(struct run *run);

#endif
