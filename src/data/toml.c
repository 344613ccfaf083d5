#include "data/toml.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"

/*
 * Deepest node below the root: header and dotted key parts, arrays and
 * inline tables all count, so every later stage may walk a TOML tree
 * recursively without a limit of its own.
 */
#define MAX_DEPTH 256
/* Errors reported per document before the reader gives up. */
#define MAX_ERRORS 20
/* How much of a key or token a message quotes. */
#define QUOTE_MAX 48

struct keypart {
	const char *s;          /* into the source text or the arena */
	size_t len;
	struct span span;
};

struct parser {
	struct run *run;
	struct source *src;
	const char *s;          /* src->text; s[len] is NUL */
	size_t len, pos;
	struct node *root;
	struct node *cur;       /* the table key/values go into */
	unsigned curdepth;      /* cur's depth below the root */
	unsigned open;          /* arrays and inline tables open at pos */
	bool in_inline;         /* the innermost of them is an inline table */
	unsigned errors;
	bool stop;              /* MAX_ERRORS reached */
	struct buf str;         /* scratch for decoding a string */
	struct keypart parts[MAX_DEPTH];
};

/*
 * Every error goes through here, so that the count and the cap hold for
 * all of them.  Returns false when the message must not be printed
 * because the reader has given up.
 */
static bool
counted(struct parser *p)
{
	if (p->stop)
		return false;
	if (p->errors == MAX_ERRORS) {
		p->stop = true;
		diag_plain(p->run, DIAG_NOTE, MSG_TOML_TOO_MANY_ERRORS,
		    p->src->path);
		return false;
	}
	p->errors++;
	return true;
}

#define ERROR(p, sp, ...) do { \
	if (counted(p)) \
		diag_error((p)->run, (p)->src, (sp), __VA_ARGS__); \
} while (0)

static bool
is_bare(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static unsigned
lineof(struct parser *p, uint32_t off)
{
	unsigned line, col;

	source_linecol(p->src, off, &line, &col);
	return line;
}

static void
skip_ws(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' ||
	    p->s[p->pos] == '\t'))
		p->pos++;
}

/* A line ending at off: its length (1 or 2), or 0. */
static size_t
newline_at(const struct parser *p, size_t off)
{
	if (off >= p->len)
		return 0;
	if (p->s[off] == '\n')
		return 1;
	if (p->s[off] == '\r' && p->s[off + 1] == '\n')
		return 2;
	return 0;
}

/* Quote some text for a message: printable, escaped, and cut short. */
static void
quote_into(struct buf *b, const char *s, size_t n)
{
	size_t i, k;
	uint32_t cp;

	for (i = 0; i < n; i += k) {
		if (b->len >= QUOTE_MAX) {
			buf_puts(b, "...");
			return;
		}
		k = utf8_decode(s + i, n - i, &cp);
		if (k == 0) {
			buf_printf(b, "\\x%02X", (unsigned char)s[i]);
			k = 1;
		} else if (cp < 0x20 || cp == 0x7f) {
			buf_printf(b, "\\u%04X", (unsigned)cp);
		} else {
			if (cp == '"' || cp == '\\')
				buf_putc(b, '\\');
			buf_put(b, s + i, k);
		}
	}
}

