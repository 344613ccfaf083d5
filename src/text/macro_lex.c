#include "text/macro_lex.h"

#include <string.h>

#include "base/arena.h"

void
mlex_init(struct mlex *l, const char *s, size_t len, struct arena *a)
{
	memset(l, 0, sizeof(*l));
	l->s = s;
	l->len = len;
	l->arena = a;
}

bool
mlex_name_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	    (unsigned char)c >= 0x80 ||
	    (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

/* The first "}}" at or after from: its position, or len. */
static size_t
close_after(struct mlex *l, size_t from)
{
	size_t i;

	if (l->ccached && from >= l->cfrom && from <= l->cat)
		return l->cat;
	for (i = from; i + 1 < l->len; i++)
		if (l->s[i] == '}' && l->s[i + 1] == '}')
			break;
	if (i + 1 >= l->len)
		i = l->len;
	l->ccached = true;
	l->cfrom = from;
	l->cat = i;
	return i;
}

/* The first '}' at or after from, or len. */
static size_t
brace_after(struct mlex *l, size_t from)
{
	const char *p;

	if (l->bcached && from >= l->bfrom && from <= l->bat)
		return l->bat;
	p = from < l->len ? memchr(l->s + from, '}', l->len - from) : NULL;
	l->bcached = true;
	l->bfrom = from;
	l->bat = p ? (size_t)(p - l->s) : l->len;
	return l->bat;
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The first "{{" at or after from, or len. */
static size_t
open_after(struct mlex *l, size_t from)
{
	size_t i;

	if (l->ocached && from >= l->ofrom && from <= l->oat)
		return l->oat;
	for (i = from; i + 1 < l->len; i++)
		if (l->s[i] == '{' && l->s[i + 1] == '{')
			break;
	if (i + 1 >= l->len)
		i = l->len;
	l->ocached = true;
	l->ofrom = from;
	l->oat = i;
	return i;
}

size_t
mlex_open(struct mlex *l, size_t from)
{
	return open_after(l, from);
}

bool
mlex_at(struct mlex *l, size_t i, struct mlex_tok *t)
{
	const char *s = l->s;
	size_t c, p;

	memset(t, 0, sizeof(*t));
	if (i + 1 >= l->len || s[i] != '{' || s[i + 1] != '{')
		return false;
	c = close_after(l, i + 2);
	if (c >= l->len)
		return false;
	t->at = i;
	t->end = c + 2;
	t->brace = brace_after(l, i + 2) < c;
	t->in0 = i + 2;
	t->in1 = c;
	while (t->in0 < t->in1 && blank(s[t->in0]))
		t->in0++;
	while (t->in1 > t->in0 && blank(s[t->in1 - 1]))
		t->in1--;
	t->n0 = t->n1 = t->a0 = t->in0;
	if (t->in1 - t->in0 >= 2 && s[t->in0] == '/' && s[t->in0 + 1] == '/') {
		t->form = MLEX_COMMENT;
		t->a0 = t->in0 + 2;
		return true;
	}
	t->nested = open_after(l, i + 2) + 2 <= c;
	p = t->in0;
	while (p < t->in1 && mlex_name_char(s[p], p == t->in0))
		p++;
	t->n1 = p;
	t->a0 = p;
	if (p == t->in0)
		t->form = MLEX_OTHER;
	else if (p == t->in1)
		t->form = MLEX_BARE;
	else if (s[p] == ':' && p + 1 < t->in1 && s[p + 1] == ':') {
		t->form = MLEX_COLONS;
		t->a0 = p + 2;
	} else if (s[p] == ':') {
		t->form = MLEX_COLON;
		t->a0 = p + 1;
	} else if (blank(s[p])) {
		t->form = MLEX_SPACE;
		while (blank(s[p]))
			p++;
		t->a0 = p;
	} else
		t->form = MLEX_OTHER;
	return true;
}

bool
mlex_next(struct mlex *l, size_t from, struct mlex_tok *t)
{
	size_t i = from, b;

	for (;;) {
		i = open_after(l, i);
		if (i >= l->len)
			return false;
		b = brace_after(l, i + 2);
		if (b + 1 >= l->len)
			return false;
		if (l->s[b + 1] == '}' && mlex_at(l, i, t))
			return true;
		i++;
	}
}

size_t
mlex_match(struct mlex *l, size_t i)
{
	const char *s = l->s;
	size_t lo, hi, mid;

	if (!l->matched) {
		/* One pass with a stack of open pairs. */
		size_t cap = 16, n = 0, depth = 0, k = 0, *stack;

		l->opens = arena_array(l->arena, cap, sizeof(size_t));
		l->closes = arena_array(l->arena, cap, sizeof(size_t));
		stack = arena_array(l->arena, cap, sizeof(size_t));
		while (k + 1 < l->len) {
			if (s[k] == '{' && s[k + 1] == '{') {
				if (n == cap) {
					l->opens = arena_grow(l->arena, l->opens,
					    cap, cap * 2, sizeof(size_t));
					l->closes = arena_grow(l->arena,
					    l->closes, cap, cap * 2,
					    sizeof(size_t));
					stack = arena_grow(l->arena, stack, cap,
					    cap * 2, sizeof(size_t));
					cap *= 2;
				}
				l->opens[n] = k;
				l->closes[n] = 0;
				stack[depth++] = n++;
				k += 2;
			} else if (s[k] == '}' && s[k + 1] == '}' && depth) {
				l->closes[stack[--depth]] = k + 2;
				k += 2;
			} else
				k++;
		}
		l->nopens = n;
		l->matched = true;
	}
	lo = 0;
	hi = l->nopens;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->opens[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nopens && l->opens[lo] == i ? l->closes[lo] : 0;
}

bool
mlex_closed(const char *s, size_t n,
    bool (*each)(void *ctx, const char *in, size_t len), void *ctx)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (s[i] != '{')
			continue;
		if (i + 1 >= n || s[i + 1] != '{')
			return false;
		for (j = i + 2; j + 1 < n && !(s[j] == '}' && s[j + 1] == '}');
		    j++)
			if (s[j] == '{')
				return false;
		if (j + 1 >= n || (each && !each(ctx, s + i + 2, j - i - 2)))
			return false;
		i = j + 1;
	}
	return true;
}

size_t
mlex_escape(const char *s, size_t len, size_t i)
{
	if (i + 3 < len && s[i] == '\\' && s[i + 2] == '\\' &&
	    ((s[i + 1] == '{' && s[i + 3] == '{') ||
	    (s[i + 1] == '}' && s[i + 3] == '}')))
		return 4;
	return 0;
}

size_t
mlex_args(const struct mlex *l, const struct mlex_tok *t,
    struct mlex_arg *out, size_t max)
{
	const char *s = l->s;
	size_t n = 0, i, start;

	switch (t->form) {
	case MLEX_COLON:
	case MLEX_SPACE:
	case MLEX_COMMENT:
	case MLEX_OTHER:
		if (max) {
			out[0].off = t->a0;
			out[0].end = t->in1;
		}
		return 1;
	case MLEX_BARE:
		return 0;
	case MLEX_COLONS:
		break;
	}
	start = t->a0;
	for (i = t->a0; i + 1 < t->in1; i++)
		if (s[i] == ':' && s[i + 1] == ':' && n + 1 < max) {
			out[n].off = start;
			out[n].end = i;
			n++;
			start = i + 2;
			i++;
		}
	if (max) {
		out[n].off = start;
		out[n].end = t->in1;
	}
	return n + 1;
}
