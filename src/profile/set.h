/*
 * set: the --set KEY=VALUE overrides, applied to the merged profile tree
 * before it is checked.  KEY is a dotted path of the schema; in an array
 * of tables the part after the array's name is an entry's identity (the
 * longest that matches, as identities may hold dots).  VALUE is typed as
 * the key expects, so a bad value is reported as it would be in a file.
 * Lookups are hashed: n overrides of an array of m entries cost
 * O(n + m), not O(n * m).
 *
 * Ownership: each setting's source is the run's; new nodes live in the
 * run's arena and carry the setting's source and span.
 */
#ifndef SET_H
#define SET_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/source.h"

struct node;
struct run;

/* A NAME=VALUE pair from the command line, kept as its own source so
 * messages can point into it. */
struct setting {
	const struct source *src;
	struct span name, value;
	bool json;              /* --set-json: the value is JSON */
};

/* Apply every setting to root in order; reports each one that fails and
 * returns false if any did. */
bool set_apply(struct run *run, struct node *root,
    const struct setting *sets, size_t n);

#endif