static const char *
quoted(struct parser *p, const char *s, size_t n)
{
	struct buf b = BUF_INIT;
	char *r;

	quote_into(&b, s, n);
	r = arena_strndup(&p->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

/* parts[0..n) as a dotted key, quoting the parts that need it. */
static const char *
keyname(struct parser *p, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i, j;
	char *r;

	for (i = 0; i < n; i++) {
		const struct keypart *kp = &p->parts[i];
		bool bare = kp->len > 0;

		for (j = 0; j < kp->len && bare; j++)
			bare = is_bare((unsigned char)kp->s[j]);
		if (i)
			buf_putc(&b, '.');
		if (b.len >= QUOTE_MAX) {
			buf_puts(&b, "...");
			break;
		}
		if (bare) {
			quote_into(&b, kp->s, kp->len);
		} else {
			buf_putc(&b, '"');
			quote_into(&b, kp->s, kp->len);
			buf_putc(&b, '"');
		}
	}
	r = arena_strndup(&p->run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}

/* "an integer", "an array of tables": what a value is, for messages. */
static const char *
what(const struct node *v)
{
	if (v->kind == NODE_TABLE && (v->flags & NODE_FROZEN))
		return "an inline table";
	if (v->kind == NODE_ARRAY && (v->flags & NODE_AOT))
		return "an array of tables";
	return tree_kind_article(v->kind);
}

/*
 * Report the character at off as not what msg expected.  Characters that
 * are wrong anywhere (NUL, bare CR, other controls, invalid UTF-8) get
 * their own message instead.  Always returns false.
 */
static bool
unexpected(struct parser *p, size_t off, enum diag_msg msg)
{
	unsigned char c;
	uint32_t cp;
	size_t k;
	char found[24];

	if (off >= p->len) {
		ERROR(p, span_make(p->len, 0), msg, "end of file");
		return false;
	}
	c = (unsigned char)p->s[off];
	if (newline_at(p, off)) {
		ERROR(p, span_make(off, 0), msg, "end of line");
	} else if (c == '\r') {
		ERROR(p, span_make(off, 1), MSG_TOML_BARE_CR);
	} else if (c == 0) {
		ERROR(p, span_make(off, 1), MSG_NUL_BYTE);
	} else if (c < 0x20 || c == 0x7f) {
		ERROR(p, span_make(off, 1), MSG_TOML_CONTROL_CHAR,
		    (unsigned)c, "here");
	} else if (c >= 0x80) {
		k = utf8_decode(p->s + off, p->len - off, &cp);
		if (k == 0) {
			ERROR(p, span_make(off, 1), MSG_INVALID_UTF8);
		} else {
			if (cp == 0xfeff)
				snprintf(found, sizeof(found),
				    "a byte order mark");
			else
				snprintf(found, sizeof(found), "'%.*s'",
				    (int)k, p->s + off);
			ERROR(p, span_make(off, k), msg, found);
		}
	} else if (is_bare(c) || c == '+') {
		/* A word: quote and underline all of it. */
		for (k = off; k < p->len && (is_bare((unsigned char)p->s[k]) ||
		    p->s[k] == '+' || p->s[k] == '.' || p->s[k] == ':'); k++)
			;
		ERROR(p, span_make(off, k - off), msg, arena_printf(
		    &p->run->arena, "'%s'", quoted(p, p->s + off, k - off)));
	} else {
		if (c == '\'')
			snprintf(found, sizeof(found), "\"'\"");
		else
			snprintf(found, sizeof(found), "'%c'", c);
		ERROR(p, span_make(off, 1), msg, found);
	}
	return false;
}

/*
 * The length of the character at off inside a string or comment, after
 * reporting it if TOML does not allow it there: control characters other
 * than tab, and invalid UTF-8 (skipped a byte at a time).  *ok says
 * whether it may be kept.
 */
static size_t
text_char(struct parser *p, size_t off, const char *where, bool *ok)
{
	unsigned char c = (unsigned char)p->s[off];
	uint32_t cp;
	size_t k;

	*ok = false;
	if ((c >= 0x20 && c < 0x7f) || c == '\t') {
		*ok = true;
		return 1;
	}
	if (c < 0x80) {
		if (c == 0)
			ERROR(p, span_make(off, 1), MSG_NUL_BYTE);
		else if (c == '\r')
			ERROR(p, span_make(off, 1), MSG_TOML_BARE_CR);
		else
			ERROR(p, span_make(off, 1), MSG_TOML_CONTROL_CHAR,
			    (unsigned)c, where);
		return 1;
	}
	k = utf8_decode(p->s + off, p->len - off, &cp);
	if (k == 0) {
		ERROR(p, span_make(off, 1), MSG_INVALID_UTF8);
		return 1;
	}
	*ok = true;
	return k;
}

/* A comment, from '#' up to (not including) the line ending. */
static void
comment(struct parser *p)
{
	bool ok;

	p->pos++;
	while (p->pos < p->len && p->s[p->pos] != '\n') {
		unsigned char c = (unsigned char)p->s[p->pos];

		if ((c >= 0x20 && c < 0x7f) || c == '\t')
			p->pos++;
		else if (newline_at(p, p->pos))
			break;
		else
			p->pos += text_char(p, p->pos, "in a comment", &ok);
	}
}

/* Whitespace, comments and line endings, as between array elements. */
static void
skip_wcn(struct parser *p)
{
	size_t k;

	for (;;) {
		skip_ws(p);
		if ((k = newline_at(p, p->pos)) != 0)
			p->pos += k;
		else if (p->pos < p->len && p->s[p->pos] == '#')
			comment(p);
		else
			return;
	}
}

/*
 * An escape sequence at p->pos (the backslash) inside a basic string.
 * Bad escapes are reported and skipped: the string is still well
 * delimited, so reading goes on.
 */
static void
escape(struct parser *p, bool multiline)
{
	const char *s = p->s;
	size_t at = p->pos, i, k = 0, ndig;
	unsigned char e = (unsigned char)s[at + 1];
	uint32_t cp;
	char enc[4];
	int h;

	switch (e) {
	case 'b': buf_putc(&p->str, '\b'); break;
	case 't': buf_putc(&p->str, '\t'); break;
	case 'n': buf_putc(&p->str, '\n'); break;
	case 'f': buf_putc(&p->str, '\f'); break;
	case 'r': buf_putc(&p->str, '\r'); break;
	case '"': buf_putc(&p->str, '"'); break;
	case '\\': buf_putc(&p->str, '\\'); break;
	case 'u':
	case 'U':
		ndig = e == 'u' ? 4 : 8;
		cp = 0;
		for (i = 0; i < ndig && at + 2 + i < p->len &&
		    (h = hex_value((unsigned char)s[at + 2 + i])) >= 0; i++)
			cp = cp << 4 | (uint32_t)h;
		p->pos = at + 2 + i;
		if (i < ndig) {
			ERROR(p, span_make(at, 2 + i),
			    MSG_TOML_SHORT_UNICODE_ESCAPE, e, (int)ndig);
			return;
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
			ERROR(p, span_make(at, 2 + ndig),
			    MSG_TOML_BAD_CODEPOINT, (int)(1 + ndig),
			    s + at + 1);
			return;
		}
		buf_put(&p->str, enc, utf8_encode(cp, enc));
		return;
	default:
		if (multiline && (e == ' ' || e == '\t' || newline_at(p,
		    at + 1))) {
			/* A line-ending backslash eats all whitespace and
			 * line endings up to the next text; a backslash
			 * before blanks that do not end the line is an
			 * error. */
			for (i = at + 1; s[i] == ' ' || s[i] == '\t'; i++)
				;
			if (newline_at(p, i)) {
				for (;;) {
					if (s[i] == ' ' || s[i] == '\t')
						i++;
					else if ((k = newline_at(p, i)) != 0)
						i += k;
					else
						break;
				}
				p->pos = i;
				return;
			}
		}
		if (at + 1 >= p->len || newline_at(p, at + 1)) {
			/* Nothing to escape: the caller reports the
			 * unterminated string. */
			p->pos = at + 1;
			return;
		}
		k = 1;
		if (e >= 0x80 && (k = utf8_decode(s + at + 1, p->len - at - 1,
		    &cp)) == 0)
			k = 1;
		if (e < 0x20 || e == 0x7f || (e >= 0x80 && k == 1)) {
			/* Do not echo a raw control or bad byte; it gets
			 * its own report when read as text. */
			ERROR(p, span_make(at, 1), MSG_TOML_BAD_ESCAPE, 0, "");
			p->pos = at + 1;
			return;
		}
		ERROR(p, span_make(at, 1 + k), MSG_TOML_BAD_ESCAPE, (int)k,
		    s + at + 1);
		p->pos = at + 1 + k;
		return;
	}
	p->pos = at + 2;
}

/*
 * A string at p->pos, decoded into p->str.  The four kinds differ in the
 * quote (basic '"' has escapes, literal '\'' has none) and in whether
 * line endings may appear (tripled quotes).  Only a missing end is fatal;
 * everything else wrong inside is reported and skipped.
 */
static bool
string(struct parser *p)
{
	const char *s = p->s;
	size_t start = p->pos, k, q, run;
	char quote = s[start];
	bool basic = quote == '"', ok;
	bool multi = s[start + 1] == quote && s[start + 2] == quote;

	buf_reset(&p->str);
	p->pos += multi ? 3 : 1;
	/* A line ending right after the opening quotes is not content. */
	if (multi)
		p->pos += newline_at(p, p->pos);
	for (;;) {
		size_t at = p->pos;
		unsigned char c;

		if (at >= p->len) {
			ERROR(p, multi ? span_make(start, 3) :
			    span_make(start, at - start), multi ?
			    MSG_TOML_UNTERMINATED_MULTILINE :
			    MSG_TOML_UNTERMINATED_STRING);
			return false;
		}
		c = (unsigned char)s[at];
		if (c == (unsigned char)quote) {
			if (!multi) {
				p->pos++;
				return true;
			}
			for (q = 1; s[at + q] == quote; q++)
				;
			if (q < 3) {
				buf_put(&p->str, s + at, q);
				p->pos += q;
				continue;
			}
			/* Up to two quotes may end the content right
			 * before the closing three; more is an error the
			 * caller finds after the string. */
			q = q > 5 ? 2 : q - 3;
			buf_put(&p->str, s + at, q);
			p->pos += q + 3;
			return true;
		}
		if (c == '\\' && basic) {
			escape(p, multi);
			continue;
		}
		if ((k = newline_at(p, at)) != 0) {
			if (!multi) {
				ERROR(p, span_make(start, at - start),
				    MSG_TOML_UNTERMINATED_STRING);
				return false;
			}
			buf_put(&p->str, s + at, k);
			p->pos += k;
			continue;
		}
		/* The common case: a run of plain ASCII, copied at once. */
		for (run = at; run < p->len; run++) {
			c = (unsigned char)s[run];
			if (c < 0x20 || c >= 0x7f ||
			    c == (unsigned char)quote || (c == '\\' && basic))
				break;
		}
		if (run > at) {
			buf_put(&p->str, s + at, run - at);
			p->pos = run;
			continue;
		}
		k = text_char(p, at, "in a string", &ok);
		if (ok)
			buf_put(&p->str, s + at, k);
		p->pos += k;
	}
}

/* One part of a key: bare, or a single-line quoted string. */
static bool
simple_key(struct parser *p, struct keypart *kp)
{
	size_t start = p->pos;
	char c = p->s[start];

	if (start < p->len && is_bare((unsigned char)c)) {
		while (p->pos < p->len && is_bare((unsigned char)p->s[p->pos]))
			p->pos++;
		kp->s = p->s + start;
		kp->len = p->pos - start;
		kp->span = span_make(start, kp->len);
		return true;
	}
	if (start < p->len && (unsigned char)c >= 0x80 &&
	    utf8_decode(p->s + start, p->len - start, &(uint32_t){ 0 })) {
		/* 角色 = "小雨": a bare key of letters TOML 1.0 does not
		 * allow bare (1.1 will); say so, with the quoted form. */
		size_t end = start, k = 0;
		uint32_t cp;

		while (end < p->len && (is_bare((unsigned char)p->s[end]) ||
		    ((unsigned char)p->s[end] >= 0x80 && (k = utf8_decode(
		    p->s + end, p->len - end, &cp)) > 0)))
			end += is_bare((unsigned char)p->s[end]) ? 1 : k;
		ERROR(p, span_make(start, end - start), MSG_TOML_NONASCII_KEY,
		    (int)(end - start), p->s + start, (int)(end - start),
		    p->s + start);
		return false;
	}
	if (start >= p->len || (c != '"' && c != '\''))
		return unexpected(p, start, MSG_TOML_EXPECTED_KEY);
	if (p->s[start + 1] == c && p->s[start + 2] == c) {
		ERROR(p, span_make(start, 3), MSG_TOML_MULTILINE_KEY);
		return false;
	}
	if (!string(p))
		return false;
	kp->s = arena_strndup(&p->run->arena, p->str.data ? p->str.data : "",
	    p->str.len);
	kp->len = p->str.len;
	kp->span = span_make(start, p->pos - start);
	return true;
}

/* A dotted key into p->parts, and the blanks after it. */
static bool
key(struct parser *p, size_t *np)
{
	size_t n = 0;

	for (;;) {
		if (n == MAX_DEPTH) {
			ERROR(p, span_make(p->pos, 1), MSG_TOO_DEEP, MAX_DEPTH);
			return false;
		}
		if (!simple_key(p, &p->parts[n]))
			return false;
		n++;
		skip_ws(p);
		if (p->pos >= p->len || p->s[p->pos] != '.')
			break;
		p->pos++;
		skip_ws(p);
	}
	*np = n;
	return true;
}

/* The characters of a number, boolean or date-time token. */
static bool
is_word(int c)
{
	return is_bare(c) || c == '+' || c == '.' || c == ':';
}

/*
 * Digits in the given base with single underscores between them, from
 * t[*i].  Returns the number of digits (0 if none), or -1 after
 * reporting a misplaced underscore.
 */
static long
digits(struct parser *p, const char *t, size_t n, size_t *i, int base,
    size_t off)
{
	long count = 0;
	size_t j = *i;

	for (; j < n; j++) {
		int v = hex_value((unsigned char)t[j]);

		if (t[j] == '_') {
			if (j == *i || t[j - 1] == '_' || j + 1 >= n ||
			    hex_value((unsigned char)t[j + 1]) < 0 ||
			    hex_value((unsigned char)t[j + 1]) >= base) {
				ERROR(p, span_make(off + j, 1),
				    MSG_TOML_UNDERSCORE);
				return -1;
			}
			continue;
		}
		if (v < 0 || v >= base)
			break;
		count++;
	}
	*i = j;
	return count;
}

/* Report token t at off as a malformed number. */
static bool
bad_number(struct parser *p, const char *t, size_t n, size_t off)
{
	ERROR(p, span_make(off, n), MSG_TOML_BAD_NUMBER, quoted(p, t, n));
	return false;
}

/* Plain decimal digits t[i..i+k) as an int, for date-time fields. */
static int
field(const char *t, size_t i, size_t k)
{
	int v = 0;

	while (k--)
		v = v * 10 + (t[i++] - '0');
	return v;
}

static bool
all_digits(const char *t, size_t n, size_t i, size_t k)
{
	if (i + k > n)
		return false;
	while (k--)
		if (!is_digit((unsigned char)t[i++]))
			return false;
	return true;
}

static bool
leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/*
 * A date, a time, or both (RFC 3339 as TOML allows it) in t[0..n) at
 * source offset off.  Malformed text and out-of-range fields are
 * reported; the result is false then.
 */
static bool
datetime(struct parser *p, const char *t, size_t n, size_t off,
    struct datetime *dt)
{
	static const int mdays[] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	size_t i = 0, k;
	bool date = false;
	int dim;

	memset(dt, 0, sizeof(*dt));
	if (n >= 5 && t[4] == '-') {
		if (!all_digits(t, n, 0, 4) || t[4] != '-' ||
		    !all_digits(t, n, 5, 2) || n < 8 || t[7] != '-' ||
		    !all_digits(t, n, 8, 2))
			goto malformed;
		dt->year = field(t, 0, 4);
		dt->month = field(t, 5, 2);
		dt->day = field(t, 8, 2);
		date = true;
		i = 10;
		if (i == n) {
			dt->kind = DT_DATE;
			goto check;
		}
		if (t[i] != 'T' && t[i] != 't' && t[i] != ' ')
			goto malformed;
		i++;
	}
	if (!all_digits(t, n, i, 2) || i + 2 >= n || t[i + 2] != ':' ||
	    !all_digits(t, n, i + 3, 2) || i + 5 >= n || t[i + 5] != ':' ||
	    !all_digits(t, n, i + 6, 2))
		goto malformed;
	dt->hour = field(t, i, 2);
	dt->minute = field(t, i + 3, 2);
	dt->second = field(t, i + 6, 2);
	i += 8;
	if (i < n && t[i] == '.') {
		size_t f = ++i;

		/* Digits past nanoseconds are read and dropped. */
		for (; i < n && is_digit((unsigned char)t[i]); i++)
			if (i - f < 9)
				dt->nanosecond = dt->nanosecond * 10 +
				    (uint32_t)(t[i] - '0');
		if (i == f)
			goto malformed;
		for (k = i - f; k < 9; k++)
			dt->nanosecond *= 10;
	}
	dt->kind = date ? DT_LOCAL : DT_TIME;
	if (date && i < n && (t[i] == 'Z' || t[i] == 'z')) {
		dt->kind = DT_OFFSET;
		i++;
	} else if (date && i < n && (t[i] == '+' || t[i] == '-')) {
		int oh, om;

		if (!all_digits(t, n, i + 1, 2) || i + 3 >= n ||
		    t[i + 3] != ':' || !all_digits(t, n, i + 4, 2))
			goto malformed;
		oh = field(t, i + 1, 2);
		om = field(t, i + 4, 2);
		if (oh > 23) {
			ERROR(p, span_make(off + i + 1, 2),
			    MSG_TOML_BAD_TIME_FIELD, "offset hour", oh);
			return false;
		}
		if (om > 59) {
			ERROR(p, span_make(off + i + 4, 2),
			    MSG_TOML_BAD_TIME_FIELD, "offset minute", om);
			return false;
		}
		dt->offset_minutes = (oh * 60 + om) * (t[i] == '-' ? -1 : 1);
		dt->kind = DT_OFFSET;
		i += 6;
	}
	if (i != n)
		goto malformed;
	i = date ? 11 : 0;
	if (dt->hour > 23) {
		ERROR(p, span_make(off + i, 2), MSG_TOML_BAD_TIME_FIELD, "hour",
		    dt->hour);
		return false;
	}
	if (dt->minute > 59) {
		ERROR(p, span_make(off + i + 3, 2), MSG_TOML_BAD_TIME_FIELD,
		    "minute", dt->minute);
		return false;
	}
	/* 60 is a leap second, which RFC 3339 allows. */
	if (dt->second > 60) {
		ERROR(p, span_make(off + i + 6, 2), MSG_TOML_BAD_TIME_FIELD,
		    "second", dt->second);
		return false;
	}
check:
	if (!date)
		return true;
	if (dt->month < 1 || dt->month > 12) {
		ERROR(p, span_make(off + 5, 2), MSG_TOML_BAD_MONTH, dt->month);
		return false;
	}
	dim = mdays[dt->month - 1] + (dt->month == 2 && leap(dt->year));
	if (dt->day < 1 || dt->day > dim) {
		ERROR(p, span_make(off + 8, 2), MSG_TOML_BAD_DAY, dt->day,
		    dt->year, dt->month);
		return false;
	}
	return true;
malformed:
	ERROR(p, span_make(off, n), MSG_TOML_BAD_DATETIME, quoted(p, t, n));
	return false;
}

/*
 * A float in t[0..n) whose syntax has been checked: strtod() reads it
 * (in the C locale: strata never calls setlocale) once the underscores
 * are gone.  Overflow is an error rather than a silent infinity;
 * underflow to zero or a subnormal is accepted.
 */
static bool
to_double(struct parser *p, const char *t, size_t n, size_t off, double *out)
{
	struct buf b = BUF_INIT;
	size_t i;
	double d;

	for (i = 0; i < n; i++)
		if (t[i] != '_')
			buf_putc(&b, t[i]);
	errno = 0;
	d = strtod(b.data, NULL);
	buf_free(&b);
	if (errno == ERANGE && isinf(d)) {
		ERROR(p, span_make(off, n), MSG_TOML_FLOAT_OVERFLOW);
		return false;
	}
	*out = d;
	return true;
}

/*
 * A number token t[0..n) at source offset off into v: a decimal,
 * hexadecimal, octal or binary integer, or a float.  Soft errors: the
 * token's extent is known, so the caller goes on after it.
 */
static bool
number(struct parser *p, const char *t, size_t n, size_t off, struct node *v)
{
	size_t i = 0, intstart;
	bool neg = false, isfloat = false;
	long nd;

	if (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-';
		i = 1;
	}
	if (n - i == 3 && (memcmp(t + i, "inf", 3) == 0 ||
	    memcmp(t + i, "nan", 3) == 0)) {
		v->kind = NODE_FLOAT;
		v->u.f = t[i] == 'i' ? INFINITY : NAN;
		if (neg)
			v->u.f = -v->u.f;
		return true;
	}
	if (n - i >= 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'o' ||
	    t[i + 1] == 'b')) {
		int base = t[i + 1] == 'x' ? 16 : t[i + 1] == 'o' ? 8 : 2;
		uint64_t u = 0;
		bool over = false;
		size_t j;

		if (i) {
			ERROR(p, span_make(off, 1), MSG_TOML_SIGNED_PREFIX);
			return false;
		}
		i += 2;
		j = i;
		nd = digits(p, t, n, &i, base, off);
		if (nd < 0)
			return false;
		if (nd == 0 || i != n)
			return bad_number(p, t, n, off);
		for (; j < n; j++) {
			unsigned d;

			if (t[j] == '_')
				continue;
			d = (unsigned)hex_value((unsigned char)t[j]);
			if (u > ((uint64_t)INT64_MAX - d) / (unsigned)base)
				over = true;
			else
				u = u * (unsigned)base + d;
		}
		if (over) {
			ERROR(p, span_make(off, n), MSG_TOML_INT_OVERFLOW);
			return false;
		}
		v->kind = NODE_INT;
		v->u.i = (int64_t)u;
		return true;
	}
	intstart = i;
	nd = digits(p, t, n, &i, 10, off);
	if (nd < 0)
		return false;
	if (nd == 0 && !(i < n && t[i] == '.'))
		return bad_number(p, t, n, off);
	if (t[intstart] == '0' && nd > 1) {
		ERROR(p, span_make(off + intstart, i - intstart),
		    MSG_TOML_LEADING_ZERO);
		return false;
	}
	if (i < n && t[i] == '.') {
		size_t dot = i++;

		isfloat = true;
		nd = (i < n && t[i] == '_') ? 0 : digits(p, t, n, &i, 10, off);
		if (nd < 0)
			return false;
		if (nd == 0 || dot == intstart || t[dot - 1] == '_') {
			ERROR(p, span_make(off + dot, 1), MSG_TOML_DOT_DIGITS);
			return false;
		}
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		size_t e = i++;

		isfloat = true;
		if (i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		nd = (i < n && t[i] == '_') ? 0 : digits(p, t, n, &i, 10, off);
		if (nd < 0)
			return false;
		if (nd == 0 || t[e - 1] == '_') {
			ERROR(p, span_make(off + e, i - e),
			    MSG_TOML_EXP_DIGITS);
			return false;
		}
	}
	if (i != n)
		return bad_number(p, t, n, off);
	if (isfloat) {
		v->kind = NODE_FLOAT;
		return to_double(p, t, n, off, &v->u.f);
	} else {
		uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 :
		    (uint64_t)INT64_MAX;
		bool over = false;

		for (i = intstart; i < n; i++) {
			unsigned d = (unsigned)(t[i] - '0');

			if (t[i] == '_')
				continue;
			if (u > (lim - d) / 10)
				over = true;
			else
				u = u * 10 + d;
		}
		if (over) {
			ERROR(p, span_make(off, n), MSG_TOML_INT_OVERFLOW);
			return false;
		}
		v->kind = NODE_INT;
		/* -2^63 has no positive twin: negate in unsigned. */
		v->u.i = neg ? (int64_t)(0 - u) : (int64_t)u;
		return true;
	}
}

/*
 * A bare token -- boolean, number or date-time -- at p->pos into v.  A
 * date followed by a space and a time is one token: TOML allows the
 * space in place of the 'T'.
 */
static bool
word(struct parser *p, struct node *v)
{
	const char *s = p->s;
	size_t start = p->pos, n;
	const char *t = s + start;

	while (p->pos < p->len && is_word((unsigned char)s[p->pos]))
		p->pos++;
	n = p->pos - start;
	if (n == 10 && all_digits(t, n, 0, 4) && t[4] == '-' &&
	    s[p->pos] == ' ' && is_digit((unsigned char)s[p->pos + 1]) &&
	    is_digit((unsigned char)s[p->pos + 2]) && s[p->pos + 3] == ':') {
		p->pos++;
		while (p->pos < p->len && is_word((unsigned char)s[p->pos]))
			p->pos++;
		n = p->pos - start;
	}
	v->span = span_make(start, n);
	if ((n == 4 && memcmp(t, "true", 4) == 0) ||
	    (n == 5 && memcmp(t, "false", 5) == 0)) {
		v->kind = NODE_BOOL;
		v->u.b = n == 4;
		return true;
	}
	/* "1.5e-3" has a '-' at [4] too: all four must be digits. */
	if ((all_digits(t, n, 0, 4) && n >= 5 && t[4] == '-') ||
	    (all_digits(t, n, 0, 2) && n >= 3 && t[2] == ':')) {
		v->kind = NODE_DATETIME;
		if (!datetime(p, t, n, start, &v->u.dt))
			v->u.dt.kind = DT_DATE;
		return true;
	}
	if (is_digit((unsigned char)t[0]) || t[0] == '+' || t[0] == '-' ||
	    t[0] == '.' || t[0] == '_' || (n == 3 &&
	    (memcmp(t, "inf", 3) == 0 || memcmp(t, "nan", 3) == 0))) {
		if (!number(p, t, n, start, v)) {
			v->kind = NODE_INT;
			v->u.i = 0;
		}
		return true;
	}
	/* A word that is no value at all: likely an unquoted string, so
	 * the rest of the line is not worth reading. */
	ERROR(p, span_make(start, n), MSG_TOML_BARE_WORD, quoted(p, t, n));
	return false;
}

static bool value(struct parser *p, struct node **out, unsigned level);
static bool keyval(struct parser *p, struct node *t, unsigned tdepth);

static bool
array(struct parser *p, struct node **out, unsigned level)
{
	size_t start = p->pos;
	struct node *arr, *v;
	bool outer = p->in_inline;

	if (level > MAX_DEPTH) {
		ERROR(p, span_make(start, 1), MSG_TOO_DEEP, MAX_DEPTH);
		return false;
	}
	arr = tree_new(&p->run->arena, NODE_ARRAY, p->src->id,
	    span_make(start, 1));
	arr->flags = NODE_FROZEN;
	*out = arr;
	p->pos++;
	p->open++;
	p->in_inline = false;
	skip_wcn(p);
	while (p->pos >= p->len || p->s[p->pos] != ']') {
		if (!value(p, &v, level + 1))
			return false;
		tree_push(&p->run->arena, arr, v);
		skip_wcn(p);
		if (p->pos < p->len && p->s[p->pos] == ',') {
			p->pos++;
			skip_wcn(p);
		} else if (p->pos >= p->len || p->s[p->pos] != ']') {
			return unexpected(p, p->pos,
			    MSG_TOML_EXPECTED_ARRAY_SEP);
		}
	}
	p->pos++;
	p->open--;
	p->in_inline = outer;
	arr->span = span_make(start, p->pos - start);
	return true;
}

static bool
inline_table(struct parser *p, struct node **out, unsigned level)
{
	size_t start = p->pos, comma;
	struct node *t;
	bool outer = p->in_inline;

	if (level > MAX_DEPTH) {
		ERROR(p, span_make(start, 1), MSG_TOO_DEEP, MAX_DEPTH);
		return false;
	}
	t = tree_new(&p->run->arena, NODE_TABLE, p->src->id,
	    span_make(start, 1));
	*out = t;
	p->pos++;
	p->open++;
	p->in_inline = true;
	skip_ws(p);
	if (p->pos >= p->len || p->s[p->pos] != '}') {
		for (;;) {
			if (newline_at(p, p->pos)) {
				ERROR(p, span_make(p->pos, 0),
				    MSG_TOML_INLINE_NEWLINE);
				return false;
			}
			if (!keyval(p, t, level))
				return false;
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == '}')
				break;
			if (newline_at(p, p->pos)) {
				ERROR(p, span_make(p->pos, 0),
				    MSG_TOML_INLINE_NEWLINE);
				return false;
			}
			if (p->pos >= p->len || p->s[p->pos] != ',')
				return unexpected(p, p->pos,
				    MSG_TOML_EXPECTED_INLINE_SEP);
			comma = p->pos++;
			skip_ws(p);
			if (p->pos < p->len && p->s[p->pos] == '}') {
				ERROR(p, span_make(comma, 1),
				    MSG_TOML_INLINE_TRAILING_COMMA);
				return false;
			}
		}
	}
	p->pos++;
	p->open--;
	p->in_inline = outer;
	/* Closed for good: no header or dotted key may add to it. */
	t->flags |= NODE_FROZEN;
	t->span = span_make(start, p->pos - start);
	return true;
}

/* A value at p->pos; level is its depth below the root. */
static bool
value(struct parser *p, struct node **out, unsigned level)
{
	struct node *v;
	size_t start = p->pos;
	char c = p->s[start];

	if (start >= p->len)
		return unexpected(p, start, MSG_TOML_EXPECTED_VALUE);
	if (c == '[')
		return array(p, out, level);
	if (c == '{')
		return inline_table(p, out, level);
	if (c == '"' || c == '\'') {
		if (!string(p))
			return false;
		*out = tree_new_string(&p->run->arena,
		    p->str.data ? p->str.data : "", p->str.len, p->src->id,
		    span_make(start, p->pos - start));
		return true;
	}
	if (!is_word((unsigned char)c))
		return unexpected(p, start, MSG_TOML_EXPECTED_VALUE);
	v = tree_new(&p->run->arena, NODE_INT, p->src->id, span_make(start, 0));
	*out = v;
	return word(p, v);
}

/*
 * Walk the first n parts of a dotted key down from table t (at depth
 * tdepth), creating the tables that are missing.  A dotted key may enter
 * a table it or a header's path created, never one a header defined, an
 * inline table, or an array.  NULL after a (soft) error.
 */
static struct node *
dotted(struct parser *p, struct node *t, size_t n, unsigned tdepth,
    bool *fatal)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct keypart *kp = &p->parts[i];
		struct member *m = tree_member(t, kp->s, kp->len);
		struct node *v;

		if (!m) {
			if (tdepth + i + 1 > MAX_DEPTH) {
				ERROR(p, kp->span, MSG_TOO_DEEP, MAX_DEPTH);
				*fatal = true;
				return NULL;
			}
			v = tree_new(&p->run->arena, NODE_TABLE, p->src->id,
			    kp->span);
			v->flags = NODE_IMPLICIT | NODE_DOTTED;
			tree_add(&p->run->arena, t, kp->s, kp->len, p->src->id,
			    kp->span, v);
			t = v;
			continue;
		}
		v = m->value;
		if (v->kind != NODE_TABLE) {
			ERROR(p, kp->span, MSG_TOML_NOT_TABLE,
			    keyname(p, i + 1), what(v),
			    lineof(p, m->keyspan.off), "a table");
			return NULL;
		}
		if (v->flags & NODE_FROZEN) {
			ERROR(p, kp->span, MSG_TOML_INLINE_EXTEND,
			    keyname(p, i + 1), lineof(p, m->keyspan.off));
			return NULL;
		}
		if (v->flags & NODE_DEFINED) {
			ERROR(p, kp->span, MSG_TOML_DOTTED_ON_HEADER,
			    keyname(p, i + 1), lineof(p, v->span.off));
			return NULL;
		}
		t = v;
	}
	return t;
}

