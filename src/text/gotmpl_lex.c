/*
 * gotmpl_lex: Go template text into tokens, by Go's lexer -- text and
 * actions, trim markers, comments, quoted literals, numbers, keywords --
 * with Go's error texts; the values of the literal tokens (strconv's
 * Unquote, Go's number syntax); and the parser's error reporting.
 */
/* memmem() */
#define _GNU_SOURCE

#include "text/gotmpl_lex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "diag/run.h"

static const char *const keywords[] = {
	"block", "break", "continue", "define", "else", "end", "if", "range",
	"template", "with",
};

/* Lexer.  Its errors become a T_ERROR token, which the parser reports
 * when it reaches it (Go's lexer runs ahead of its parser the same
 * way). */

static void emit(struct parser *p, enum tok t, size_t off, size_t len);

static void
lex_error(struct parser *p, uint32_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
lex_error(struct parser *p, uint32_t off, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	emit(p, T_ERROR, off, 0);
	p->tok[p->ntok - 1].msg = arena_strndup(&p->run->arena, b.data,
	    b.len);
	buf_free(&b);
}

static bool
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool
is_alnum(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void
emit(struct parser *p, enum tok t, size_t off, size_t len)
{
	if (p->ntok == p->cap) {
		p->tok = arena_grow(&p->run->arena, p->tok, p->cap,
		    p->cap ? p->cap * 2 : 64, sizeof(*p->tok));
		p->cap = p->cap ? p->cap * 2 : 64;
	}
	p->tok[p->ntok].t = t;
	p->tok[p->ntok].off = (uint32_t)off;
	p->tok[p->ntok].len = (uint32_t)len;
	p->ntok++;
}

/* Go's %#U of the code point at s: U+0023 '#'. */
static const char *
char_u(struct parser *p, size_t off)
{
	uint32_t cp;
	size_t k = utf8_decode(p->s + off, p->n - off, &cp);

	if (!k)
		k = 1;
	return arena_printf(&p->run->arena, "U+%04X '%.*s'", cp, (int)k,
	    p->s + off);
}

static bool
at_right(const struct parser *p, size_t i, bool *trim)
{
	*trim = false;
	if (i + 3 < p->n + 0 && is_space(p->s[i]) && p->s[i + 1] == '-' &&
	    p->s[i + 2] == '}' && p->s[i + 3] == '}') {
		*trim = true;
		return true;
	}
	return i + 1 < p->n && p->s[i] == '}' && p->s[i + 1] == '}';
}

/* A number as Go's lexer scans it; false: bad syntax. */
static bool
scan_number(const struct parser *p, size_t *ip)
{
	size_t i = *ip;
	const char *digits = "0123456789_";

	if (i < p->n && (p->s[i] == '+' || p->s[i] == '-'))
		i++;
	if (i + 1 < p->n && p->s[i] == '0' && strchr("xXoObB", p->s[i + 1])) {
		char c = p->s[i + 1];

		i += 2;
		digits = c == 'x' || c == 'X' ? "0123456789abcdefABCDEF_" :
		    c == 'o' || c == 'O' ? "01234567_" : "01_";
	}
	while (i < p->n && strchr(digits, p->s[i]) && p->s[i])
		i++;
	if (i < p->n && p->s[i] == '.') {
		i++;
		while (i < p->n && strchr(digits, p->s[i]) && p->s[i])
			i++;
	}
	if (i < p->n && strlen(digits) == 11 && (p->s[i] == 'e' ||
	    p->s[i] == 'E')) {
		i++;
		if (i < p->n && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		while (i < p->n && is_digit(p->s[i]))
			i++;
	}
	if (i < p->n && strlen(digits) > 11 && (p->s[i] == 'p' ||
	    p->s[i] == 'P')) {
		i++;
		if (i < p->n && (p->s[i] == '+' || p->s[i] == '-'))
			i++;
		while (i < p->n && is_digit(p->s[i]))
			i++;
	}
	if (i < p->n && p->s[i] == 'i')
		i++;
	*ip = i;
	if (i < p->n && is_alnum(p->s[i])) {
		*ip = i + 1;
		return false;
	}
	return true;
}

/* A quoted string, raw string or character constant at *ip (its opening
 * quote); false when it is not closed (reported). */
static bool
lex_quoted(struct parser *p, size_t *ip)
{
	static const struct {
		char q;
		enum tok t;
		const char *unclosed;
	} kinds[] = {
		{ '"', T_STRING, "unterminated quoted string" },
		{ '`', T_RAWSTRING, "unterminated raw quoted string" },
		{ '\'', T_CHAR, "unterminated character constant" },
	};
	size_t st = *ip, i, k = 0;
	char q = p->s[st];

	while (kinds[k].q != q)
		k++;
	for (i = st + 1; i < p->n && p->s[i] != q; i++) {
		if (q == '`')
			continue;       /* raw: no escapes, newlines allowed */
		if (p->s[i] == '\\' && i + 1 < p->n && (q == '\'' ||
		    p->s[i + 1] != '\n'))
			i++;
		else if (p->s[i] == '\n')
			break;
	}
	if (i >= p->n || p->s[i] != q) {
		lex_error(p, (uint32_t)st, "%s", kinds[k].unclosed);
		return false;
	}
	emit(p, kinds[k].t, st, i + 1 - st);
	*ip = i + 1;
	return true;
}

/* An identifier, keyword, bool or nil at *ip; false when a character
 * no word may touch follows it (reported). */
static bool
lex_word(struct parser *p, size_t *ip)
{
	size_t st = *ip, i = st, k, len;
	enum tok t = T_IDENT;

	while (i < p->n && is_alnum(p->s[i]))
		i++;
	len = i - st;
	for (k = 0; k < LEN(keywords); k++)
		if (strlen(keywords[k]) == len &&
		    memcmp(keywords[k], p->s + st, len) == 0)
			t = (enum tok)(T_BLOCK + k);
	if ((len == 4 && memcmp(p->s + st, "true", 4) == 0) ||
	    (len == 5 && memcmp(p->s + st, "false", 5) == 0))
		t = T_BOOL;
	else if (len == 3 && memcmp(p->s + st, "nil", 3) == 0)
		t = T_NIL;
	if (i < p->n && !is_space(p->s[i]) && !strchr(".,|:)(", p->s[i]) &&
	    !(p->s[i] == '}' && i + 1 < p->n && p->s[i + 1] == '}')) {
		lex_error(p, (uint32_t)i, "bad character %s", char_u(p, i));
		return false;
	}
	emit(p, t, st, len);
	*ip = i;
	return true;
}

/* The tokens of one action, from i (after the left delimiter); returns
 * the offset after the right delimiter, or 0 on error. */
static size_t
lex_action(struct parser *p, size_t i, bool *rtrim)
{
	int parens = 0;
	size_t st;

	for (;;) {
		bool trim;

		if (i >= p->n) {
			lex_error(p, (uint32_t)i, "unclosed action");
			return 0;
		}
		if (at_right(p, i, &trim) && parens > 0) {
			lex_error(p, (uint32_t)i, "unclosed left paren");
			return 0;
		}
		if (at_right(p, i, &trim)) {
			emit(p, T_RIGHT, i + (trim ? 2 : 0), 2);
			*rtrim = trim;
			return i + (trim ? 4 : 2);
		}
		st = i;
		if (is_space(p->s[i])) {
			while (i < p->n && is_space(p->s[i]) &&
			    !(at_right(p, i, &trim) && trim))
				i++;
			if (i == st) {  /* " -}}" right here */
				emit(p, T_RIGHT, i + 2, 2);
				*rtrim = true;
				return i + 4;
			}
			emit(p, T_SPACE, st, i - st);
			continue;
		}
		switch (p->s[i]) {
		case '=':
			emit(p, T_ASSIGN, i, 1);
			i++;
			continue;
		case ':':
			if (i + 1 >= p->n || p->s[i + 1] != '=') {
				lex_error(p, (uint32_t)i, "expected :=");
				return 0;
			}
			emit(p, T_DECLARE, i, 2);
			i += 2;
			continue;
		case '|':
			emit(p, T_PIPE, i, 1);
			i++;
			continue;
		case ',':
			emit(p, T_COMMA, i, 1);
			i++;
			continue;
		case '(':
			emit(p, T_LPAREN, i, 1);
			parens++;
			i++;
			continue;
		case ')':
			emit(p, T_RPAREN, i, 1);
			if (--parens < 0) {
				lex_error(p, (uint32_t)i,
				    "unexpected right paren %s",
				    char_u(p, i));
				return 0;
			}
			i++;
			continue;
		case '"':
		case '`':
		case '\'':
			if (!lex_quoted(p, &i))
				return 0;
			continue;
		case '$':
			for (i++; i < p->n && is_alnum(p->s[i]); i++)
				;
			emit(p, T_VARIABLE, st, i - st);
			continue;
		case '.':
			if (i + 1 < p->n && is_digit(p->s[i + 1]))
				break;
			if (i + 1 < p->n && is_alnum(p->s[i + 1])) {
				for (i++; i < p->n && is_alnum(p->s[i]); i++)
					;
				emit(p, T_FIELD, st, i - st);
			} else {
				emit(p, T_DOT, st, 1);
				i++;
			}
			continue;
		default:
			break;
		}
		if (is_digit(p->s[i]) || p->s[i] == '.' || p->s[i] == '+' ||
		    p->s[i] == '-') {
			if (!scan_number(p, &i)) {
				lex_error(p, (uint32_t)st,
				    "bad number syntax: \"%.*s\"",
				    (int)(i - st), p->s + st);
				return 0;
			}
			emit(p, T_NUMBER, st, i - st);
			continue;
		}
		if (is_alnum(p->s[i])) {
			if (!lex_word(p, &i))
				return 0;
			continue;
		}
		if ((unsigned char)p->s[i] > ' ' && (unsigned char)p->s[i] < 0x7f) {
			emit(p, T_PUNCT, i, 1);
			i++;
			continue;
		}
		lex_error(p, (uint32_t)i, "unrecognized character in action: %s",
		    char_u(p, i));
		return 0;
	}
}

static void
lex_all(struct parser *p)
{
	size_t i = 0, d, end;
	bool rtrim = false, trim;

	while (i < p->n) {
		const char *q = memmem(p->s + i, p->n - i, "{{", 2);
		bool ltrim;

		d = q ? (size_t)(q - p->s) : p->n;
		ltrim = q && d + 3 < p->n && p->s[d + 2] == '-' &&
		    is_space(p->s[d + 3]);
		end = d;
		if (rtrim)
			while (i < end && is_space(p->s[i]))
				i++;
		if (ltrim)
			while (end > i && is_space(p->s[end - 1]))
				end--;
		if (end > i)
			emit(p, T_TEXT, i, end - i);
		rtrim = false;
		if (!q)
			return;
		i = d + 2 + (ltrim ? 2 : 0);
		emit(p, T_LEFT, d, 2);
		if (i + 1 < p->n && p->s[i] == '/' && p->s[i + 1] == '*') {
			const char *c = memmem(p->s + i + 2, p->n - i - 2, "*/",
			    2);

			if (!c) {
				lex_error(p, (uint32_t)i, "unclosed comment");
				return;
			}
			i = (size_t)(c - p->s) + 2;
			if (!at_right(p, i, &trim)) {
				lex_error(p, (uint32_t)i,
				    "comment ends before closing delimiter");
				return;
			}
			p->ntok--;      /* comments leave no token */
			i += trim ? 4 : 2;
			rtrim = trim;
			continue;
		}
		if (!(i = lex_action(p, i, &rtrim)))
			return;
	}
}

void
gt_lex(struct parser *p)
{
	lex_all(p);
	emit(p, T_EOF, p->n, 0);
}

/* The parser's errors, and the values of literal tokens. */

void
gt_perror(struct parser *p, uint32_t off, const char *fmt, ...)
{
	va_list ap;
	struct buf b = BUF_INIT;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	diag_error(p->run, p->src, span_make(off, 0), MSG_GOTMPL_PARSE,
	    b.data);
	buf_free(&b);
}

/* strconv.Unquote for "..." and '...' (escapes) and `...`. */
bool
gt_unquote(struct parser *p, const char *s, size_t n, struct buf *out)
{
	size_t i;
	char q = s[0];

	if (q == '`') {
		buf_put(out, s + 1, n - 2);
		return true;
	}
	for (i = 1; i + 1 < n; i++) {
		uint32_t cp = 0;
		int k, digits = 0;
		char tmp[4];

		if (s[i] != '\\') {
			buf_putc(out, s[i]);
			continue;
		}
		i++;
		switch (s[i]) {
		case 'a': buf_putc(out, '\a'); continue;
		case 'b': buf_putc(out, '\b'); continue;
		case 'f': buf_putc(out, '\f'); continue;
		case 'n': buf_putc(out, '\n'); continue;
		case 'r': buf_putc(out, '\r'); continue;
		case 't': buf_putc(out, '\t'); continue;
		case 'v': buf_putc(out, '\v'); continue;
		case '\\': buf_putc(out, '\\'); continue;
		case '"':
		case '\'':
			if (s[i] != q)
				return false;
			buf_putc(out, s[i]);
			continue;
		case 'x': digits = 2; break;
		case 'u': digits = 4; break;
		case 'U': digits = 8; break;
		default:
			if (s[i] >= '0' && s[i] <= '7') {
				if (i + 2 >= n - 1)
					return false;
				for (k = 0; k < 3; k++) {
					if (s[i + k] < '0' || s[i + k] > '7')
						return false;
					cp = cp * 8 + (uint32_t)(s[i + k] -
					    '0');
				}
				if (cp > 255)
					return false;
				buf_putc(out, (int)cp);
				i += 2;
				continue;
			}
			return false;
		}
		for (k = 1; k <= digits; k++) {
			int h = i + (size_t)k < n - 1 ? hex_value(s[i + k]) :
			    -1;

			if (h < 0)
				return false;
			cp = cp * 16 + (uint32_t)h;
		}
		i += (size_t)digits;
		if (digits == 2) {
			buf_putc(out, (int)cp);
		} else {
			if (cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000))
				return false;
			buf_put(out, tmp, utf8_encode(cp, tmp));
		}
	}
	(void)p;
	return true;
}

bool
gt_number(struct parser *p, const struct token *t, struct gt_arg *a)
{
	const char *s = arena_strndup(&p->run->arena, p->s + t->off, t->len);
	char *clean = arena_strdup(&p->run->arena, s), *w = clean, *end;
	const char *r;
	bool hex = strncmp(s + (*s == '-' || *s == '+'), "0x", 2) == 0 ||
	    strncmp(s + (*s == '-' || *s == '+'), "0X", 2) == 0;

	for (r = s; *r; r++)
		if (*r != '_')
			*w++ = *r;
	*w = '\0';
	if (t->t == T_CHAR) {
		struct buf b = BUF_INIT;
		uint32_t cp;

		if (!gt_unquote(p, s, strlen(s), &b) || !b.len ||
		    utf8_decode(b.data, b.len, &cp) != b.len) {
			buf_free(&b);
			gt_perror(p, t->off, "malformed character constant: %s",
			    s);
			return false;
		}
		buf_free(&b);
		a->value = gv_int(cp);
		return true;
	}
	if (strchr(clean, 'i')) {
		gt_perror(p, t->off, "complex numbers are not supported: %s",
		    s);
		return false;
	}
	if (!hex && strpbrk(clean, ".eE")) {
		errno = 0;
		a->value = gv_float(strtod(clean, &end));
		a->isfloat = true;
		if (*end || end == clean) {
			gt_perror(p, t->off, "illegal number syntax: \"%s\"", s);
			return false;
		}
	} else {
		const char *d = clean;
		bool neg = false;
		int base = 10;

		if (*d == '-' || *d == '+')
			neg = *d++ == '-';
		if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
			base = 16, d += 2;
		else if (d[0] == '0' && (d[1] == 'o' || d[1] == 'O'))
			base = 8, d += 2;
		else if (d[0] == '0' && (d[1] == 'b' || d[1] == 'B'))
			base = 2, d += 2;
		else if (d[0] == '0' && d[1])
			base = 8, d += 1;
		errno = 0;
		{
			unsigned long long u = strtoull(d, &end, base);

			if (*end || end == d) {
				gt_perror(p, t->off,
				    "illegal number syntax: \"%s\"", s);
				return false;
			}
			if (errno || u > (unsigned long long)INT64_MAX +
			    neg) {
				/* Go parses it; using it as an int fails */
				a->value = gv_invalid();
				return true;
			}
			a->value = gv_int(neg ? (int64_t)(0 - u) :
			    (int64_t)u);
		}
	}
	return true;
}
