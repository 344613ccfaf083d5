/* flock(2) is BSD, not POSIX. */
#define _DEFAULT_SOURCE

#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/path.h"
#include "base/util.h"

/* Tries at locking a path that other writers keep renaming over. */
#define LOCK_TRIES 1000

bool
file_lock_open(const char *path, struct file_lock *lk)
{
	int tries;

	lk->fd = -1;
	for (tries = 0; tries < LOCK_TRIES; tries++) {
		struct stat a, b;
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

		if (fd < 0)
			return false;
		while (flock(fd, LOCK_EX) < 0) {
			if (errno != EINTR) {
				int err = errno;

				close(fd);
				errno = err;
				return false;
			}
		}
		/* Did another writer rename a new file over the path while
		 * we waited?  Then our lock is on a file nobody reads. */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
			if (!S_ISREG(a.st_mode)) {
				close(fd);
				errno = EINVAL;
				return false;
			}
			lk->fd = fd;
			return true;
		}
		close(fd);
	}
	errno = EAGAIN;
	return false;
}

bool
file_lock_read(struct file_lock *lk, struct buf *b)
{
	char chunk[65536];
	ssize_t n;

	if (lseek(lk->fd, 0, SEEK_SET) < 0)
		return false;
	for (;;) {
		n = read(lk->fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		if (n == 0)
			return true;
		buf_put(b, chunk, (size_t)n);
	}
}

void
file_unlock(struct file_lock *lk)
{
	if (lk->fd >= 0)
		close(lk->fd);          /* closing releases the flock */
	lk->fd = -1;
}

static bool
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return false;
		p += n;
		len -= (size_t)n;
	}
	return true;
}

/* The directory part of path, for the temporary file and its sync. */
static char *
dir_of(const char *path)
{
	size_t n = path_dir_len(path);

	return n ? xstrndup(path, n) : xstrdup(".");
}

bool
file_replace(const char *path, const void *data, size_t len)
{
	char *dir = dir_of(path), *tmp;
	struct stat st;
	mode_t mode;
	int fd, dfd, err;
	size_t n = strlen(path) + 16;

	if (stat(path, &st) == 0) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);

		umask(mask);
		mode = 0666 & ~mask;
	}
	tmp = xmalloc(n);
	snprintf(tmp, n, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	if (fchmod(fd, mode) < 0 || !write_all(fd, data, len) ||
	    fsync(fd) < 0) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		goto fail;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		err = errno;
		unlink(tmp);
		errno = err;
		goto fail;
	}
	/* The rename is durable once the directory is synced. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(tmp);
	free(dir);
	return true;
fail:
	err = errno;
	free(tmp);
	free(dir);
	errno = err;
	return false;
}
