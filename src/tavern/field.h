/*
 * field: typed reads of SillyTavern's JSON assets (presets, settings,
 * chat metadata).  Each reader takes a table and a key, gives the
 * default when the key is absent or null, and reports a value of the
 * wrong type at its span (and returns false).  Strings are borrowed from
 * the tree, which lives in the run's arena.
 */
#ifndef FIELD_H
#define FIELD_H

#include <stdbool.h>
#include <stdint.h>

struct node;
struct run;
struct source;

bool field_str(struct run *run, const struct node *t, const char *key,
    const char *def, const char **out);
/* An integer; a float with an integral value counts, as does a numeric
 * string (SillyTavern's settings hold both). */
bool field_int(struct run *run, const struct node *t, const char *key,
    int64_t def, int64_t *out);
bool field_bool(struct run *run, const struct node *t, const char *key,
    bool def, bool *out);
/* The table (or NULL when absent or null); wrong types are reported. */
bool field_table(struct run *run, const struct node *t, const char *key,
    const struct node **out);
bool field_array(struct run *run, const struct node *t, const char *key,
    const struct node **out);
/* A number kept as its node (sampler fields): NULL when absent. */
const struct node *field_number(const struct node *t, const char *key);

/* Read the file at path for a SillyTavern asset; named is where a
 * profile named it (a file it cannot read is reported there, and it
 * must be a regular file), or NULL: the command line did. */
struct source *field_read(struct run *run, const char *path,
    const struct node *named);
/* Read a JSON file that must hold an object (named: as field_read());
 * what names it in messages ("a preset"). */
bool field_load(struct run *run, const char *path, const struct node *named,
    const char *what, struct node **out);

#endif
