/*
 * file: writing files so that no reader and no crash ever sees half of
 * one.  file_replace() writes a temporary file in the same directory,
 * syncs it, renames it over the target and syncs the directory: after a
 * crash or a kill at any point the target holds either its old bytes or
 * the new ones.  file_lock_open() gives a writer the file under an
 * exclusive flock(2), re-opening when another writer renamed a new file
 * in meanwhile, so that read-modify-write cycles of several processes
 * serialise and none works from a stale copy.
 *
 * Nothing here reports: failures return false with errno set, and the
 * caller says what it was doing.  Buffers returned belong to the caller
 * (free()); a struct file_lock is released by file_unlock().
 */
#ifndef FILE_H
#define FILE_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

struct file_lock {
	int fd;                 /* open on the locked file, or -1 */
};

/*
 * Lock path for writing: create it (empty, mode 0666 & ~umask) if it
 * does not exist, take an exclusive lock, and make sure the lock is on
 * the file the path names now.  Blocks while another process holds it.
 */
bool file_lock_open(const char *path, struct file_lock *lk);
/* The locked file's bytes, appended to b. */
bool file_lock_read(struct file_lock *lk, struct buf *b);
void file_unlock(struct file_lock *lk);

/*
 * Replace path with data[0..len) atomically (see above).  The new file
 * keeps the old one's permission bits (0666 & ~umask for a new file).
 */
bool file_replace(const char *path, const void *data, size_t len);

#endif
