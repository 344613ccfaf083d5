/*
 * gotmpl_fmt: the values of the Go template engine and their printing as
 * Go's fmt package prints them -- %v of numbers, lists ([a b]), maps
 * (map[k:v], keys sorted), nil (<nil>) -- and Sprintf with its verbs,
 * flags, widths and precisions, including Go's %!verb(type=value) for a
 * wrong argument.
 */
#include "text/gotmpl_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "data/tree.h"

struct gv
gv_invalid(void)
{
	struct gv v = { GV_INVALID, false, NULL, { 0 } };
	return v;
}

struct gv
gv_nil(void)
{
	struct gv v = { GV_NIL, false, NULL, { 0 } };
	return v;
}

struct gv
gv_bool(bool b)
{
	struct gv v = { GV_BOOL, false, NULL, { 0 } };
	v.u.b = b;
	return v;
}

struct gv
gv_int(int64_t i)
{
	struct gv v = { GV_INT, false, NULL, { 0 } };
	v.u.i = i;
	return v;
}

struct gv
gv_int64(int64_t i)
{
	struct gv v = gv_int(i);
	v.type = "int64";
	return v;
}

struct gv
gv_float(double f)
{
	struct gv v = { GV_FLOAT, false, NULL, { 0 } };
	v.u.f = f;
	return v;
}

struct gv
gv_str(const char *s, size_t n)
{
	struct gv v = { GV_STRING, false, NULL, { 0 } };
	v.u.s.s = s ? s : "";
	v.u.s.n = n;
	return v;
}

struct gv
gv_cstr(const char *s)
{
	return gv_str(s, s ? strlen(s) : 0);
}

struct gv
gv_list_new(struct arena *a, size_t n)
{
	struct gv v = { GV_LIST, false, NULL, { 0 } };

	v.u.l = arena_alloc(a, sizeof(*v.u.l));
	v.u.l->v = arena_array(a, n ? n : 1, sizeof(struct gv));
	v.u.l->n = n;
	return v;
}

struct gv
gv_map_new(struct arena *a)
{
	struct gv v = { GV_MAP, false, NULL, { 0 } };

	v.u.m = arena_alloc(a, sizeof(*v.u.m));
	return v;
}

static int
keycmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : an < bn ? -1 : an > bn;
}

/* Index of k, or where it goes (*found false). */
static size_t
find(const struct gv_map *m, const char *k, size_t kn, bool *found)
{
	size_t lo = 0, hi = m->n;

	*found = false;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = keycmp(m->items[mid].k, m->items[mid].kn, k, kn);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
gv_map_set(struct arena *a, struct gv_map *m, const char *k, size_t kn,
    struct gv v)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	v.iface = false;
	if (found) {
		m->items[i].v = v;
		return;
	}
	if (m->n == m->cap) {
		m->items = arena_grow(a, m->items, m->cap, m->cap ? m->cap * 2 :
		    8, sizeof(*m->items));
		m->cap = m->cap ? m->cap * 2 : 8;
	}
	memmove(m->items + i + 1, m->items + i, (m->n - i) *
	    sizeof(*m->items));
	m->items[i].k = k;
	m->items[i].kn = kn;
	m->items[i].v = v;
	m->n++;
}

struct gv *
gv_map_get(const struct gv_map *m, const char *k, size_t kn)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	return found ? &m->items[i].v : NULL;
}

bool
gv_map_del(struct gv_map *m, const char *k, size_t kn)
{
	bool found;
	size_t i = find(m, k, kn, &found);

	if (!found)
		return false;
	memmove(m->items + i, m->items + i + 1, (m->n - i - 1) *
	    sizeof(*m->items));
	m->n--;
	return true;
}

struct gv
gv_from_node(struct arena *a, const struct node *n)
{
	struct gv v;
	size_t i;

	switch (n->kind) {
	case NODE_TABLE:
		v = gv_map_new(a);
		for (i = 0; i < n->u.table.n; i++) {
			const struct member *m = &n->u.table.items[i];

			gv_map_set(a, v.u.m, m->key, m->keylen,
			    gv_from_node(a, m->value));
		}
		return v;
	case NODE_ARRAY:
		v = gv_list_new(a, n->u.array.n);
		for (i = 0; i < n->u.array.n; i++)
			v.u.l->v[i] = gv_from_node(a, n->u.array.items[i]);
		return v;
	case NODE_STRING:
		return gv_str(n->u.str.s, n->u.str.len);
	case NODE_INT:
		return gv_int(n->u.i);
	case NODE_FLOAT:
		return gv_float(n->u.f);
	case NODE_BOOL:
		return gv_bool(n->u.b);
	case NODE_DATETIME: {
		const struct datetime *d = &n->u.dt;

		return gv_cstr(arena_printf(a, "%04d-%02d-%02dT%02d:%02d:%02d",
		    d->year, d->month, d->day, d->hour, d->minute,
		    d->second));
	}
	case NODE_NULL:
		break;
	}
	return gv_nil();
}

