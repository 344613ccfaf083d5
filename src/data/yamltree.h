/*
 * yamltree: YAML (through libyaml) into the config tree, with YAML 1.2
 * core-schema scalars, anchors and aliases, and spans from libyaml's
 * marks.  One document only; duplicate keys are errors; alias expansion
 * is bounded so that a "billion laughs" document fails fast.  libyaml's
 * parser and events are owned and freed here; the tree lives in the run's
 * arena.
 */
#ifndef YAMLTREE_H
#define YAMLTREE_H

#include <stdbool.h>

struct node;
struct run;
struct source;

/* Parse src into *out.  An empty document (nothing, comments, "---",
 * "~") is an empty table; any other root is returned as it is. */
bool yamltree_parse(struct run *run, struct source *src, struct node **out);

#endif
