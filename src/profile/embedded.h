/*
 * embedded: files compiled into the binary -- the default profile and the
 * prompt files it names -- so that `strata build` works in an empty
 * directory.  The table is generated at build time by embedgen from the
 * files under profiles/ and prompts/; the texts are static and never
 * freed.
 */
#ifndef EMBEDDED_H
#define EMBEDDED_H

#include <stddef.h>

/* The text of the embedded file `name` (e.g. "profiles/default.toml"),
 * NUL-terminated, with its length in *len; NULL if there is none. */
const char *embedded_find(const char *name, size_t *len);

#endif