struct node *
gv_to_node(struct arena *a, const struct gv *v)
{
	struct node *n;
	size_t i;

	switch (v->kind) {
	case GV_BOOL:
		return tree_bool(a, v->u.b);
	case GV_INT:
		return tree_int(a, v->u.i);
	case GV_FLOAT:
		return tree_float(a, v->u.f);
	case GV_STRING:
		return tree_strn(a, v->u.s.s, v->u.s.n);
	case GV_LIST:
		n = tree_array(a);
		for (i = 0; i < v->u.l->n; i++)
			tree_push(a, n, gv_to_node(a, &v->u.l->v[i]));
		return n;
	case GV_MAP:
		n = tree_table(a);
		for (i = 0; i < v->u.m->n; i++)
			tree_add(a, n, v->u.m->items[i].k, v->u.m->items[i].kn,
			    0, span_make(0, 0),
			    gv_to_node(a, &v->u.m->items[i].v));
		return n;
	default:
		return tree_new(a, NODE_NULL, 0, span_make(0, 0));
	}
}

bool
gv_truth(const struct gv *v)
{
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return false;
	case GV_BOOL:
		return v->u.b;
	case GV_INT:
		return v->u.i != 0;
	case GV_FLOAT:
		return v->u.f != 0;
	case GV_STRING:
		return v->u.s.n != 0;
	case GV_LIST:
		return v->u.l->n != 0;
	case GV_MAP:
		return v->u.m->n != 0;
	case GV_VERSION:
		return true;
	}
	return false;
}

bool
gv_empty(const struct gv *v)
{
	return !gv_truth(v);
}

const char *
gv_type(const struct gv *v)
{
	if (v->type)
		return v->type;
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return "<nil>";
	case GV_BOOL:
		return "bool";
	case GV_INT:
		return "int";
	case GV_FLOAT:
		return "float64";
	case GV_STRING:
		return "string";
	case GV_LIST:
		return "[]interface {}";
	case GV_MAP:
		return "map[string]interface {}";
	case GV_VERSION:
		return "*semver.Version";
	}
	return "?";
}

const char *
gv_kindname(const struct gv *v)
{
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		return "invalid";
	case GV_INT:
		return v->type && strcmp(v->type, "int") != 0 ? v->type : "int";
	case GV_LIST:
		return "slice";
	case GV_MAP:
		return "map";
	case GV_VERSION:
		return "ptr";
	default:
		return gv_type(v);
	}
}

bool
gv_deep_equal(const struct gv *a, const struct gv *b)
{
	size_t i;

	if (a->kind != b->kind || strcmp(gv_type(a), gv_type(b)) != 0)
		return false;
	switch (a->kind) {
	case GV_INVALID:
	case GV_NIL:
		return true;
	case GV_BOOL:
		return a->u.b == b->u.b;
	case GV_INT:
		return a->u.i == b->u.i;
	case GV_FLOAT:
		return a->u.f == b->u.f;
	case GV_STRING:
		return a->u.s.n == b->u.s.n && memcmp(a->u.s.s, b->u.s.s,
		    a->u.s.n) == 0;
	case GV_LIST:
		if (a->u.l->n != b->u.l->n)
			return false;
		for (i = 0; i < a->u.l->n; i++)
			if (!gv_deep_equal(&a->u.l->v[i], &b->u.l->v[i]))
				return false;
		return true;
	case GV_MAP:
		if (a->u.m->n != b->u.m->n)
			return false;
		for (i = 0; i < a->u.m->n; i++)
			if (keycmp(a->u.m->items[i].k, a->u.m->items[i].kn,
			    b->u.m->items[i].k, b->u.m->items[i].kn) != 0 ||
			    !gv_deep_equal(&a->u.m->items[i].v,
			    &b->u.m->items[i].v))
				return false;
		return true;
	case GV_VERSION:
		return a->u.ver == b->u.ver;
	}
	return false;
}

