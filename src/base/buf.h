/*
 * buf: a growable byte string on the heap.  The struct's owner calls
 * buf_free(); buf_detach() hands the bytes (NUL-terminated) to the caller,
 * who then owns them.  The data is always NUL-terminated after any call,
 * but may hold NUL bytes inside; len is the truth.
 */
#ifndef BUF_H
#define BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *data;
	size_t len, cap;
};

#define BUF_INIT {0}

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
void buf_reserve(struct buf *b, size_t extra);
/* Room for extra more bytes, and no more: for a writer that knows about
 * how big a large output will be (buf_reserve doubles). */
void buf_reserve_exact(struct buf *b, size_t extra);
void buf_put(struct buf *b, const void *p, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, int c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
char *buf_detach(struct buf *b);
/* The one helper for text in human views: s[0..n) with term_escape()'s
 * characters escaped and each byte that is not UTF-8 as "\xNN".  With
 * styles, the four style codes strata's coloured views write (ESC [ 0,
 * 1, 2 or 33 m) pass as they are; every other escape is shown. */
void buf_put_term(struct buf *b, const char *s, size_t n);
void buf_put_term_styled(struct buf *b, const char *s, size_t n,
    bool styles);

#endif