/* key = value, into table t at depth tdepth. */
static bool
keyval(struct parser *p, struct node *t, unsigned tdepth)
{
	struct keypart last;
	struct member *m;
	struct node *v;
	size_t n;
	bool fatal = false;

	if (!key(p, &n))
		return false;
	if (tdepth + n > MAX_DEPTH) {
		ERROR(p, p->parts[n - 1].span, MSG_TOO_DEEP, MAX_DEPTH);
		return false;
	}
	if (p->pos >= p->len || p->s[p->pos] != '=')
		return unexpected(p, p->pos, MSG_TOML_EXPECTED_EQUALS);
	p->pos++;
	skip_ws(p);
	/* Settle where the value goes before reading it, so that messages
	 * come out in the order of the text. */
	t = dotted(p, t, n - 1, tdepth, &fatal);
	if (fatal)
		return false;
	last = p->parts[n - 1];
	if (t && (m = tree_member(t, last.s, last.len)) != NULL) {
		ERROR(p, last.span, MSG_TOML_DUPLICATE_KEY, keyname(p, n),
		    lineof(p, m->keyspan.off));
		t = NULL;
	}
	if (!value(p, &v, tdepth + (unsigned)n))
		return false;
	if (t)
		tree_add(&p->run->arena, t, last.s, last.len, p->src->id,
		    last.span, v);
	return true;
}

