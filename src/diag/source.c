/* MAP_ANONYMOUS is not POSIX. */
#define _DEFAULT_SOURCE

#include "diag/source.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/util.h"

static struct source *
add(struct sources *reg, const char *path, char *text, size_t len)
{
	struct source *src = xcalloc(1, sizeof(*src));

	if (reg->n == reg->cap) {
		reg->cap = reg->cap ? reg->cap * 2 : 8;
		reg->v = xreallocarray(reg->v, reg->cap, sizeof(*reg->v));
	}
	src->id = (uint32_t)reg->n;
	src->path = xstrdup(path);
	src->text = text;
	src->len = len;
	reg->v[reg->n++] = src;
	return src;
}

/*
 * The mapped sources, for the SIGBUS handler: a mapped file truncated
 * while we read it raises SIGBUS on a page past its new end, and the
 * handler maps zero pages over the rest of that mapping so that the
 * access reads zeros.  A fixed table: the files mapped are a run's
 * cards, a handful; past MAPS_MAX files are read.
 */
#define MAPS_MAX 16

static struct mapping {
	char *volatile at;      /* NULL: a free slot */
	size_t size;            /* whole pages */
} maps[MAPS_MAX];
static size_t page_size;

static void
on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	char *a = si->si_addr, *from;
	size_t i;

	(void)ctx;
	if (si->si_code > 0)    /* from the kernel, not kill(2) */
		for (i = 0; i < MAPS_MAX; i++) {
			if (!maps[i].at || a < maps[i].at ||
			    a >= maps[i].at + maps[i].size)
				continue;
			from = maps[i].at + ((size_t)(a - maps[i].at) &
			    ~(page_size - 1));
			if (mmap(from, (size_t)(maps[i].at + maps[i].size -
			    from), PROT_READ | PROT_WRITE, MAP_PRIVATE |
			    MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
				return;
			break;
		}
	/* Not ours: die of it as without this handler. */
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Map regular file fd of len bytes (see sources_read() in source.h), NUL-
 * terminated; NULL when it is not a PNG file to map or cannot be.
 */
static char *
map_file(int fd, size_t len, size_t *mapped)
{
	static bool handled;
	struct sigaction sa;
	char sig[8], *p;
	size_t i;

	if (!page_size)
		page_size = (size_t)sysconf(_SC_PAGESIZE);
	/* A length that fills its last page leaves no byte of the mapping
	 * for the NUL. */
	if (len < SOURCE_MAP_MIN || len % page_size == 0 ||
	    pread(fd, sig, 8, 0) != 8 ||
	    memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0)
		return NULL;
	for (i = 0; i < MAPS_MAX && maps[i].at; i++)
		;
	if (i == MAPS_MAX)
		return NULL;
	if (!handled) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, NULL) < 0)
			return NULL;
		handled = true;
	}
	/* Private and writable: the NUL goes into a private copy of the
	 * last page; nothing else is written. */
	p = mmap(NULL, len + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*mapped = (len + page_size) & ~(page_size - 1);
	maps[i].size = *mapped;
	maps[i].at = p;
	p[len] = '\0';
	return p;
}

static void
unmap(char *p, size_t size)
{
	size_t i;

	for (i = 0; i < MAPS_MAX; i++)
		if (maps[i].at == p)
			maps[i].at = NULL;
	munmap(p, size);
}

/* Read fd to its end, or until it has given more than max bytes
 * (EFBIG). */
static bool
slurp(int fd, struct buf *b, size_t hint, size_t max)
{
	size_t room;
	ssize_t n;

	buf_reserve(b, hint ? hint : 4096);
	for (;;) {
		if (b->cap - b->len - 1 < 4096)
			buf_reserve(b, b->cap);
		room = b->cap - b->len - 1;
		/* Never ask for more than one byte past the limit, so an
		 * endless device fills max + 1 bytes, not the buffer. */
		if (room > max - b->len + 1)
			room = max - b->len + 1;
		n = read(fd, b->data + b->len, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		if (b->len > max) {
			errno = EFBIG;
			return false;
		}
	}
	b->data[b->len] = '\0';
	return true;
}

static const char *
type_name(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISREG(mode))
		return "a regular file";
	return "not a regular file";
}

/*
 * Open path for reading; -1 with errno on failure.  When only a regular
 * file will do, the open does not block (a FIFO with no writer would
 * block in open() until one came), and what it opened is checked by the
 * caller before a byte is read.  Otherwise a FIFO is opened as cat(1)
 * opens it, waiting for its writer.
 */
static int
open_file(const char *path, struct stat *st, bool regular_only)
{
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    (regular_only ? O_NONBLOCK : 0));
	if (fd < 0)
		return -1;
	if (fstat(fd, st) == 0)
		return fd;
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

