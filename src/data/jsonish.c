#include "data/jsonish.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "data/tree.h"
#include "diag/run.h"

/* Deeper than any decision a model writes; deep enough to refuse a
 * stack-eating input quickly. */
#define DEPTH_MAX 256

struct reader {
	struct run *run;
	const struct source *src;
	const char *s;
	size_t i, end;
	struct jsonish_error *err;
};

static bool value(struct reader *r, struct node **out, unsigned depth);

static bool
fail(struct reader *r, size_t at, const char *why)
{
	r->err->off = (uint32_t)at;
	r->err->why = why;
	r->err->truncated = at >= r->end;
	return false;
}

static void
skip_space(struct reader *r)
{
	while (r->i < r->end && (r->s[r->i] == ' ' || r->s[r->i] == '\t' ||
	    r->s[r->i] == '\n' || r->s[r->i] == '\r'))
		r->i++;
}

static bool
is_ident(int c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	    (!first && c >= '0' && c <= '9');
}

static struct node *
new_node(struct reader *r, enum node_kind kind, size_t start)
{
	return tree_new(&r->run->arena, kind, r->src->id,
	    span_make(start, r->i - start));
}

/* \uXXXX (the u already read); pairs surrogates. */
static bool
unicode_escape(struct reader *r, struct buf *b)
{
	uint32_t cp = 0, lo = 0;
	size_t k;
	char enc[4];

	for (k = 0; k < 4; k++) {
		int v = r->i + k < r->end ? hex_value(r->s[r->i + k]) : -1;

		if (v < 0)
			return fail(r, r->i + k, "\\u needs four hex digits");
		cp = cp << 4 | (uint32_t)v;
	}
	r->i += 4;
	if (cp >= 0xd800 && cp < 0xdc00 && r->i + 6 <= r->end &&
	    r->s[r->i] == '\\' && r->s[r->i + 1] == 'u') {
		for (k = 0; k < 4; k++) {
			int v = hex_value(r->s[r->i + 2 + k]);

			if (v < 0)
				break;
			lo = lo << 4 | (uint32_t)v;
		}
		if (k == 4 && lo >= 0xdc00 && lo < 0xe000) {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			r->i += 6;
		}
	}
	if (cp >= 0xd800 && cp < 0xe000)
		cp = 0xfffd;    /* a lone surrogate: as JavaScript prints it */
	buf_put(b, enc, utf8_encode(cp, enc));
	return true;
}

static bool
string(struct reader *r, struct node **out)
{
	size_t start = r->i;
	char q = r->s[r->i++];
	struct buf b = BUF_INIT;

	for (;;) {
		char c;

		if (r->i >= r->end) {
			buf_free(&b);
			r->err->open = (uint32_t)start;
			r->err->has_open = true;
			return fail(r, r->i, "unterminated string");
		}
		c = r->s[r->i];
		if (c == q) {
			r->i++;
			break;
		}
		if (c != '\\') {
			buf_putc(&b, c);
			r->i++;
			continue;
		}
		if (++r->i >= r->end)
			continue;       /* reported as unterminated */
		c = r->s[r->i++];
		switch (c) {
		case 'n': buf_putc(&b, '\n'); break;
		case 't': buf_putc(&b, '\t'); break;
		case 'r': buf_putc(&b, '\r'); break;
		case 'b': buf_putc(&b, '\b'); break;
		case 'f': buf_putc(&b, '\f'); break;
		case '/': case '\\': case '"': case '\'':
			buf_putc(&b, c);
			break;
		case 'u':
			if (!unicode_escape(r, &b)) {
				buf_free(&b);
				return false;
			}
			break;
		default:
			buf_free(&b);
			return fail(r, r->i - 2, "unknown escape in string");
		}
	}
	*out = tree_new_string(&r->run->arena, b.data ? b.data : "", b.len,
	    r->src->id, span_make(start, r->i - start));
	buf_free(&b);
	return true;
}

static bool
number(struct reader *r, struct node **out)
{
	size_t start = r->i, n;
	bool frac = false;
	char tmp[64];

	if (r->s[r->i] == '-')
		r->i++;
	if (r->i >= r->end || r->s[r->i] < '0' || r->s[r->i] > '9')
		return fail(r, start, "expected a value");
	while (r->i < r->end && ((r->s[r->i] >= '0' && r->s[r->i] <= '9') ||
	    r->s[r->i] == '.' || r->s[r->i] == 'e' || r->s[r->i] == 'E' ||
	    ((r->s[r->i] == '+' || r->s[r->i] == '-') &&
	    (r->s[r->i - 1] == 'e' || r->s[r->i - 1] == 'E')))) {
		if (r->s[r->i] == '.' || r->s[r->i] == 'e' ||
		    r->s[r->i] == 'E')
			frac = true;
		r->i++;
	}
	n = r->i - start;
	if (n >= sizeof(tmp))
		return fail(r, start, "number too long");
	memcpy(tmp, r->s + start, n);
	tmp[n] = '\0';
	errno = 0;
	if (!frac) {
		char *e;
		long long v = strtoll(tmp, &e, 10);

		if (*e == '\0' && errno == 0) {
			*out = new_node(r, NODE_INT, start);
			(*out)->u.i = v;
			return true;
		}
		errno = 0;
	}
	{
		char *e;
		double f = strtod(tmp, &e);

		if (*e != '\0' || !isfinite(f))
			return fail(r, start, "invalid number");
		*out = new_node(r, NODE_FLOAT, start);
		(*out)->u.f = f;
	}
	return true;
}

