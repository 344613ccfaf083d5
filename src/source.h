/*
 * source: a file (or stdin, or an embedded text) held in memory whole,
 * with its line-start table, so that a span (byte offset and length) can
 * be turned into line:column only when a message is printed.  Sources are
 * owned by the run that read them (run.h) and live until run_free();
 * nodes and diagnostics refer to them by pointer or by id.
 */
#ifndef SOURCE_H
#define SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run;

/* A byte range inside one source. */
struct span {
	uint32_t off, len;
};

/* Largest source strata accepts (offsets are 32-bit). */
#define SOURCE_MAX ((size_t)UINT32_MAX - 1)

struct source {
	uint32_t id;            /* index in run->sources */
	char *path;             /* as named by the user, for messages */
	char *text;             /* NUL-terminated; may hold NULs, len rules */
	size_t len;
	uint32_t *lines;        /* line-start offsets, built on demand */
	size_t nlines;
	bool binary;            /* a binary file (PNG): messages give a
				 * 0-based byte offset, not line:col */
};

/*
 * Read a whole file ("-" is stdin).  On failure report the error -- at
 * `at` inside `from` when from is not NULL (the place that named the
 * file), else without a location -- and return NULL.
 */
struct source *source_read(struct run *run, const char *path,
    const struct source *from, struct span at);
/* A source from memory (embedded defaults, tests); the text is copied. */
struct source *source_from_mem(struct run *run, const char *name,
    const char *text, size_t len);
struct source *source_get(const struct run *run, uint32_t id);
void source_free(struct source *src);

/* 1-based line and column of byte offset off; columns count code points
 * (an invalid UTF-8 byte counts as one). */
void source_linecol(struct source *src, uint32_t off, unsigned *line,
    unsigned *col);
/* Just the 1-based line of byte offset off: O(log lines), where the
 * column would cost a walk along the line. */
unsigned source_lineno(struct source *src, uint32_t off);
/* The span of line number `line` (1-based), without its line ending. */
struct span source_line(struct source *src, unsigned line);

static inline struct span
span_make(size_t off, size_t len)
{
	struct span s = { (uint32_t)off, (uint32_t)len };
	return s;
}

#endif
