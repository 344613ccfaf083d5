/*
 * atomic: replace a file all at once.  The bytes go to a temporary file
 * in the same directory (so the rename cannot cross file systems), which
 * is flushed to disk with fsync() and then renamed over the target; the
 * directory is synced too.  A failure at any step removes the temporary
 * file and leaves the target as it was.  This is the base layer: nothing
 * is reported; false comes back with errno set.  The new file's mode is
 * 0666 less the umask, as open(2) would give it.
 */
#ifndef ATOMIC_H
#define ATOMIC_H

#include <stdbool.h>
#include <stddef.h>

bool atomic_write(const char *path, const void *data, size_t len);

#endif
