/*
 * extends: read a profile file and the chain of profiles it extends
 * (at most EXTENDS_MAX, no file twice), and merge them into one tree,
 * base first.  The merge follows the schema: tables merge key by key,
 * arrays of tables merge entry by entry by identity (schema_entry_id),
 * anything else is replaced; giving one side of an exclusive key group
 * drops the base's other side.
 *
 * Ownership: the merge is in place -- the base tree is changed and the
 * overriding tree's nodes move into it, unchanged subtrees are shared,
 * nothing is copied -- so both trees must be the loader's own, fresh
 * from load_file().  Every node and key keeps the span of the file that
 * wrote it, so later errors point there.  All in the run's arena.
 */
#ifndef EXTENDS_H
#define EXTENDS_H

#include "diag/source.h"

#include "data/load.h"

struct arena;
struct node;
struct paths;
struct run;
struct schema;

#define EXTENDS_MAX 32

/*
 * Load the profile at path ("-": standard input) and what it extends,
 * merged; records each file's prompt directory in pd and sets *topdir to
 * the top file's.  fmt is the top file's format (LOAD_TOML, LOAD_YAML),
 * or LOAD_GUESS to tell it by the name, as for every file it extends.
 * Reports errors; returns NULL if there were any.
 */
struct node *extends_load(struct run *run, const char *path,
    enum load_format fmt, struct paths *pd, const char **topdir);

/* Merge over into base (schema s, or NULL for free-form); returns the
 * result, which is base, or over when over replaces it. */
struct node *extends_merge(struct arena *a, struct node *base,
    struct node *over, const struct schema *s);

#endif
