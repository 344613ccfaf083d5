#include "diag/diag.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"

#define X(name, text) text,
static const char *const catalogue[] = {
	DIAG_MESSAGES
};
#undef X

/* How much of a long source line is echoed, in code points. */
#define ECHO_WIDTH 100

void
diag_init(struct diag *d)
{
	d->errors = d->warnings = 0;
	d->system_error = false;
	d->color = false;
	d->capped = false;
	d->to = NULL;
}

const char *
diag_text(enum diag_msg msg)
{
	return (unsigned)msg < MSG__COUNT ? catalogue[msg] : "?";
}

/* Append s[0..n) to out with control characters and invalid bytes
 * escaped; stop after max code points (0: no limit).  Returns the
 * number of bytes of s consumed. */
static size_t
escape(struct buf *out, const char *s, size_t n, size_t max)
{
	size_t i = 0, k, cps = 0, el;
	uint32_t c;
	char e[8];

	while (i < n && (max == 0 || cps < max)) {
		k = utf8_decode(s + i, n - i, &c);
		if (k == 0) {
			buf_printf(out, "\\x%02x", (unsigned char)s[i]);
			k = 1;
		} else if (c == '\n') {
			buf_puts(out, "\\n");
		} else if (c == '\t') {
			buf_puts(out, "\\t");
		} else if ((el = term_escape(c, e)) > 0) {
			buf_put(out, e, el);
		} else {
			buf_put(out, s + i, k);
		}
		i += k;
		cps++;
	}
	return i;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
const char *
diag_format(struct arena *a, enum diag_msg msg, ...)
{
	struct buf b = BUF_INIT;
	const char *r;
	va_list ap;

	va_start(ap, msg);
	buf_vprintf(&b, diag_text(msg), ap);
	va_end(ap);
	r = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}
#pragma GCC diagnostic pop

const char *
diag_quote(struct arena *a, const char *s, size_t n)
{
	struct buf out = BUF_INIT;
	const char *r;

	if (escape(&out, s, n, DIAG_SHOWN_MAX) < n)
		buf_puts(&out, "...");
	r = arena_strndup(a, out.data ? out.data : "", out.len);
	buf_free(&out);
	return r;
}

int
diag_exit(const struct diag *d)
{
	if (d->system_error)
		return EXIT_SYSTEM;
	return d->errors ? EXIT_INPUT : EXIT_OK;
}

void
diag_set_system(struct diag *d)
{
	d->system_error = true;
}

/* East Asian wide characters take two terminal columns. */
static int
width(uint32_t c)
{
	if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) ||
	    (c >= 0x20000 && c <= 0x3fffd))
		return 2;
	return 1;
}

/*
 * Echo one source line with a caret line under the span.  Control and
 * bidirectional characters are shown escaped (term_escape()) and invalid
 * bytes as '?', so the terminal is never fed escapes; long lines are
 * windowed around the column.
 */
static void
echo(struct buf *out, const struct source *src, struct span sp, unsigned line,
    unsigned col, bool color)
{
	struct span ls = source_line(src, line);
	const char *s = src->text + ls.off;
	size_t n = ls.len, i = 0, k, cpno = 0, first = 0, last;
	size_t spanend = (size_t)sp.off + sp.len;
	struct buf text = BUF_INIT, mark = BUF_INIT;
	bool caret = false;
	char gutter[32], enc[8];
	uint32_t c;

	if (col > ECHO_WIDTH / 2)
		first = col - ECHO_WIDTH / 2;
	last = first + ECHO_WIDTH;
	if (first) {
		buf_puts(&text, "...");
		buf_puts(&mark, "   ");
	}
	for (; i < n && cpno < last; i += k, cpno++) {
		size_t off = ls.off + i;
		size_t el;
		int w;
		char m;

		k = utf8_decode(s + i, n - i, &c);
		if (k == 0) {
			k = 1;
			c = '?';
		}
		if (cpno < first)
			continue;
		el = c == '\t' ? 0 : term_escape(c, enc);
		buf_put(&text, enc, el ? el : utf8_encode(c, enc));
		if (off == sp.off) {
			m = '^';
			caret = true;
		} else if (off > sp.off && off < spanend) {
			m = '~';
		} else {
			m = c == '\t' ? '\t' : ' ';
		}
		for (w = c == '\t' ? 1 : el ? (int)el : width(c); w > 0; w--) {
			buf_putc(&mark, m);
			if (el && m == '^')
				m = '~';
		}
	}
	if (i < n)
		buf_puts(&text, "...");
	if (!caret)     /* the span starts at the end of the line */
		buf_putc(&mark, '^');
	while (mark.len && (mark.data[mark.len - 1] == ' ' ||
	    mark.data[mark.len - 1] == '\t'))
		mark.data[--mark.len] = '\0';
	snprintf(gutter, sizeof(gutter), "%u", line + src->line_base);
	buf_printf(out, " %s | %s\n", gutter, text.data ? text.data : "");
	buf_printf(out, " %*s | %s%s%s\n", (int)strlen(gutter), "",
	    color ? "\033[1;32m" : "", mark.data, color ? "\033[0m" : "");
	buf_free(&text);
	buf_free(&mark);
}