struct gv
gv_deep_copy(struct arena *a, const struct gv *v)
{
	struct gv r = *v;
	size_t i;

	if (v->kind == GV_LIST) {
		r = gv_list_new(a, v->u.l->n);
		r.type = v->type;
		for (i = 0; i < v->u.l->n; i++)
			r.u.l->v[i] = gv_deep_copy(a, &v->u.l->v[i]);
	} else if (v->kind == GV_MAP) {
		r = gv_map_new(a);
		r.type = v->type;
		for (i = 0; i < v->u.m->n; i++)
			gv_map_set(a, r.u.m, v->u.m->items[i].k,
			    v->u.m->items[i].kn, gv_deep_copy(a,
			    &v->u.m->items[i].v));
	}
	return r;
}

struct gv
gv_unwrap(struct gv v)
{
	if (v.kind == GV_NIL)
		return gv_invalid();
	v.iface = false;
	return v;
}

/* Floats. */

/* The shortest digits that read back as f, in %e form: "d.ddde+XX". */
static int
shortest(double f, char *out, size_t n)
{
	int p;

	for (p = 0; p < 17; p++) {
		snprintf(out, n, "%.*e", p, f);
		if (strtod(out, NULL) == f)
			return p;
	}
	snprintf(out, n, "%.16e", f);
	return 16;
}

/* Go's exponent form: at least two digits. */
static void
put_exp(struct buf *b, int e, char ech)
{
	buf_putc(b, ech);
	buf_putc(b, e < 0 ? '-' : '+');
	if (e < 0)
		e = -e;
	buf_printf(b, "%02d", e);
}

void
gv_float_str(struct buf *b, double f, char verb, int prec)
{
	char tmp[64], digits[32];
	int p, e, nd, i;
	char *mant;


	if (isnan(f)) {
		buf_puts(b, "NaN");
		return;
	}
	if (isinf(f)) {
		buf_puts(b, f > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (verb == 'f' || verb == 'F') {
		if (prec < 0) {
			/* %f shortest: the shortest digits in fixed form */
			p = shortest(f, tmp, sizeof(tmp));
			e = atoi(strchr(tmp, 'e') + 1);
			snprintf(tmp, sizeof(tmp), "%.*f", p - e > 0 ? p - e :
			    0, f);
			buf_puts(b, tmp);
			return;
		}
		buf_printf(b, "%.*f", prec, f);
		return;
	}
	if (verb == 'e' || verb == 'E') {
		if (prec < 0)
			p = shortest(f, tmp, sizeof(tmp));
		else
			snprintf(tmp, sizeof(tmp), "%.*e", prec, f);
		mant = tmp;
		e = atoi(strchr(tmp, 'e') + 1);
		*strchr(tmp, 'e') = '\0';
		buf_puts(b, mant);
		put_exp(b, e, verb);
		return;
	}
	/* 'g', 'G', 'v': strconv's %g, shortest when prec < 0 */
	if (prec < 0) {
		shortest(f, tmp, sizeof(tmp));
	} else {
		p = prec == 0 ? 1 : prec;
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, f);
	}
	e = atoi(strchr(tmp, 'e') + 1);
	nd = 0;
	for (i = 0; tmp[i] && tmp[i] != 'e'; i++)
		if (tmp[i] >= '0' && tmp[i] <= '9')
			digits[nd++] = tmp[i];
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	if (prec < 0) {
		p = 6;
	} else {
		p = prec == 0 ? 1 : prec;
		if (p > nd && nd >= e + 1)
			p = nd;
	}
	if (f < 0 || (f == 0 && signbit(f)))
		buf_putc(b, '-');
	if (e < -4 || e >= p) {
		buf_putc(b, digits[0]);
		if (nd > 1) {
			buf_putc(b, '.');
			buf_puts(b, digits + 1);
		}
		put_exp(b, e, verb == 'G' ? 'E' : 'e');
		return;
	}
	if (e < 0) {
		buf_puts(b, "0.");
		for (i = 0; i < -e - 1; i++)
			buf_putc(b, '0');
		buf_puts(b, digits);
		return;
	}
	for (i = 0; i <= e; i++)
		buf_putc(b, i < nd ? digits[i] : '0');
	if (nd > e + 1) {
		buf_putc(b, '.');
		buf_puts(b, digits + e + 1);
	}
}

/* Printing. */

static void print_v(struct buf *b, const struct gv *v, bool top);

void
gv_print(struct buf *b, const struct gv *v)
{
	print_v(b, v, true);
}

static void
print_v(struct buf *b, const struct gv *v, bool top)
{
	size_t i;

	switch (v->kind) {
	case GV_INVALID:
		buf_puts(b, top ? "<invalid reflect.Value>" : "<nil>");
		return;
	case GV_NIL:
		buf_puts(b, "<nil>");
		return;
	case GV_BOOL:
		buf_puts(b, v->u.b ? "true" : "false");
		return;
	case GV_INT:
		buf_printf(b, "%lld", (long long)v->u.i);
		return;
	case GV_FLOAT:
		gv_float_str(b, v->u.f, 'v', -1);
		return;
	case GV_STRING:
		buf_put(b, v->u.s.s, v->u.s.n);
		return;
	case GV_LIST:
		buf_putc(b, '[');
		for (i = 0; i < v->u.l->n; i++) {
			if (i)
				buf_putc(b, ' ');
			print_v(b, &v->u.l->v[i], false);
		}
		buf_putc(b, ']');
		return;
	case GV_MAP:
		buf_puts(b, "map[");
		for (i = 0; i < v->u.m->n; i++) {
			if (i)
				buf_putc(b, ' ');
			buf_put(b, v->u.m->items[i].k, v->u.m->items[i].kn);
			buf_putc(b, ':');
			print_v(b, &v->u.m->items[i].v, false);
		}
		buf_putc(b, ']');
		return;
	case GV_VERSION: {
		const struct gv_version *s = v->u.ver;

		buf_printf(b, "%llu.%llu.%llu", (unsigned long long)s->major,
		    (unsigned long long)s->minor,
		    (unsigned long long)s->patch);
		if (*s->pre)
			buf_printf(b, "-%s", s->pre);
		if (*s->meta)
			buf_printf(b, "+%s", s->meta);
		return;
	}
	}
}

void
gv_sprint(struct buf *b, const struct gv *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i && v[i].kind != GV_STRING && v[i - 1].kind != GV_STRING)
			buf_putc(b, ' ');
		print_v(b, &v[i], false);
	}
}