/* true false null, and Python's True False None. */
static bool
word(struct reader *r, struct node **out)
{
	static const struct {
		const char *w;
		enum node_kind kind;
		bool b;
	} words[] = {
		{ "true", NODE_BOOL, true }, { "false", NODE_BOOL, false },
		{ "null", NODE_NULL, false }, { "True", NODE_BOOL, true },
		{ "False", NODE_BOOL, false }, { "None", NODE_NULL, false },
	};
	size_t start = r->i, n, k;

	while (r->i < r->end && is_ident(r->s[r->i], r->i == start))
		r->i++;
	n = r->i - start;
	for (k = 0; k < LEN(words); k++)
		if (strlen(words[k].w) == n &&
		    memcmp(words[k].w, r->s + start, n) == 0) {
			*out = new_node(r, words[k].kind, start);
			(*out)->u.b = words[k].b;
			return true;
		}
	return fail(r, start, n ? "not a JSON value" : "expected a value");
}

static bool
key(struct reader *r, struct node **out)
{
	size_t start = r->i;

	if (r->i < r->end && (r->s[r->i] == '"' || r->s[r->i] == '\''))
		return string(r, out);
	while (r->i < r->end && is_ident(r->s[r->i], r->i == start))
		r->i++;
	if (r->i == start)
		return fail(r, start, r->i >= r->end ? "unexpected end" :
		    "expected a key");
	*out = tree_new_string(&r->run->arena, r->s + start, r->i - start,
	    r->src->id, span_make(start, r->i - start));
	return true;
}

/* Input that ends inside a container names the innermost one opened:
 * the first container to see the truncation is the innermost. */
static void
note_open(struct reader *r, size_t start)
{
	if (r->err->truncated && !r->err->has_open) {
		r->err->open = (uint32_t)start;
		r->err->has_open = true;
	}
}

static bool
object(struct reader *r, struct node **out, unsigned depth)
{
	size_t start = r->i++;
	struct node *t = tree_new(&r->run->arena, NODE_TABLE, r->src->id,
	    span_make(start, 1));

	for (;;) {
		struct node *k, *v;

		skip_space(r);
		if (r->i < r->end && r->s[r->i] == '}')
			break;
		if (!key(r, &k))
			goto unclosed;
		skip_space(r);
		if (r->i >= r->end || r->s[r->i] != ':') {
			fail(r, r->i, "expected ':' after a key");
			goto unclosed;
		}
		r->i++;
		if (!value(r, &v, depth + 1))
			goto unclosed;
		/* A repeated key: the last one wins, as in JavaScript. */
		tree_set(&r->run->arena, t, k->u.str.s, k->u.str.len,
		    r->src->id, k->span, v);
		skip_space(r);
		if (r->i < r->end && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		if (r->i < r->end && r->s[r->i] == '}')
			break;
		fail(r, r->i, "expected ',' or '}' in an object");
		goto unclosed;
	}
	r->i++;
	t->span = span_make(start, r->i - start);
	*out = t;
	return true;
unclosed:
	note_open(r, start);
	return false;
}

static bool
array(struct reader *r, struct node **out, unsigned depth)
{
	size_t start = r->i++;
	struct node *a = tree_new(&r->run->arena, NODE_ARRAY, r->src->id,
	    span_make(start, 1));

	for (;;) {
		struct node *v;

		skip_space(r);
		if (r->i < r->end && r->s[r->i] == ']')
			break;
		if (!value(r, &v, depth + 1))
			goto unclosed;
		tree_push(&r->run->arena, a, v);
		skip_space(r);
		if (r->i < r->end && r->s[r->i] == ',') {
			r->i++;
			continue;
		}
		if (r->i < r->end && r->s[r->i] == ']')
			break;
		fail(r, r->i, "expected ',' or ']' in an array");
		goto unclosed;
	}
	r->i++;
	a->span = span_make(start, r->i - start);
	*out = a;
	return true;
unclosed:
	note_open(r, start);
	return false;
}

static bool
value(struct reader *r, struct node **out, unsigned depth)
{
	char c;

	if (depth > DEPTH_MAX)
		return fail(r, r->i, "nested too deeply");
	skip_space(r);
	if (r->i >= r->end)
		return fail(r, r->i, "unexpected end");
	c = r->s[r->i];
	if (c == '{')
		return object(r, out, depth);
	if (c == '[')
		return array(r, out, depth);
	if (c == '"' || c == '\'')
		return string(r, out);
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(r, out);
	return word(r, out);
}

bool
jsonish_parse(struct run *run, const struct source *src, size_t off,
    size_t end, struct node **out, size_t *stop, struct jsonish_error *err)
{
	struct reader r = { run, src, src->text, off, end, err };

	memset(err, 0, sizeof(*err));
	if (!value(&r, out, 0))
		return false;
	*stop = r.i;
	return true;
}
