/*
 * paths: where the files a profile names are.  Each profile file of an
 * extends chain has a prompt directory -- its prompt.dir, else prompts/
 * beside it, else ../prompts/, else the one of the profile it extends --
 * and a relative path resolves against the directory of the file that
 * wrote it.  A path given with --set resolves like the top profile's; a
 * --set prompt.dir (relative to the current directory) wins for every
 * file.  Files of the embedded default profile are read from the binary.
 *
 * Ownership: a struct paths lives in the run's arena, made by the profile
 * loader and then owned (privately) by the struct profile; it copies the
 * directory strings it is given into the arena.
 */
#ifndef PATHS_H
#define PATHS_H

#include <stdbool.h>
#include <stdint.h>

struct arena;
struct node;
struct run;
struct source;

struct paths;

struct paths *paths_new(struct arena *a);
/* Record the prompt directory of the profile file with source id src. */
void paths_add(struct paths *pd, uint32_t src, const char *dir,
    bool embedded);
/* Is src a profile file's source (rather than --set's)? */
bool paths_known(const struct paths *pd, uint32_t src);
/* The directory of paths that no profile file wrote (from --set). */
void paths_set_top(struct paths *pd, const char *dir, bool embedded);
/* Apply a prompt.dir node: when it came from the command line rather than
 * a profile file, it becomes every file's directory. */
void paths_override(struct arena *a, struct paths *pd, const struct node *d);

/*
 * The prompt directory of profile file src whose own tree is t; inherited
 * is the one of the profile it extends (or NULL).
 */
char *paths_prompt_dir(struct arena *a, const char *srcpath,
    const struct node *t, const char *inherited);
/* The top profile's prompt directory; NULL when it is the embedded
 * profile's. */
const char *paths_top(const struct paths *pd);
/* dir/path, tidied ("a/./b/../c" is "a/c") unless that would name another
 * file through a symbolic link; an absolute path is kept. */
char *paths_join(struct arena *a, const char *dir, const char *path);
/* The same file, by name or by device and inode. */
bool paths_same_file(const char *a, const char *b);

/*
 * Resolve / open path, written at node at (NULL: from nowhere, such as a
 * default).  Errors are reported at at; paths_open() returns NULL then.
 */
const char *paths_resolve(struct run *run, const struct paths *pd,
    const char *path, const struct node *at);
struct source *paths_open(struct run *run, const struct paths *pd,
    const char *path, const struct node *at);

#endif