void
gv_sprintln(struct buf *b, const struct gv *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(b, ' ');
		print_v(b, &v[i], false);
	}
	buf_putc(b, '\n');
}

/* strconv.IsPrint, roughly: not a control character, not a surrogate or
 * private-use or unassigned-looking code point. */
static bool
is_print(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad ||
	    cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f) || cp == 0x202f ||
	    cp == 0x205f || cp == 0x3000)
		return false;
	if ((cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 &&
	    cp <= 0x206f) || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb))
		return false;
	if (cp >= 0xe000 && cp <= 0xf8ff)
		return false;
	return cp <= 0x10ffff;
}

static void
quote_with(struct buf *b, const char *s, size_t n, char q, bool ascii)
{
	size_t i = 0;

	buf_putc(b, q);
	while (i < n) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);

		if (!k) {
			buf_printf(b, "\\x%02x", (unsigned char)s[i]);
			i++;
			continue;
		}
		if (cp == (uint32_t)q || cp == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (int)cp);
		} else if (cp < 0x80 && is_print(cp)) {
			buf_putc(b, (int)cp);
		} else if (!ascii && is_print(cp)) {
			buf_put(b, s + i, k);
		} else {
			switch (cp) {
			case '\a': buf_puts(b, "\\a"); break;
			case '\b': buf_puts(b, "\\b"); break;
			case '\f': buf_puts(b, "\\f"); break;
			case '\n': buf_puts(b, "\\n"); break;
			case '\r': buf_puts(b, "\\r"); break;
			case '\t': buf_puts(b, "\\t"); break;
			case '\v': buf_puts(b, "\\v"); break;
			default:
				if (cp < 0x20 || cp == 0x7f)
					buf_printf(b, "\\x%02x", cp);
				else if (cp < 0x10000)
					buf_printf(b, "\\u%04x", cp);
				else
					buf_printf(b, "\\U%08x", cp);
			}
		}
		i += k;
	}
	buf_putc(b, q);
}

