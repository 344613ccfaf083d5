/*
 * JSON is read by a small strict scanner that builds the config tree as
 * it goes: one pass over the text, every node and key with its span,
 * integers exact, strings whole (\u0000 included).  It refuses what a
 * lenient reader lets through: leading zeros, "1.", "-.5", raw control
 * characters in strings, control bytes as white space, invalid UTF-8,
 * duplicate keys; each error names what was expected at the offending
 * byte.
 *
 * The scanner recurses once per nesting level, which MAX_DEPTH bounds;
 * trees from the readers are that shallow, so json_write() recurses too.
 */
#include "data/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "diag/diag.h"
#include "diag/run.h"
#include "diag/source.h"
#include "data/tree.h"
#include "base/util.h"

/* Nesting levels (cJSON's limit, which this reader used to sit behind). */
#define MAX_DEPTH 1000
/* Key strings remembered for sharing (a power of two), and the longest. */
#define KEY_CACHE 64
#define KEY_CACHE_LEN 32
/* Duplicate keys and range errors reported before the reader stops. */
#define MAX_ERRORS 20
/* How much of a key or word a message quotes, in code points. */

struct walker {
	struct run *run;
	const struct source *src;
	const char *s;          /* the whole source text */
	size_t n, pos;          /* pos: the next byte to read */
	struct buf tmp;         /* the last string decoded, or number text */
	unsigned errors0;
	struct node **elems;    /* elements of the open arrays */
	size_t nelems, capelems;
	struct member *members; /* members of the open small objects */
	size_t nmembers, capmembers;
	const char *keys[KEY_CACHE];    /* recent key strings, to share */
};

/* The character at off, as a message names it: 'x' or U+0001. */
static const char *
char_shown(struct walker *w, size_t off)
{
	uint32_t c;
	size_t k = utf8_decode(w->s + off, w->n - off, &c);

	if (k == 0)
		return arena_printf(&w->run->arena, "byte 0x%02x",
		    (unsigned char)w->s[off]);
	if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
		return arena_printf(&w->run->arena, "U+%04X", (unsigned)c);
	if (c == '\'')
		return "\"'\"";
	return arena_printf(&w->run->arena, "'%.*s'", (int)k, w->s + off);
}

static struct span
char_span(struct walker *w, size_t off)
{
	uint32_t c;
	size_t k;

	if (off >= w->n)
		return span_make(w->n, 0);
	k = utf8_decode(w->s + off, w->n - off, &c);
	return span_make(off, k ? k : 1);
}

/* Report the byte at pos as not what was expected there. */
static void
unexpected(struct walker *w, const char *expected)
{
	uint32_t c;

	if (w->pos >= w->n)
		diag_error(w->run, w->src, span_make(w->n, 0), MSG_JSON_EOF,
		    expected);
	else if (w->s[w->pos] == '\0')
		diag_error(w->run, w->src, span_make(w->pos, 1), MSG_NUL_BYTE);
	else if (utf8_decode(w->s + w->pos, w->n - w->pos, &c) == 0)
		diag_error(w->run, w->src, span_make(w->pos, 1),
		    MSG_INVALID_UTF8);
	else
		diag_error(w->run, w->src, char_span(w, w->pos),
		    MSG_JSON_UNEXPECTED, char_shown(w, w->pos), expected);
}

static bool
soft(struct walker *w)
{
	return w->run->diag.errors - w->errors0 < MAX_ERRORS;
}

static void
skip_ws(struct walker *w)
{
	while (w->pos < w->n && (w->s[w->pos] == ' ' ||
	    w->s[w->pos] == '\t' || w->s[w->pos] == '\n' ||
	    w->s[w->pos] == '\r'))
		w->pos++;
}