/*
 * A [table] or [[array of tables]] header.  It makes p->cur the table
 * that the key/values below it fill; after an error that is a detached
 * table, so they are still checked but land nowhere.
 */
static bool
header(struct parser *p)
{
	struct arena *a = &p->run->arena;
	size_t start = p->pos, n, i;
	bool aot = p->s[start + 1] == '[';
	struct node *t = p->root, *v, *arr;
	struct member *m;
	struct keypart *kp;
	struct span hs;
	unsigned level = 0;

	p->cur = tree_new(a, NODE_TABLE, p->src->id, span_make(start, 1));
	p->curdepth = 0;
	p->pos += aot ? 2 : 1;
	skip_ws(p);
	if (!key(p, &n))
		return false;
	if (p->pos >= p->len || p->s[p->pos] != ']')
		return unexpected(p, p->pos, aot ? MSG_TOML_EXPECTED_AOT_CLOSE :
		    MSG_TOML_EXPECTED_HEADER_CLOSE);
	if (aot && p->s[p->pos + 1] != ']')
		return unexpected(p, p->pos + 1, MSG_TOML_EXPECTED_AOT_CLOSE);
	p->pos += aot ? 2 : 1;
	hs = span_make(start, p->pos - start);

	for (i = 0; i + 1 < n; i++) {
		kp = &p->parts[i];
		if (++level > MAX_DEPTH) {
			ERROR(p, kp->span, MSG_TOO_DEEP, MAX_DEPTH);
			return true;
		}
		m = tree_member(t, kp->s, kp->len);
		if (!m) {
			v = tree_new(a, NODE_TABLE, p->src->id, kp->span);
			v->flags = NODE_IMPLICIT;
			tree_add(a, t, kp->s, kp->len, p->src->id, kp->span, v);
			t = v;
			continue;
		}
		v = m->value;
		if (v->kind == NODE_ARRAY && (v->flags & NODE_AOT)) {
			/* [[a]] then [a.b]: b goes into the latest a. */
			level++;
			t = v->u.array.items[v->u.array.n - 1];
			continue;
		}
		if (v->kind != NODE_TABLE) {
			ERROR(p, kp->span, MSG_TOML_NOT_TABLE,
			    keyname(p, i + 1), what(v),
			    lineof(p, m->keyspan.off), "a table");
			return true;
		}
		if (v->flags & NODE_FROZEN) {
			ERROR(p, kp->span, MSG_TOML_INLINE_EXTEND,
			    keyname(p, i + 1), lineof(p, m->keyspan.off));
			return true;
		}
		t = v;
	}

	kp = &p->parts[n - 1];
	if (++level + aot > MAX_DEPTH) {
		ERROR(p, kp->span, MSG_TOO_DEEP, MAX_DEPTH);
		return true;
	}
	m = tree_member(t, kp->s, kp->len);
	v = m ? m->value : NULL;
	if (!aot) {
		if (!v) {
			v = tree_new(a, NODE_TABLE, p->src->id, hs);
			tree_add(a, t, kp->s, kp->len, p->src->id, kp->span, v);
		} else if (v->kind != NODE_TABLE) {
			ERROR(p, kp->span, MSG_TOML_NOT_TABLE, keyname(p, n),
			    what(v), lineof(p, m->keyspan.off), "a table");
			return true;
		} else if (v->flags & NODE_FROZEN) {
			ERROR(p, kp->span, MSG_TOML_INLINE_EXTEND,
			    keyname(p, n), lineof(p, m->keyspan.off));
			return true;
		} else if (v->flags & NODE_DEFINED) {
			ERROR(p, kp->span, MSG_TOML_TABLE_REDEFINED,
			    keyname(p, n), lineof(p, v->span.off));
			return true;
		} else if (v->flags & NODE_DOTTED) {
			ERROR(p, kp->span, MSG_TOML_HEADER_ON_DOTTED,
			    keyname(p, n), lineof(p, v->span.off));
			return true;
		}
		/* Created implicitly by an earlier header's path: this
		 * header defines it, once. */
		v->flags = (v->flags & ~(unsigned)NODE_IMPLICIT) | NODE_DEFINED;
		v->span = hs;
	} else {
		if (!v) {
			arr = tree_new(a, NODE_ARRAY, p->src->id, hs);
			arr->flags = NODE_AOT;
			tree_add(a, t, kp->s, kp->len, p->src->id, kp->span,
			    arr);
		} else if (v->kind == NODE_ARRAY && (v->flags & NODE_AOT)) {
			arr = v;
		} else if (v->kind == NODE_ARRAY) {
			ERROR(p, kp->span, MSG_TOML_STATIC_ARRAY, keyname(p, n),
			    lineof(p, m->keyspan.off));
			return true;
		} else {
			ERROR(p, kp->span, MSG_TOML_NOT_TABLE, keyname(p, n),
			    what(v), lineof(p, m->keyspan.off),
			    "an array of tables");
			return true;
		}
		level++;
		v = tree_new(a, NODE_TABLE, p->src->id, hs);
		v->flags = NODE_DEFINED;
		tree_push(a, arr, v);
	}
	v->flags |= NODE_DEFINED;
	p->cur = v;
	p->curdepth = level;
	return true;
}