void
gv_quote(struct buf *b, const char *s, size_t n)
{
	quote_with(b, s, n, '"', false);
}

/* Sprintf. */

struct spec {
	bool minus, plus, sharp, zero, space;
	int width, prec;        /* -1: none */
	char verb;
};

static void
pad(struct buf *b, const struct spec *sp, const char *s, size_t n)
{
	size_t w = utf8_count(s, n), i;

	if (sp->width < 0 || w >= (size_t)sp->width) {
		buf_put(b, s, n);
		return;
	}
	if (sp->minus) {
		buf_put(b, s, n);
		for (i = w; i < (size_t)sp->width; i++)
			buf_putc(b, ' ');
		return;
	}
	if (sp->zero && n && (s[0] == '-' || s[0] == '+')) {
		buf_putc(b, s[0]);
		for (i = w; i < (size_t)sp->width; i++)
			buf_putc(b, '0');
		buf_put(b, s + 1, n - 1);
		return;
	}
	for (i = w; i < (size_t)sp->width; i++)
		buf_putc(b, sp->zero ? '0' : ' ');
	buf_put(b, s, n);
}

static void fmt_arg(struct buf *b, const struct spec *sp, const struct gv *v,
    bool top);

static void
bad_verb(struct buf *b, const struct spec *sp, const struct gv *v)
{
	buf_printf(b, "%%!%c(", sp->verb);
	if (v->kind == GV_NIL || v->kind == GV_INVALID) {
		buf_puts(b, "<nil>");
	} else {
		struct spec s = { false, false, false, false, false, -1, -1,
		    'v' };

		buf_printf(b, "%s=", gv_type(v));
		fmt_arg(b, &s, v, false);
	}
	buf_putc(b, ')');
}

static void
fmt_int(struct buf *b, const struct spec *sp, int64_t i)
{
	char tmp[80];
	struct buf t = BUF_INIT;
	unsigned long long u = i < 0 ? 0ULL - (unsigned long long)i :
	    (unsigned long long)i;
	const char *digits;
	int base, k = 0;
	char rev[72];

	switch (sp->verb) {
	case 'x': base = 16; digits = "0123456789abcdef"; break;
	case 'X': base = 16; digits = "0123456789ABCDEF"; break;
	case 'o': case 'O': base = 8; digits = "01234567"; break;
	case 'b': base = 2; digits = "01"; break;
	case 'c': {
		char enc[4];

		pad(b, sp, enc, utf8_encode(i >= 0 && i <= 0x10ffff ?
		    (uint32_t)i : 0xfffd, enc));
		return;
	}
	case 'q': {
		char enc[4];
		size_t n = utf8_encode(i >= 0 && i <= 0x10ffff ? (uint32_t)i :
		    0xfffd, enc);

		quote_with(&t, enc, n, '\'', sp->plus);
		pad(b, sp, t.data, t.len);
		buf_free(&t);
		return;
	}
	case 'U':
		snprintf(tmp, sizeof(tmp), "U+%04llX", u);
		pad(b, sp, tmp, strlen(tmp));
		return;
	default: base = 10; digits = "0123456789"; break;
	}
	do {
		rev[k++] = digits[u % (unsigned)base];
		u /= (unsigned)base;
	} while (u);
	while (sp->prec >= 0 && k < sp->prec)
		rev[k++] = '0';
	if (i < 0)
		buf_putc(&t, '-');
	else if (sp->plus)
		buf_putc(&t, '+');
	else if (sp->space)
		buf_putc(&t, ' ');
	if (sp->sharp && base == 16)
		buf_puts(&t, sp->verb == 'X' ? "0X" : "0x");
	if (sp->verb == 'O')
		buf_puts(&t, "0o");
	else if (sp->sharp && base == 8 && rev[k - 1] != '0')
		buf_putc(&t, '0');
	if (sp->sharp && base == 2)
		buf_puts(&t, "0b");
	while (k > 0)
		buf_putc(&t, rev[--k]);
	{
		struct spec s2 = *sp;

		if (sp->prec >= 0)
			s2.zero = false;
		pad(b, &s2, t.data, t.len);
	}
	buf_free(&t);
}

