/*
 * load: read a file into the config tree with the reader its name calls
 * for -- .toml, .yaml/.yml, .json.  The source is owned by the run, the
 * tree by the run's arena.
 */
#ifndef LOAD_H
#define LOAD_H

#include <stdbool.h>

#include "diag/source.h"

struct node;
struct run;

enum load_format {
	LOAD_GUESS,             /* by the file name */
	LOAD_TOML,
	LOAD_YAML,
	LOAD_JSON,
};

/*
 * Read path and parse it.  from/at: where the path was named (for the
 * message when it cannot be read); from may be NULL.  On success *out is
 * the tree and, if srcp is not NULL, *srcp the source.
 */
bool load_file(struct run *run, const char *path, enum load_format fmt,
    const struct source *from, struct span at, struct node **out,
    struct source **srcp);
bool load_source(struct run *run, struct source *src, enum load_format fmt,
    struct node **out);
/* The format a file name implies; LOAD_GUESS if none. */
enum load_format load_format_of(const char *path);

#endif