static int
peek(const struct walker *w)
{
	return w->pos < w->n ? (unsigned char)w->s[w->pos] : -1;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
hex4(const char *s, size_t n, size_t i, uint32_t *out)
{
	uint32_t v = 0;
	size_t j;

	if (n < 4 || i > n - 4)
		return false;
	for (j = i; j < i + 4; j++) {
		char c = s[j];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return false;
	}
	*out = v;
	return true;
}

/* The escape at *ip (a backslash) into w->tmp; *ip moves past it. */
static bool
escape(struct walker *w, size_t *ip)
{
	static const char plain[] = "\"\\/bfnrt";
	static const char value[] = "\"\\/\b\f\n\r\t";
	size_t i = *ip, k;
	uint32_t c, lo;
	const char *p;
	char enc[4];

	if (w->s[i + 1] != '\0' && (p = strchr(plain, w->s[i + 1])) != NULL) {
		buf_putc(&w->tmp, value[p - plain]);
		*ip = i + 2;
		return true;
	}
	if (w->s[i + 1] != 'u') {       /* string() saw that i + 1 < n */
		k = 1 + char_span(w, i + 1).len;
		diag_error(w->run, w->src, span_make(i, k), MSG_JSON_ESCAPE,
		    diag_shown(w->run, w->s + i, k));
		return false;
	}
	if (!hex4(w->s, w->n, i + 2, &c)) {
		k = w->n - i < 6 ? w->n - i : 6;
		diag_error(w->run, w->src, span_make(i, k), MSG_JSON_ESCAPE,
		    diag_shown(w->run, w->s + i, k));
		return false;
	}
	*ip = i + 6;
	if (c >= 0xd800 && c <= 0xdbff && i + 12 <= w->n &&
	    w->s[i + 6] == '\\' && w->s[i + 7] == 'u' &&
	    hex4(w->s, w->n, i + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
		*ip = i + 12;
	} else if (c >= 0xd800 && c <= 0xdfff) {
		diag_error(w->run, w->src, span_make(i, 6), MSG_JSON_SURROGATE,
		    diag_shown(w->run, w->s + i, 6));
		return false;
	}
	buf_put(&w->tmp, enc, utf8_encode(c, enc));
	return true;
}

/*
 * The string at pos (a '"') decoded, its span in *sp.  The text is in
 * *out, *outlen: the source's own bytes when it holds no escape, else
 * w->tmp.  A raw newline ends the search: it almost always means a
 * missing quote, and the opening quote is the place to show.
 */
/* The bytes a string's text holds as they are: ASCII from 0x20 up but
 * '"' and '\\'.  The others end the fast scan in string(). */
#define P16 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
static const unsigned char plain_byte[256] = {
	[0x20] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	[0x30] = P16, P16,
	[0x50] = 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	[0x60] = P16, P16,
};
#undef P16

size_t
json_plain_span(const char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101u, high = ones * 0x80;
	uint64_t x;
	size_t i = 0;

	/* A lane's high bit is set by a byte >= 0x80, and by x - 0x20 or
	 * (x ^ c) - 1 going below zero for a control byte, '"' or '\\'.
	 * Only such a byte borrows from the lane above it, so a word with
	 * no bit set holds only plain bytes, and of the lanes set the one
	 * at the lowest address is the first byte that is not plain. */
	while (n - i >= 8) {
		memcpy(&x, s + i, 8);
		x = ((x - ones * 0x20) | ((x ^ ones * '"') - ones) |
		    ((x ^ ones * '\\') - ones) | x) & high;
		if (x) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			/* The lowest lane set is the first such byte. */
			return i + (size_t)(__builtin_ctzll(x) >> 3);
#else
			break;
#endif
		}
		i += 8;
	}
	while (i < n && plain_byte[(unsigned char)s[i]])
		i++;
	return i;
}

static bool
string(struct walker *w, struct span *sp, const char **out, size_t *outlen)
{
	const char *s = w->s;
	size_t start = w->pos, i = start + 1, from, k, eol;
	unsigned char c;
	uint32_t cp;
	bool verbatim = true;   /* no escape yet: the text is s[start+1..i) */

	for (;;) {
		from = i;
		i += json_plain_span(s + i, w->n - i);
		if (!verbatim)
			buf_put(&w->tmp, s + from, i - from);
		if (i >= w->n || s[i] == '\n' ||
		    (s[i] == '\\' && i + 1 >= w->n)) {
			for (eol = start; eol < w->n && s[eol] != '\n'; eol++)
				;
			diag_error(w->run, w->src, span_make(start,
			    eol - start), MSG_JSON_UNTERMINATED);
			return false;
		}
		c = (unsigned char)s[i];
		if (c == '"')
			break;
		if (c == '\\') {
			if (verbatim) {
				buf_reset(&w->tmp);
				buf_put(&w->tmp, s + start + 1, i - start - 1);
				verbatim = false;
			}
			if (!escape(w, &i))
				return false;
			continue;
		}
		if (c == '\0') {
			diag_error(w->run, w->src, span_make(i, 1),
			    MSG_NUL_BYTE);
			return false;
		}
		if (c < 0x20) {
			diag_error(w->run, w->src, span_make(i, 1),
			    MSG_JSON_CONTROL, char_shown(w, i));
			return false;
		}
		k = utf8_decode(s + i, w->n - i, &cp);
		if (k == 0) {
			diag_error(w->run, w->src, span_make(i, 1),
			    MSG_INVALID_UTF8);
			return false;
		}
		if (!verbatim)
			buf_put(&w->tmp, s + i, k);
		i += k;
	}
	if (verbatim) {
		*out = s + start + 1;
		*outlen = i - start - 1;
	} else {
		*out = w->tmp.data ? w->tmp.data : "";
		*outlen = w->tmp.len;
	}
	w->pos = i + 1;
	*sp = span_make(start, w->pos - start);
	return true;
}

static bool
number_error(struct walker *w, size_t at, const char *why)
{
	diag_error(w->run, w->src, char_span(w, at), MSG_JSON_NUMBER, why);
	return false;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, exactly. */
static bool
scan_number(struct walker *w, bool *isint)
{
	const char *s = w->s;
	size_t i = w->pos;

	*isint = true;
	if (s[i] == '-')
		i++;
	if (i >= w->n || !is_digit(s[i]))
		return number_error(w, i, "expected a digit after '-'");
	if (s[i] == '0') {
		i++;
		if (i < w->n && is_digit(s[i]))
			return number_error(w, i,
			    "leading zeros are not allowed");
	}
	while (i < w->n && is_digit(s[i]))
		i++;
	if (i < w->n && s[i] == '.') {
		*isint = false;
		if (++i >= w->n || !is_digit(s[i]))
			return number_error(w, i, "expected a digit after '.'");
		while (i < w->n && is_digit(s[i]))
			i++;
	}
	if (i < w->n && (s[i] == 'e' || s[i] == 'E')) {
		*isint = false;
		i++;
		if (i < w->n && (s[i] == '-' || s[i] == '+'))
			i++;
		if (i >= w->n || !is_digit(s[i]))
			return number_error(w, i,
			    "expected a digit in the exponent");
		while (i < w->n && is_digit(s[i]))
			i++;
	}
	w->pos = i;
	return true;
}

/* Decimal text (validated) into an int64; false if it does not fit. */
static bool
to_int(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, limit;
	size_t i = 0;
	bool neg = false;

	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; i < n; i++) {
		uint64_t d = (uint64_t)(s[i] - '0');

		if (v > (limit - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (!neg)
		*out = (int64_t)v;
	else if (v == (uint64_t)INT64_MAX + 1)
		*out = INT64_MIN;
	else
		*out = -(int64_t)v;
	return true;
}

/*
 * Integers that fit come from the text, exactly; the rest is strtod's,
 * which reads '.' as the decimal point because strata never calls
 * setlocale(), so LC_NUMERIC stays "C" whatever the environment says.
 */
static struct node *
number(struct walker *w)
{
	struct arena *a = &w->run->arena;
	size_t start = w->pos;
	struct span sp;
	struct node *v;
	bool isint;
	int64_t i;
	double d;

	if (!scan_number(w, &isint))
		return NULL;
	sp = span_make(start, w->pos - start);
	if (isint && to_int(w->s + start, sp.len, &i)) {
		v = tree_new(a, NODE_INT, w->src->id, sp);
		v->u.i = i;
		return v;
	}
	buf_reset(&w->tmp);
	buf_put(&w->tmp, w->s + start, sp.len);
	errno = 0;
	d = strtod(w->tmp.data, NULL);
	if (errno == ERANGE && isinf(d)) {
		diag_error(w->run, w->src, sp, MSG_JSON_NUMBER_RANGE);
		return soft(w) ? tree_new(a, NODE_NULL, w->src->id, sp) : NULL;
	}
	v = tree_new(a, NODE_FLOAT, w->src->id, sp);
	v->u.f = d;
	return v;
}

/* true, false, null -- or a word that is none of them. */
static struct node *
word(struct walker *w)
{
	size_t start = w->pos, n;
	const char *s = w->s + start;
	struct span sp;
	struct node *v;

	while (w->pos < w->n && ((w->s[w->pos] >= 'a' && w->s[w->pos] <= 'z') ||
	    (w->s[w->pos] >= 'A' && w->s[w->pos] <= 'Z') ||
	    is_digit(w->s[w->pos]) || w->s[w->pos] == '_'))
		w->pos++;
	n = w->pos - start;
	sp = span_make(start, n);
	if ((n == 4 && memcmp(s, "true", 4) == 0) ||
	    (n == 5 && memcmp(s, "false", 5) == 0)) {
		v = tree_new(&w->run->arena, NODE_BOOL, w->src->id, sp);
		v->u.b = s[0] == 't';
		return v;
	}
	if (n == 4 && memcmp(s, "null", 4) == 0)
		return tree_new(&w->run->arena, NODE_NULL, w->src->id, sp);
	diag_error(w->run, w->src, sp, MSG_JSON_WORD, diag_shown(w->run, s, n));
	return NULL;
}

static struct node *value(struct walker *w, int depth);

/* Room for one more element on the walker's stack of open arrays. */
static void
elem_push(struct walker *w, struct node *v)
{
	if (w->nelems == w->capelems) {
		w->capelems = w->capelems ? w->capelems * 2 : 64;
		w->elems = xreallocarray(w->elems, w->capelems,
		    sizeof(*w->elems));
	}
	w->elems[w->nelems++] = v;
}

/*
 * The elements of an array wait on the walker's stack (nested arrays
 * above them) and move into the arena once, at their final size.
 */
static struct node *
array(struct walker *w, int depth)
{
	size_t start = w->pos, base = w->nelems, n;
	struct node *arr, *v;

	if (depth > MAX_DEPTH) {
		diag_error(w->run, w->src, span_make(start, 1), MSG_TOO_DEEP,
		    MAX_DEPTH);
		return NULL;
	}
	arr = tree_new(&w->run->arena, NODE_ARRAY, w->src->id,
	    span_make(start, 1));
	w->pos++;
	skip_ws(w);
	if (peek(w) == ']') {
		w->pos++;
	} else {
		for (;;) {
			v = value(w, depth);
			if (!v)
				goto fail;
			elem_push(w, v);
			skip_ws(w);
			if (peek(w) == ']') {
				w->pos++;
				break;
			}
			if (peek(w) != ',') {
				unexpected(w, "',' or ']'");
				goto fail;
			}
			w->pos++;
		}
	}
	n = w->nelems - base;
	if (n) {
		arr->u.array.items = arena_array(&w->run->arena, n,
		    sizeof(*arr->u.array.items));
		memcpy(arr->u.array.items, w->elems + base,
		    n * sizeof(*arr->u.array.items));
		arr->u.array.n = arr->u.array.cap = n;
	}
	w->nelems = base;
	arr->span.len = (uint32_t)(w->pos - start);
	return arr;
fail:
	w->nelems = base;
	return NULL;
}

/*
 * The members of a small object wait on the walker's stack, found by a
 * linear search as tree_member() would, and move into the arena once, at
 * their final size.  An object that grows past SMALL_OBJECT moves into
 * its table at once and goes on through tree_add(), which indexes it.
 * Up to 32 members a table is left without an index (tree.c would give
 * one from 17): a search of 32 keys by length and bytes costs no more
 * than hashing the key, and a world entry's 20 fields, hashed on every
 * add and indexed twice over, made up a fifth of a 300-entry world's
 * reading.
 */
#define SMALL_OBJECT 32

static struct member *
member_find(struct walker *w, struct node *t, size_t base, const char *k,
    size_t klen)
{
	size_t i;

	if (t->u.table.n)
		return tree_member(t, k, klen);
	for (i = base; i < w->nmembers; i++)
		if (w->members[i].keylen == klen &&
		    memcmp(w->members[i].key, k, klen) == 0)
			return &w->members[i];
	return NULL;
}

/*
 * The arena copy of key k: the objects of an array mostly repeat the same
 * keys, so a short key already seen in its cache slot is shared, not
 * copied again (tree keys are never written to).
 */
static const char *
key_copy(struct walker *w, const char *k, size_t klen)
{
	const char **slot, *c;

	if (klen == 0 || klen > KEY_CACHE_LEN || memchr(k, '\0', klen))
		return arena_strndup(&w->run->arena, k, klen);
	slot = &w->keys[((unsigned char)k[0] * 31u + (unsigned char)k[klen -
	    1] * 7u + (unsigned)klen) & (KEY_CACHE - 1)];
	c = *slot;
	if (c && strncmp(c, k, klen) == 0 && c[klen] == '\0')
		return c;
	return *slot = arena_strndup(&w->run->arena, k, klen);
}

static void
members_to_table(struct walker *w, struct node *t, size_t base)
{
	size_t n = w->nmembers - base;

	if (n) {
		t->u.table.items = arena_array(&w->run->arena, n,
		    sizeof(*t->u.table.items));
		memcpy(t->u.table.items, w->members + base,
		    n * sizeof(*t->u.table.items));
		t->u.table.n = t->u.table.cap = n;
	}
	w->nmembers = base;
}

static struct node *
object(struct walker *w, int depth)
{
	size_t start = w->pos, base = w->nmembers, klen, i;
	struct arena *a = &w->run->arena;
	struct node *t, *v;
	struct member *m, *items;
	struct span ks;
	const char *k, *shown;
	long at;
	/* A bit for each key on the stack, by its first and last bytes
	 * and length: a key whose bit is clear is new without a search. */
	uint64_t seen = 0, bit;

	if (depth > MAX_DEPTH) {
		diag_error(w->run, w->src, span_make(start, 1), MSG_TOO_DEEP,
		    MAX_DEPTH);
		return NULL;
	}
	t = tree_new(a, NODE_TABLE, w->src->id, span_make(start, 1));
	w->pos++;
	skip_ws(w);
	if (peek(w) == '}') {
		w->pos++;
		goto done;
	}
	for (;;) {
		skip_ws(w);
		if (peek(w) != '"') {
			unexpected(w, t->u.table.n || w->nmembers > base ?
			    "a string key" : "a string key or '}'");
			goto fail;
		}
		if (!string(w, &ks, &k, &klen))
			goto fail;
		bit = (uint64_t)1 << ((klen ? (unsigned char)k[0] * 31u +
		    (unsigned char)k[klen - 1] * 7u + (unsigned)klen : 0) & 63);
		m = t->u.table.n || (seen & bit) ? member_find(w, t, base, k,
		    klen) : NULL;
		seen |= bit;
		at = -1;
		if (m) {
			shown = diag_shown(w->run, k, klen);
			diag_error(w->run, w->src, ks, MSG_JSON_DUP_KEY, shown);
			diag_note(w->run, w->src, m->keyspan,
			    MSG_JSON_FIRST_KEY, shown);
			if (!soft(w))
				goto fail;
		} else if (t->u.table.n) {
			tree_add(a, t, k, klen, w->src->id, ks, NULL);
			at = (long)t->u.table.n - 1;
		} else {
			if (w->nmembers == w->capmembers) {
				w->capmembers = w->capmembers ?
				    w->capmembers * 2 : 64;
				w->members = xreallocarray(w->members,
				    w->capmembers, sizeof(*w->members));
			}
			m = &w->members[w->nmembers];
			m->key = key_copy(w, k, klen);
			m->keylen = klen;
			m->keysrc = w->src->id;
			m->keyspan = ks;
			m->value = NULL;
			at = (long)(w->nmembers++ - base);
		}
		skip_ws(w);
		if (peek(w) != ':') {
			unexpected(w, "':'");
			goto fail;
		}
		w->pos++;
		v = value(w, depth);
		if (!v)
			goto fail;
		if (at >= 0 && t->u.table.n)
			t->u.table.items[at].value = v;
		else if (at >= 0)
			w->members[base + (size_t)at].value = v;
		if (!t->u.table.n && w->nmembers - base > SMALL_OBJECT) {
			items = w->members + base;
			for (i = 0; i < w->nmembers - base; i++)
				tree_add(a, t, items[i].key, items[i].keylen,
				    items[i].keysrc, items[i].keyspan,
				    items[i].value);
			w->nmembers = base;
		}
		skip_ws(w);
		if (peek(w) == '}') {
			w->pos++;
			break;
		}
		if (peek(w) != ',') {
			unexpected(w, "',' or '}'");
			goto fail;
		}
		w->pos++;
	}
done:
	if (!t->u.table.n)
		members_to_table(w, t, base);
	t->span.len = (uint32_t)(w->pos - start);
	return t;
fail:
	w->nmembers = base;
	return NULL;
}

/* One value at pos (after white space); NULL after a syntax error. */
static struct node *
value(struct walker *w, int depth)
{
	struct span sp;
	const char *s;
	size_t len;
	int c;

	skip_ws(w);
	c = peek(w);
	if (c == '{')
		return object(w, depth + 1);
	if (c == '[')
		return array(w, depth + 1);
	if (c == '-' || is_digit(c))
		return number(w);
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
		return word(w);
	if (c == '"') {
		if (!string(w, &sp, &s, &len))
			return NULL;
		return tree_new_string(&w->run->arena, s, len, w->src->id, sp);
	}
	unexpected(w, "a value");
	return NULL;
}

bool
json_parse(struct run *run, struct source *src, struct node **out)
{
	return json_parse_range(run, src, 0, src->len, out);
}

bool
json_parse_range(struct run *run, const struct source *src, size_t off,
    size_t len, struct node **out)
{
	struct walker w;
	struct node *tree;

	*out = NULL;
	memset(&w, 0, sizeof(w));
	w.run = run;
	w.src = src;
	w.s = src->text;
	w.n = off + len;
	w.errors0 = run->diag.errors;
	w.pos = off + utf8_bom(src->text + off, len);
	skip_ws(&w);
	if (w.pos == w.n) {
		diag_error(run, src, span_make(w.n, 0), MSG_JSON_EMPTY);
		return false;
	}
	tree = value(&w, 0);
	if (tree) {
		skip_ws(&w);
		if (w.pos < w.n) {
			if (w.s[w.pos] == '\0')
				diag_error(run, src, span_make(w.pos, 1),
				    MSG_NUL_BYTE);
			else
				diag_error(run, src, char_span(&w, w.pos),
				    MSG_JSON_TRAILING, char_shown(&w, w.pos));
		}
	}
	buf_free(&w.tmp);
	free(w.elems);
	free(w.members);
	if (run->diag.errors != w.errors0)
		return false;
	*out = tree;
	return true;
}