/* After a key/value or a header: blanks, a comment, the line's end. */
static bool
end_of_line(struct parser *p, enum diag_msg msg)
{
	size_t k;

	skip_ws(p);
	if (p->pos < p->len && p->s[p->pos] == '#')
		comment(p);
	if (p->pos >= p->len)
		return true;
	if ((k = newline_at(p, p->pos)) != 0) {
		p->pos += k;
		return true;
	}
	return unexpected(p, p->pos, msg);
}

/*
 * Does the line at p->pos look like the start of a statement -- a
 * key/value (if keyval) or a table header?  Recovery stops there even
 * inside a value whose brackets never closed.
 */
static bool
restart_line(struct parser *p, bool keyval)
{
	const char *s = p->s;
	size_t i = p->pos, j;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (i >= p->len)
		return true;
	if (s[i] == '[') {
		i += s[i + 1] == '[' ? 2 : 1;
		while (s[i] == ' ' || s[i] == '\t')
			i++;
		if (!(is_bare((unsigned char)s[i]) || s[i] == '"' ||
		    s[i] == '\''))
			return false;
		/* A header ends its line with ']' and has no commas,
		 * unlike an inner array. */
		for (j = i; j < p->len && s[j] != '\n' && s[j] != '#'; j++)
			if (s[j] == ',')
				return false;
		while (j > i && (s[j - 1] == ' ' || s[j - 1] == '\t' ||
		    s[j - 1] == '\r'))
			j--;
		return j > i && s[j - 1] == ']';
	}
	if (!keyval)
		return false;
	for (j = i; j < p->len; j++) {
		if (s[j] == '"' || s[j] == '\'') {
			char q = s[j];

			for (j++; j < p->len && s[j] != q && s[j] != '\n'; j++)
				;
			if (j >= p->len || s[j] != q)
				return false;
		} else if (!is_bare((unsigned char)s[j]) && s[j] != '.' &&
		    s[j] != ' ' && s[j] != '\t') {
			break;
		}
	}
	return j > i && j < p->len && s[j] == '=';
}

