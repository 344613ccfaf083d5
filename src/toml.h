/*
 * toml: our own reader for TOML 1.0.0.  It turns one source into a config
 * tree (tree.h) whose tables keep document order; every node carries its
 * span.  Syntax and redefinition errors are reported at the offending
 * byte; the reader recovers at the next line and reports up to a limit,
 * then returns false.  The tree lives in the run's arena.
 */
#ifndef TOML_H
#define TOML_H

#include <stdbool.h>

struct node;
struct run;
struct source;

/* Parse src into *out (a table).  An empty document is an empty table. */
bool toml_parse(struct run *run, struct source *src, struct node **out);

#endif
