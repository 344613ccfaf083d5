/*
 * path: the pieces of a file name, taken apart and put together in one
 * place -- the last component, the directory, the stem, a join.  Only
 * the text is looked at ('/' separates components); nothing here touches
 * the file system or reports.
 *
 * Ownership: path_base() returns a pointer into its argument; the others
 * return strings in the arena given (path_join() may return one of its
 * arguments unchanged).
 */
#ifndef PATH_H
#define PATH_H

#include <stddef.h>

struct arena;

/* The part of path after its last '/' (all of path when it has none). */
const char *path_base(const char *path);
/* The length of path's directory part: 0 when path has no '/' (its
 * directory is "."), 1 for "/NAME", else up to its last '/'. */
size_t path_dir_len(const char *path);
/* path's directory: ".", "/", or the text before its last '/'. */
char *path_dir(struct arena *a, const char *path);
/* The length of path's last component less its extension (from its last
 * '.', unless that '.' begins the component). */
size_t path_stem_len(const char *path);
/* That stem, copied. */
char *path_stem(struct arena *a, const char *path);
/* path's last component, less suffix ext when it ends with it and is
 * longer than it ("chat.jsonl" less ".jsonl": "chat"). */
char *path_name(struct arena *a, const char *path, const char *ext);
/* dir/name, or name alone when dir is "" or "." or name is absolute, or
 * dir alone when name is "". */
const char *path_join(struct arena *a, const char *dir, const char *name);

#endif