/*
 * After a fatal error: skip the rest of the line.  If the error was
 * inside brackets, go on skipping lines until they close (counted
 * roughly, outside quotes and comments) or a line starts a new
 * statement, so one bad element does not turn every line of a long
 * array into an error of its own.  Inside an inline table, key/value
 * lines are most likely its own members (written across lines, as TOML
 * 1.0 does not allow), so only a header ends the skipping there.
 */
static void
recover(struct parser *p)
{
	const char *s = p->s;
	long depth = p->open;
	bool keyval = !p->in_inline;

	p->open = 0;
	p->in_inline = false;
	for (;;) {
		while (p->pos < p->len && s[p->pos] != '\n') {
			char c = s[p->pos++];

			if (c == '"' || c == '\'') {
				while (p->pos < p->len && s[p->pos] != c &&
				    s[p->pos] != '\n') {
					if (c == '"' && s[p->pos] == '\\' &&
					    s[p->pos + 1] != '\n')
						p->pos++;
					p->pos++;
				}
				if (p->pos < p->len && s[p->pos] == c)
					p->pos++;
			} else if (c == '#') {
				while (p->pos < p->len && s[p->pos] != '\n')
					p->pos++;
			} else if (c == '[' || c == '{') {
				depth++;
			} else if (c == ']' || c == '}') {
				depth--;
			}
		}
		if (p->pos >= p->len)
			return;
		p->pos++;
		if (depth <= 0 || restart_line(p, keyval))
			return;
	}
}

