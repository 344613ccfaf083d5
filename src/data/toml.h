/*
 * toml: our own reader for TOML 1.0.0.  It turns one source into a config
 * tree (tree.h) whose tables keep document order; every node and member
 * key carries its span and source id.  Syntax and redefinition errors are
 * reported at the offending text; the reader recovers at the next line
 * (past the rest of a broken multi-line array) and reports up to 20
 * errors, then returns false.  The tree lives in the run's arena.
 *
 * What the tree promises: no node lies deeper than 256 levels below the
 * root, so consumers may recurse; strings are valid UTF-8 but may hold
 * NUL bytes (use len); TOML never yields NODE_NULL.  Table flags: a table
 * made by a [header] is NODE_DEFINED, one made as a header's parent is
 * NODE_IMPLICIT until a header of its own defines it, one made by a
 * dotted key is NODE_IMPLICIT | NODE_DOTTED; inline tables and array
 * literals are NODE_FROZEN; arrays made by [[header]] are NODE_AOT.
 */
#ifndef TOML_H
#define TOML_H

#include <stdbool.h>

struct node;
struct run;
struct source;

/* Parse src into *out (a table).  An empty document is an empty table.
 * On false *out is a partial tree, for nothing but freeing with the
 * arena. */
bool toml_parse(struct run *run, struct source *src, struct node **out);

#endif