static void
fmt_float(struct buf *b, const struct spec *sp, double f)
{
	struct buf t = BUF_INIT;
	char verb = sp->verb == 'v' ? 'g' : sp->verb;
	int prec = sp->prec;

	if (verb == 'F')
		verb = 'f';
	if ((verb == 'f' || verb == 'e' || verb == 'E') && prec < 0)
		prec = 6;
	if (sp->plus && f >= 0)
		buf_putc(&t, '+');
	else if (sp->space && f >= 0)
		buf_putc(&t, ' ');
	if (sp->verb == 'v' && prec < 0)
		gv_float_str(&t, f, 'v', -1);
	else
		gv_float_str(&t, f, verb, prec);
	if (isinf(f) && !sp->plus && f > 0 && t.data[0] == '+') {
		memmove(t.data, t.data + 1, t.len);
		t.len--;
	}
	{
		struct spec s2 = *sp;

		if (isinf(f) || isnan(f))
			s2.zero = false;
		pad(b, &s2, t.data, t.len);
	}
	buf_free(&t);
}

static void
fmt_string(struct buf *b, const struct spec *sp, const char *s, size_t n)
{
	struct buf t = BUF_INIT;
	size_t i;

	if (sp->prec >= 0 && (sp->verb == 's' || sp->verb == 'v' ||
	    sp->verb == 'q' || sp->verb == 'x' || sp->verb == 'X')) {
		/* precision: at most that many runes */
		size_t k = 0;
		int r = 0;

		while (k < n && r < sp->prec) {
			uint32_t cp;
			size_t l = utf8_decode(s + k, n - k, &cp);

			k += l ? l : 1;
			r++;
		}
		n = k;
	}
	switch (sp->verb) {
	case 's':
	case 'v':
		pad(b, sp, s, n);
		return;
	case 'q':
		if (sp->sharp && !memchr(s, '`', n)) {
			buf_putc(&t, '`');
			buf_put(&t, s, n);
			buf_putc(&t, '`');
		} else {
			quote_with(&t, s, n, '"', sp->plus);
		}
		break;
	case 'x':
	case 'X':
		for (i = 0; i < n; i++) {
			if (sp->space && i)
				buf_putc(&t, ' ');
			if (sp->sharp && (sp->space || i == 0))
				buf_puts(&t, sp->verb == 'x' ? "0x" : "0X");
			buf_printf(&t, sp->verb == 'x' ? "%02x" : "%02X",
			    (unsigned char)s[i]);
		}
		break;
	default: {
		struct gv v = gv_str(s, n);

		bad_verb(b, sp, &v);
		return;
	}
	}
	pad(b, sp, t.data ? t.data : "", t.len);
	buf_free(&t);
}

/* %#v: Go syntax. */
static void
go_syntax(struct buf *b, const struct gv *v, bool top)
{
	size_t i;

	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		buf_puts(b, top ? "<nil>" : "interface {}(nil)");
		return;
	case GV_STRING:
		gv_quote(b, v->u.s.s, v->u.s.n);
		return;
	case GV_FLOAT:
		gv_float_str(b, v->u.f, 'g', -1);
		if (v->u.f == floor(v->u.f) && !isinf(v->u.f) &&
		    fabs(v->u.f) < 1e21)
			buf_puts(b, ".0");
		return;
	case GV_LIST:
		buf_printf(b, "%s{", gv_type(v));
		for (i = 0; i < v->u.l->n; i++) {
			if (i)
				buf_puts(b, ", ");
			go_syntax(b, &v->u.l->v[i], false);
		}
		buf_putc(b, '}');
		return;
	case GV_MAP:
		buf_printf(b, "%s{", gv_type(v));
		for (i = 0; i < v->u.m->n; i++) {
			if (i)
				buf_puts(b, ", ");
			gv_quote(b, v->u.m->items[i].k, v->u.m->items[i].kn);
			buf_putc(b, ':');
			go_syntax(b, &v->u.m->items[i].v, false);
		}
		buf_putc(b, '}');
		return;
	default:
		print_v(b, v, false);
	}
}

