#include "diag/run.h"

#include <stdlib.h>

#include "diag/source.h"

void
run_init(struct run *run)
{
	arena_init(&run->arena);
	diag_init(&run->diag);
	run->sources = NULL;
	run->nsources = run->capsources = 0;
}

void
run_free(struct run *run)
{
	size_t i;

	for (i = 0; i < run->nsources; i++)
		source_free(run->sources[i]);
	free(run->sources);
	run->sources = NULL;
	run->nsources = run->capsources = 0;
	arena_free(&run->arena);
}
