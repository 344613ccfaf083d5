/*
 * json_input: test input written as JSON text, read into a config tree
 * in the run's arena (the tree and its source belong to the run).  A
 * text that does not parse is a broken test: it exits.
 */
#ifndef JSON_INPUT_H
#define JSON_INPUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/json.h"
#include "diag/run.h"

static inline struct node *
json_input(struct run *run, const char *text)
{
	struct source *src;
	struct node *n = NULL;

	src = run_source_mem(run, "t.json", text, strlen(text));
	if (!json_parse(run, src, &n)) {
		fprintf(stderr, "cannot parse test input:\n%s\n", text);
		exit(1);
	}
	return n;
}

#endif