static void
fmt_arg(struct buf *b, const struct spec *sp, const struct gv *v, bool top)
{
	size_t i;

	if (sp->verb == 'v' && sp->sharp) {
		struct buf t = BUF_INIT;

		go_syntax(&t, v, true);
		pad(b, sp, t.data, t.len);
		buf_free(&t);
		return;
	}
	if (sp->verb == 'v' && sp->plus) {
		struct spec s2 = *sp;

		s2.plus = false;        /* %+v: field names, not signs */
		fmt_arg(b, &s2, v, top);
		return;
	}
	if (v->kind == GV_FLOAT && (sp->verb == 'x' || sp->verb == 'X')) {
		char tmp[64], *e;
		struct buf t = BUF_INIT;

		snprintf(tmp, sizeof(tmp), sp->verb == 'x' ? "%a" : "%A",
		    v->u.f);
		e = strpbrk(tmp, "pP");
		if (e && e[1] && e[2] && !e[3]) {
			buf_put(&t, tmp, (size_t)(e - tmp) + 2);
			buf_putc(&t, '0');
			buf_puts(&t, e + 2);
		} else {
			buf_puts(&t, tmp);
		}
		pad(b, sp, t.data, t.len);
		buf_free(&t);
		return;
	}

	if (sp->verb == 'T') {
		const char *t = v->kind == GV_NIL || v->kind == GV_INVALID ?
		    "<nil>" : gv_type(v);

		pad(b, sp, t, strlen(t));
		return;
	}
	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		if (sp->verb == 'v' || !top)
			pad(b, sp, "<nil>", 5);
		else
			bad_verb(b, sp, v);
		return;
	case GV_BOOL:
		if (sp->verb == 'v' || sp->verb == 't')
			pad(b, sp, v->u.b ? "true" : "false", v->u.b ? 4 : 5);
		else
			bad_verb(b, sp, v);
		return;
	case GV_INT:
		if (sp->verb == 'v' || strchr("dbocqxXUO", sp->verb)) {
			struct spec s = *sp;

			if (s.verb == 'v')
				s.verb = 'd';
			if (v->type && strcmp(v->type, "uint8") == 0 &&
			    s.verb == 'v')
				s.verb = 'd';
			fmt_int(b, &s, v->u.i);
		} else if (strchr("eEfFgG", sp->verb)) {
			bad_verb(b, sp, v);
		} else {
			bad_verb(b, sp, v);
		}
		return;
	case GV_FLOAT:
		if (sp->verb == 'v' || strchr("eEfFgG", sp->verb))
			fmt_float(b, sp, v->u.f);
		else
			bad_verb(b, sp, v);
		return;
	case GV_STRING:
		fmt_string(b, sp, v->u.s.s, v->u.s.n);
		return;
	case GV_LIST:
		if (v->type && strcmp(v->type, "[]uint8") == 0) {
			fmt_string(b, sp, "", 0);
			return;
		}
		buf_putc(b, '[');
		for (i = 0; i < v->u.l->n; i++) {
			if (i)
				buf_putc(b, ' ');
			fmt_arg(b, sp, &v->u.l->v[i], false);
		}
		buf_putc(b, ']');
		return;
	case GV_MAP:
		buf_puts(b, "map[");
		for (i = 0; i < v->u.m->n; i++) {
			struct gv k = gv_str(v->u.m->items[i].k,
			    v->u.m->items[i].kn);

			if (i)
				buf_putc(b, ' ');
			fmt_arg(b, sp, &k, false);
			buf_putc(b, ':');
			fmt_arg(b, sp, &v->u.m->items[i].v, false);
		}
		buf_putc(b, ']');
		return;
	case GV_VERSION: {
		struct buf t = BUF_INIT;

		print_v(&t, v, false);
		if (sp->verb == 'v' || sp->verb == 's')
			pad(b, sp, t.data, t.len);
		else
			bad_verb(b, sp, v);
		buf_free(&t);
		return;
	}
	}
}