static const char *
level_word(enum diag_level level)
{
	switch (level) {
	case DIAG_NOTE:
		return "note";
	case DIAG_WARNING:
		return "warning";
	case DIAG_ERROR:
		break;
	}
	return "error";
}

static const char *
level_color(enum diag_level level)
{
	switch (level) {
	case DIAG_NOTE:
		return "\033[1;36m";
	case DIAG_WARNING:
		return "\033[1;35m";
	case DIAG_ERROR:
		break;
	}
	return "\033[1;31m";
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void
vreport(struct diag *d, enum diag_level level, const struct source *src,
    struct span sp, enum diag_msg msg, va_list ap)
{
	const char *fmt = diag_text(msg);
	size_t flen = strlen(fmt);
	int err = errno;
	struct buf out = BUF_INIT, text = BUF_INIT;
	unsigned line = 0, col = 0;
	bool color = d->color;

	if (level == DIAG_ERROR)
		d->errors++;
	else if (level == DIAG_WARNING)
		d->warnings++;
	/* A broken generated file can hold thousands of the same mistake:
	 * show the first ones, count the rest. */
	if (d->capped ||
	    d->errors + d->warnings > DIAG_MAX_SHOWN) {
		if (!d->capped) {
			struct buf *to = d->to ? d->to : &out;

			d->capped = true;
			buf_printf(to, "%s: note: ", progname);
			buf_printf(to, diag_text(MSG_TOO_MANY), DIAG_MAX_SHOWN);
			buf_putc(to, '\n');
			if (!d->to)
				fwrite(out.data, 1, out.len, stderr);
			buf_free(&out);
		}
		errno = err;
		return;
	}
	if (src && src->binary) {
		buf_puts(&out, color ? "\033[1m" : "");
		escape(&out, src->path, strlen(src->path), 0);
		buf_printf(&out, ":%s ", color ? "\033[0m" : "");
	} else if (src) {
		source_linecol(src, sp.off, &line, &col);
		buf_puts(&out, color ? "\033[1m" : "");
		escape(&out, src->path, strlen(src->path), 0);
		buf_printf(&out, ":%u:%u:%s ", line + src->line_base, col,
		    color ? "\033[0m" : "");
	} else {
		buf_printf(&out, "%s: ", progname);
	}
	buf_printf(&out, "%s%s:%s ", color ? level_color(level) : "",
	    level_word(level), color ? "\033[0m" : "");
	buf_vprintf(&text, fmt, ap);
	if (src && src->binary)
		buf_printf(&text, " at byte %lu", (unsigned long)sp.off);
	if (flen && fmt[flen - 1] == ':')
		buf_printf(&text, " %s", strerror(err));
	if (text.len)
		escape(&out, text.data, text.len, 0);
	buf_free(&text);
	buf_putc(&out, '\n');
	if (src && src->len > 0 && !src->binary)
		echo(&out, src, sp, line, col, color);
	if (d->to)
		buf_put(d->to, out.data, out.len);
	else
		fwrite(out.data, 1, out.len, stderr);
	buf_free(&out);
	errno = err;
}
#pragma GCC diagnostic pop

void
diag_at(struct diag *d, enum diag_level level, const struct source *src,
    struct span sp, enum diag_msg msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vreport(d, level, src, sp, msg, ap);
	va_end(ap);
}
