#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static bool
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += k;
		n -= (size_t)k;
	}
	return true;
}

bool
atomic_write(const char *path, const void *data, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp = xmalloc(dirlen + strlen(path + dirlen) + 16);
	mode_t mask;
	int fd, dfd, err;

	memcpy(tmp, path, dirlen);
	/* ".NAME.XXXXXX": hidden, and plainly ours if a crash leaves it. */
	tmp[dirlen] = '.';
	strcpy(tmp + dirlen + 1, path + dirlen);
	strcat(tmp, ".XXXXXX");
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = errno;
		free(tmp);
		errno = err;
		return false;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !write_all(fd, data, len) ||
	    fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	/* Make the rename itself durable; a failure here loses nothing. */
	if (dirlen) {
		char *dir = xstrndup(path, dirlen);

		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		free(dir);
	} else {
		dfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	return true;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = err;
	return false;
}