void
gv_sprintf(struct buf *b, const char *f, size_t fn, const struct gv *v,
    size_t n)
{
	size_t i = 0, arg = 0;
	bool reordered = false;

	while (i < fn) {
		struct spec sp = { false, false, false, false, false, -1, -1,
		    0 };

		if (f[i] != '%') {
			buf_putc(b, f[i++]);
			continue;
		}
		i++;
		for (; i < fn; i++) {
			if (f[i] == '-') {
				sp.minus = true;
				sp.zero = false;
			} else if (f[i] == '+')
				sp.plus = true;
			else if (f[i] == '#')
				sp.sharp = true;
			else if (f[i] == '0')
				sp.zero = !sp.minus;
			else if (f[i] == ' ')
				sp.space = true;
			else
				break;
		}
		if (i + 2 < fn && f[i] == '[') {
			size_t k = i + 1, idx = 0;

			while (k < fn && f[k] >= '0' && f[k] <= '9' && idx < 1000)
				idx = idx * 10 + (size_t)(f[k++] - '0');
			if (k < fn && f[k] == ']' && idx >= 1 && idx <= n) {
				arg = idx - 1;
				i = k + 1;
				reordered = true;
			} else if (k < fn && f[k] == ']') {
				buf_printf(b, "%%!%c(BADINDEX)", k + 1 < fn ?
				    f[k + 1] : ' ');
				i = k + 2;
				continue;
			}
		}
		if (i < fn && f[i] == '*') {
			i++;
			if (arg < n && v[arg].kind == GV_INT) {
				sp.width = (int)v[arg].u.i;
				if (sp.width < 0) {
					sp.minus = true;
					sp.width = -sp.width;
				}
			} else {
				buf_puts(b, "%!(BADWIDTH)");
			}
			arg++;
		} else {
			while (i < fn && f[i] >= '0' && f[i] <= '9') {
				sp.width = (sp.width < 0 ? 0 : sp.width) * 10 +
				    (f[i] - '0');
				if (sp.width > 1000000)
					sp.width = 1000000;
				i++;
			}
		}
		if (i < fn && f[i] == '.') {
			i++;
			sp.prec = 0;
			if (i + 2 < fn && f[i] == '[') {
				size_t k = i + 1, idx = 0;

				while (k < fn && f[k] >= '0' && f[k] <= '9' &&
				    idx < 1000)
					idx = idx * 10 + (size_t)(f[k++] - '0');
				if (k < fn && f[k] == ']' && idx >= 1 &&
				    idx <= n) {
					arg = idx - 1;
					i = k + 1;
					reordered = true;
				}
			}
			if (i < fn && f[i] == '*') {
				i++;
				if (arg < n && v[arg].kind == GV_INT &&
				    v[arg].u.i >= 0)
					sp.prec = (int)v[arg].u.i;
				else
					buf_puts(b, "%!(BADPREC)");
				arg++;
			} else {
				while (i < fn && f[i] >= '0' && f[i] <= '9') {
					sp.prec = sp.prec * 10 + (f[i] - '0');
					if (sp.prec > 1000000)
						sp.prec = 1000000;
					i++;
				}
			}
		}
		if (i + 2 < fn && f[i] == '[') {
			size_t k = i + 1, idx = 0;

			while (k < fn && f[k] >= '0' && f[k] <= '9' && idx < 1000)
				idx = idx * 10 + (size_t)(f[k++] - '0');
			if (k < fn && f[k] == ']' && idx >= 1 && idx <= n) {
				arg = idx - 1;
				i = k + 1;
				reordered = true;
			}
		}
		if (i >= fn) {
			buf_puts(b, "%!(NOVERB)");
			break;
		}
		{
			uint32_t cp;
			size_t k = utf8_decode(f + i, fn - i, &cp);

			if (!k)
				k = 1;
			if (f[i] == '%') {
				buf_putc(b, '%');
				i++;
				continue;
			}
			if (k > 1 || !strchr("vTtbcdoOqxXUeEfFgGsp", f[i])) {
				buf_printf(b, "%%!%.*s(", (int)k, f + i);
				if (arg < n) {
					struct spec s = sp;

					s.verb = 'v';
					buf_printf(b, "%s=", gv_type(&v[arg]));
					fmt_arg(b, &s, &v[arg], true);
					arg++;
				} else {
					buf_puts(b, "MISSING");
				}
				buf_putc(b, ')');
				i += k;
				continue;
			}
			sp.verb = f[i++];
		}
		if (arg >= n) {
			buf_printf(b, "%%!%c(MISSING)", sp.verb);
			continue;
		}
		fmt_arg(b, &sp, &v[arg++], true);
	}
	if (arg < n && !reordered) {
		buf_puts(b, "%!(EXTRA ");
		for (; arg < n; arg++) {
			struct spec s = { false, false, false, false, false,
			    -1, -1, 'v' };

			buf_printf(b, "%s=", v[arg].kind == GV_NIL ||
			    v[arg].kind == GV_INVALID ? "<nil>" :
			    gv_type(&v[arg]));
			fmt_arg(b, &s, &v[arg], false);
			if (arg + 1 < n)
				buf_puts(b, ", ");
		}
		buf_putc(b, ')');
	}
}
