/*
 * globals: a global variables file (build --globals FILE): one JSON
 * object, name -> value, that every session of a user shares, as
 * SillyTavern's settings.json keeps variables.global.  globals_load()
 * reads it (a missing or empty file is no variables); globals_update()
 * writes the variables a build changed into it the way sessions are
 * written (session.h): under an exclusive lock, the file read afresh,
 * the changes laid over what it holds now (another build may have
 * written since), replaced atomically.  A file that is not a JSON
 * object is reported at its line and never written over.
 *
 * Ownership: trees live in the run's arena.
 */
#ifndef GLOBALS_H
#define GLOBALS_H

#include <stdbool.h>

struct node;
struct run;

bool globals_load(struct run *run, const char *path, struct node **out);
bool globals_update(struct run *run, const char *path,
    const struct node *changed);

#endif
