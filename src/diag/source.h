/*
 * source: a file (or stdin, or an embedded text) held in memory whole,
 * with its line-start table, so that a span (byte offset and length) can
 * be turned into line:column only when a message is printed.  Sources are
 * owned by a registry (struct sources, one per run) and live until
 * sources_free(); nodes and diagnostics refer to them by pointer or by
 * id.  This module reports nothing: a read that fails returns NULL with
 * errno set, and its caller reports (run_read() in run.h).
 */
#ifndef SOURCE_H
#define SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/span.h"

/* Largest source strata accepts (offsets are 32-bit). */
#define SOURCE_MAX ((size_t)UINT32_MAX - 1)
/* Largest text read from standard input, a pipe or a device, whose size
 * is not known in advance (/dev/zero has no end): 64 MiB, many times
 * what any model takes in (a million tokens is a few MiB of text).
 * Documented in strata(1). */
#define SOURCE_STREAM_MAX ((size_t)64 << 20)

struct source {
	uint32_t id;            /* index in its registry */
	char *path;             /* as named by the user, for messages */
	char *text;             /* NUL-terminated; may hold NULs, len rules */
	size_t len;
	uint32_t *lines;        /* line-start offsets, built on demand (a
	                         * cache: filled in through const pointers) */
	size_t nlines;
	bool binary;            /* a binary file (PNG): messages give a
				 * 0-based byte offset, not line:col */
	bool file;              /* read by sources_read(), not from memory */
	size_t mapped;          /* bytes mapped (see sources_read()), or 0:
	                         * text is malloc'd */
	/* Lines of the named file before this text (a JSON Lines line read
	 * on its own): messages number lines from line_base + 1. */
	unsigned line_base;
};

/* Every source of a run, by id. */
struct sources {
	struct source **v;      /* owned */
	size_t n, cap;
};

/* What sources_read() found, when it is not SOURCE_OK. */
enum source_status {
	SOURCE_OK,
	SOURCE_ERRNO,           /* cannot open or read it: errno says why
	                         * (a directory is EISDIR, a file over
	                         * SOURCE_MAX is EFBIG) */
	SOURCE_SPECIAL,         /* a pipe, device or socket, where only a
	                         * regular file was allowed */
	SOURCE_STREAM_LONG,     /* a pipe or device (or standard input) gave
	                         * more than SOURCE_STREAM_MAX bytes */
};

/*
 * Read a whole file ("-" is standard input, named "<stdin>") into the
 * registry; *out is the source.  The file is opened without blocking, so
 * a FIFO with no writer cannot hang the open.  With regular_only, any
 * other kind of file is refused before a byte is read (SOURCE_SPECIAL);
 * without it, a FIFO is opened again to wait for its writer and a pipe
 * or device is read up to SOURCE_STREAM_MAX bytes.  *type names the kind
 * of file found ("a FIFO", ...) for a message.
 *
 * A regular PNG file of SOURCE_MAP_MIN bytes or more (a character card,
 * mostly image data) is mapped rather than copied: its pages come from
 * the page cache as they are read, with no copy and no zeroed buffer.
 * Its reader (png.c) reads each byte once, so a file rewritten meanwhile
 * gives bytes from before or after, as read() would; one truncated
 * meanwhile reads as zeros past the cut (a SIGBUS handler maps zero
 * pages there), where read() would have given a shorter text.  Other
 * files are read into memory: their readers may look at a byte twice.
 */
#define SOURCE_MAP_MIN ((size_t)64 << 10)
enum source_status sources_read(struct sources *reg, const char *path,
    bool regular_only, struct source **out, const char **type);
/* A source from memory (embedded defaults, tests); the text is copied. */
struct source *sources_add_mem(struct sources *reg, const char *name,
    const char *text, size_t len);
struct source *sources_get(const struct sources *reg, uint32_t id);
void sources_free(struct sources *reg);
/* Free the sources added after the first n (strata batch, per line). */
void sources_truncate(struct sources *reg, size_t n);

/* 1-based line and column of byte offset off; columns count code points
 * (an invalid UTF-8 byte counts as one). */
void source_linecol(const struct source *src, uint32_t off, unsigned *line,
    unsigned *col);
/* Just the 1-based line of byte offset off: O(log lines), where the
 * column would cost a walk along the line. */
unsigned source_lineno(const struct source *src, uint32_t off);
/* The span of line number `line` (1-based), without its line ending. */
struct span source_line(const struct source *src, unsigned line);

#endif
