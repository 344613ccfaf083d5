#include "base/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void
buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void
buf_reserve(struct buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		die("out of memory");
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	if (b->cap < 64)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap > SIZE_MAX / 2 ? need : b->cap * 2;
	b->data = xrealloc(b->data, b->cap);
	b->data[b->len] = '\0';
}

void
buf_reserve_exact(struct buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		die("out of memory");
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	b->cap = need;
	b->data = xrealloc(b->data, b->cap);
	b->data[b->len] = '\0';
}

void
buf_put(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void
buf_putc(struct buf *b, int c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

void
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	if (!fmt)       /* see arena_printf() */
		die("buf_vprintf: no format");
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		die("vsnprintf:");
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *
buf_detach(struct buf *b)
{
	char *p;

	buf_reserve(b, 0);
	p = b->data;
	buf_init(b);
	return p;
}

/* The length of the style code at s (one buf_put_term_styled() keeps),
 * or 0. */
static size_t
style_code(const char *s, size_t n)
{
	static const char *const codes[] = { "\033[0m", "\033[1m",
	    "\033[2m", "\033[33m" };
	size_t i, k;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		k = strlen(codes[i]);
		if (k <= n && memcmp(s, codes[i], k) == 0)
			return k;
	}
	return 0;
}

void
buf_put_term_styled(struct buf *b, const char *s, size_t n, bool styles)
{
	size_t i = 0, k, run = 0;
	char e[8];
	uint32_t c;

	while (i < n) {
		size_t el;

		if (styles && s[i] == '\033' && (k = style_code(s + i,
		    n - i)) > 0) {
			i += k;
			continue;
		}
		k = utf8_decode(s + i, n - i, &c);
		if (k == 0) {
			buf_put(b, s + run, i - run);
			buf_printf(b, "\\x%02x", (unsigned char)s[i]);
			run = ++i;
			continue;
		}
		if (c == '\r' && i + 1 < n && s[i + 1] == '\n') {
			i++;    /* a CRLF line end is harmless */
			continue;
		}
		if ((el = term_escape(c, e)) > 0) {
			buf_put(b, s + run, i - run);
			buf_put(b, e, el);
			run = i + k;
		}
		i += k;
	}
	buf_put(b, s + run, n - run);
}

void
buf_put_term(struct buf *b, const char *s, size_t n)
{
	buf_put_term_styled(b, s, n, false);
}