bool
toml_parse(struct run *run, struct source *src, struct node **out)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	bool ok;

	p->run = run;
	p->src = src;
	p->s = src->text;
	p->len = src->len;
	p->root = tree_new(&run->arena, NODE_TABLE, src->id,
	    span_make(0, src->len));
	p->root->flags = NODE_DEFINED;
	p->cur = p->root;
	p->pos = utf8_bom(p->s, p->len);
	while (!p->stop) {
		size_t k;
		char c;

		skip_ws(p);
		if (p->pos >= p->len)
			break;
		if ((k = newline_at(p, p->pos)) != 0) {
			p->pos += k;
			continue;
		}
		c = p->s[p->pos];
		if (c == '#') {
			comment(p);
			ok = end_of_line(p, MSG_TOML_EXPECTED_KEY);
		} else if (c == '[') {
			ok = header(p) && end_of_line(p,
			    MSG_TOML_EXPECTED_EOL_HEADER);
		} else {
			ok = keyval(p, p->cur, p->curdepth) && end_of_line(p,
			    MSG_TOML_EXPECTED_EOL_VALUE);
		}
		if (!ok)
			recover(p);
	}
	ok = p->errors == 0 && !p->stop;
	*out = p->root;
	buf_free(&p->str);
	free(p);
	return ok;
}