enum source_status
sources_read(struct sources *reg, const char *path, bool regular_only,
    struct source **out, const char **type)
{
	struct buf b = BUF_INIT;
	struct stat st;
	enum source_status status = SOURCE_ERRNO;
	size_t len, max;
	int fd, err;
	bool is_stdin = strcmp(path, "-") == 0;

	*out = NULL;
	*type = "not a regular file";
	fd = is_stdin ? STDIN_FILENO : open_file(path, &st, regular_only);
	if (fd < 0 || (is_stdin && fstat(fd, &st) < 0))
		goto fail;
	*type = type_name(st.st_mode);
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) && regular_only) {
		status = SOURCE_SPECIAL;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > SOURCE_MAX) {
		errno = EFBIG;
		goto fail;
	}
	if (S_ISREG(st.st_mode) && !is_stdin) {
		size_t mapped = 0;
		char *p = map_file(fd, (size_t)st.st_size, &mapped);

		if (p) {
			close(fd);
			*out = add(reg, path, p, (size_t)st.st_size);
			(*out)->file = true;
			(*out)->mapped = mapped;
			return SOURCE_OK;
		}
	}
	max = S_ISREG(st.st_mode) ? SOURCE_MAX : SOURCE_STREAM_MAX;
	if (!slurp(fd, &b, S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 0,
	    max)) {
		if (errno == EFBIG && !S_ISREG(st.st_mode))
			status = SOURCE_STREAM_LONG;
		goto fail;
	}
	if (!is_stdin)
		close(fd);
	len = b.len;    /* buf_detach() resets b */
	*out = add(reg, is_stdin ? "<stdin>" : path, buf_detach(&b), len);
	(*out)->file = true;
	return SOURCE_OK;
fail:
	err = errno;
	if (fd >= 0 && !is_stdin)
		close(fd);
	buf_free(&b);
	errno = err;
	return status;
}

struct source *
sources_add_mem(struct sources *reg, const char *name, const char *text,
    size_t len)
{
	if (len > SOURCE_MAX)
		die("%s: text too large", name);
	return add(reg, name, xstrndup(text, len), len);
}

struct source *
sources_get(const struct sources *reg, uint32_t id)
{
	return id < reg->n ? reg->v[id] : NULL;
}

void
sources_truncate(struct sources *reg, size_t n)
{
	while (reg->n > n) {
		struct source *s = reg->v[--reg->n];

		free(s->path);
		if (s->mapped)
			unmap(s->text, s->mapped);
		else
			free(s->text);
		free(s->lines);
		free(s);
	}
}

void
sources_free(struct sources *reg)
{
	sources_truncate(reg, 0);
	free(reg->v);
	reg->v = NULL;
	reg->n = reg->cap = 0;
}

/* The line table is a cache: building it does not change what the
 * source is, so it is filled in through a const pointer. */
static void
index_lines(const struct source *csrc)
{
	struct source *src = (struct source *)csrc;
	size_t i, n = 1, k = 0;

	if (src->lines)
		return;
	for (i = 0; i < src->len; i++)
		if (src->text[i] == '\n')
			n++;
	src->lines = xreallocarray(NULL, n, sizeof(*src->lines));
	src->lines[k++] = 0;
	for (i = 0; i < src->len; i++)
		if (src->text[i] == '\n')
			src->lines[k++] = (uint32_t)(i + 1);
	src->nlines = n;
}

/* Index of the last line starting at or before off. */
static size_t
line_index(const struct source *src, uint32_t off)
{
	size_t lo = 0, hi;

	index_lines(src);
	hi = src->nlines;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (src->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

unsigned
source_lineno(const struct source *src, uint32_t off)
{
	if (off > src->len)
		off = (uint32_t)src->len;
	return (unsigned)line_index(src, off) + 1;
}

void
source_linecol(const struct source *src, uint32_t off, unsigned *line,
    unsigned *col)
{
	size_t lo, start;

	if (off > src->len)
		off = (uint32_t)src->len;
	lo = line_index(src, off);
	start = src->lines[lo];
	/* A byte order mark is not a column an editor shows. */
	if (lo == 0 && off >= utf8_bom(src->text, src->len))
		start = utf8_bom(src->text, src->len);
	*line = (unsigned)lo + 1;
	*col = (unsigned)utf8_count(src->text + start, off - start) + 1;
}

struct span
source_line(const struct source *src, unsigned line)
{
	size_t start, end;

	index_lines(src);
	if (line == 0 || line > src->nlines)
		return span_make(src->len, 0);
	start = src->lines[line - 1];
	end = line < src->nlines ? src->lines[line] - 1 : src->len;
	if (end > start && src->text[end - 1] == '\r')
		end--;
	return span_make(start, end - start);
}
