/*
 * gotmpl_funcs: the functions a Go template can call -- text/template's
 * builtins and Sprig 3.2.3's, each with its Go signature in one table
 * (the executor checks counts and types against it, as reflect does for
 * Go).  Functions that read the clock, the environment, the network or
 * a random source are in the table too, with the reason strata refuses
 * them.  Regular expressions are RE2 patterns run by PCRE2 with match and
 * depth limits, compiled once per set.
 */
/* memmem() */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8

#include "text/gotmpl_int.h"

#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/base64.h"
#include "base/util.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

#define RE_MATCH_LIMIT 10000000
#define RE_DEPTH_LIMIT 10000

#define A struct gt_exec *x, struct gv *a, size_t n, struct gv *out
#define AR (&gt_set(x)->run->arena)
#define ARGS_UNUSED (void)x; (void)a; (void)n

/* Helpers: Sprig's conversions. */

static const char *
sdup(struct gt_exec *x, const struct buf *b)
{
	return arena_strndup(AR, b->data ? b->data : "", b->len);
}

static struct gv
bstr(struct gt_exec *x, struct buf *b)
{
	struct gv v = gv_str(sdup(x, b), b->len);

	buf_free(b);
	return v;
}

/* Sprig's strval: strings as they are, others as %v. */
static struct gv
strval(struct gt_exec *x, const struct gv *v)
{
	struct buf b = BUF_INIT;

	if (v->kind == GV_STRING)
		return *v;
	if (v->kind == GV_INVALID || v->kind == GV_NIL) {
		return gv_cstr("<nil>");
	}
	gv_print(&b, v);
	return bstr(x, &b);
}

/* cast.ToInt64 */
static int64_t
to_int64(const struct gv *v)
{
	char tmp[64], *end;
	long long r;

	switch (v->kind) {
	case GV_INT:
		return v->u.i;
	case GV_FLOAT:
		if (isnan(v->u.f))
			return INT64_MIN;
		if (v->u.f >= 9.2233720368547758e18)
			return INT64_MIN;
		if (v->u.f <= -9.2233720368547758e18)
			return INT64_MIN;
		return (int64_t)v->u.f;
	case GV_BOOL:
		return v->u.b;
	case GV_STRING:
		if (v->u.s.n == 0 || v->u.s.n >= sizeof(tmp))
			return 0;
		memcpy(tmp, v->u.s.s, v->u.s.n);
		tmp[v->u.s.n] = '\0';
		{
			const char *s = tmp;
			int base = 10;
			bool neg = false;

			if (*s == '+' || *s == '-')
				neg = *s++ == '-';
			if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
				base = 16, s += 2;
			else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
				base = 8, s += 2;
			else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
				base = 2, s += 2;
			else if (s[0] == '0' && s[1])
				base = 8, s++;
			if (!*s || *s == '+' || *s == '-' || *s == ' ')
				return 0;
			r = strtoll(s, &end, base);
			if (*end)
				return 0;
			return neg ? -r : r;
		}
	default:
		return 0;
	}
}

/* cast.ToFloat64 */
static double
to_float(const struct gv *v)
{
	char tmp[128], *end;
	double d;

	switch (v->kind) {
	case GV_INT:
		return (double)v->u.i;
	case GV_FLOAT:
		return v->u.f;
	case GV_BOOL:
		return v->u.b;
	case GV_STRING:
		if (!v->u.s.n || v->u.s.n >= sizeof(tmp))
			return 0;
		memcpy(tmp, v->u.s.s, v->u.s.n);
		tmp[v->u.s.n] = '\0';
		if (strpbrk(tmp, " \t\nxXpP"))
			return 0;
		d = strtod(tmp, &end);
		return *end ? 0 : d;
	default:
		return 0;
	}
}

static bool
is_list(const struct gv *v)
{
	return v->kind == GV_LIST;
}

/* A list value, else Sprig's panic text. */
static bool
need_list(struct gt_exec *x, const struct gv *v, const char *what)
{
	if (is_list(v))
		return true;
	return gt_fail(x, "Cannot %s on type %s", what, v->kind == GV_NIL ||
	    v->kind == GV_INVALID ? "<nil>" : gv_type(v));
}

/* Sprig's strslice. */
static struct gv
strslice(struct gt_exec *x, const struct gv *v)
{
	struct gv r;
	size_t i, k = 0;

	if (v->kind == GV_LIST) {
		r = gv_list_new(AR, v->u.l->n);
		for (i = 0; i < v->u.l->n; i++) {
			if (v->u.l->v[i].kind == GV_NIL)
				continue;
			r.u.l->v[k++] = strval(x, &v->u.l->v[i]);
		}
		r.u.l->n = k;
	} else if (v->kind == GV_NIL || v->kind == GV_INVALID) {
		r = gv_list_new(AR, 0);
	} else {
		r = gv_list_new(AR, 1);
		r.u.l->v[0] = strval(x, v);
	}
	r.type = "[]string";
	return r;
}

static struct gv
list_of(struct gt_exec *x, size_t n, const char *type)
{
	struct gv r = gv_list_new(AR, n);

	r.type = type;
	return r;
}

static bool
ret_str(struct gt_exec *x, struct gv *out, const char *s, size_t n)
{
	*out = gv_str(arena_strndup(AR, s, n), n);
	return true;
}

/* text/template builtins. */

static bool
f_not(A)
{
	ARGS_UNUSED;
	*out = gv_bool(!gv_truth(&a[0]));
	return true;
}

static bool
f_and(A)
{
	ARGS_UNUSED;
	return true;
}

static bool
f_len(A)
{
	struct gv v = a[0];

	ARGS_UNUSED;
	switch (v.kind) {
	case GV_STRING:
		*out = gv_int((int64_t)v.u.s.n);
		return true;
	case GV_LIST:
		*out = gv_int((int64_t)v.u.l->n);
		return true;
	case GV_MAP:
		*out = gv_int((int64_t)v.u.m->n);
		return true;
	case GV_INVALID:
		return gt_fail(x,
		    "reflect: call of reflect.Value.Type on zero Value");
	case GV_NIL:
		return gt_fail(x, "len of nil pointer");
	default:
		return gt_fail(x, "len of type %s", gv_type(&v));
	}
}

static bool
index_of(struct gt_exec *x, const struct gv *ix, size_t cap, int64_t *out)
{
	struct gv v = gv_unwrap(*ix);

	if (v.kind == GV_INVALID)
		return gt_fail(x, "cannot index slice/array with nil");
	if (v.kind != GV_INT)
		return gt_fail(x, "cannot index slice/array with type %s",
		    gv_type(&v));
	if (v.u.i < 0 || (uint64_t)v.u.i >= cap)
		return gt_fail(x, "index out of range: %lld",
		    (long long)v.u.i);
	*out = v.u.i;
	return true;
}

static bool
f_index(A)
{
	struct gv item = gv_unwrap(a[0]);
	size_t i;

	if (item.kind == GV_INVALID)
		return gt_fail(x, "index of untyped nil");
	for (i = 1; i < n; i++) {
		struct gv ix = gv_unwrap(a[i]);
		int64_t k;

		item = gv_unwrap(item);
		switch (item.kind) {
		case GV_LIST:
			if (!index_of(x, &ix, item.u.l->n, &k))
				return false;
			item = item.u.l->v[k];
			break;
		case GV_STRING:
			if (!index_of(x, &ix, item.u.s.n, &k))
				return false;
			item = gv_int((unsigned char)item.u.s.s[k]);
			item.type = "uint8";
			break;
		case GV_MAP: {
			struct gv *v;

			if (ix.kind == GV_INVALID)
				return gt_fail(x,
				    "value is nil; should be of type string");
			if (ix.kind != GV_STRING)
				return gt_fail(x,
				    "value has type %s; should be string",
				    gv_type(&ix));
			v = gv_map_get(item.u.m, ix.u.s.s, ix.u.s.n);
			item = v ? *v : gv_nil();
			break;
		}
		case GV_INVALID:
		case GV_NIL:
			return gt_fail(x, "index of nil pointer");
		default:
			return gt_fail(x, "can't index item of type %s",
			    gv_type(&item));
		}
	}
	*out = item;
	out->iface = true;
	return true;
}

static bool
f_print(A)
{
	struct buf b = BUF_INIT;

	gv_sprint(&b, a, n);
	*out = bstr(x, &b);
	return true;
}

static bool
f_println(A)
{
	struct buf b = BUF_INIT;

	gv_sprintln(&b, a, n);
	*out = bstr(x, &b);
	return true;
}

static bool
f_printf(A)
{
	struct buf b = BUF_INIT;

	gv_sprintf(&b, a[0].u.s.s, a[0].u.s.n, a + 1, n - 1);
	*out = bstr(x, &b);
	return true;
}

/* html, js, urlquery: one string as it is, else Sprint of all. */
static struct gv
eval_args(struct gt_exec *x, struct gv *a, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;

	if (n == 1 && a[0].kind == GV_STRING)
		return a[0];
	for (i = 0; i < n; i++)
		if (a[i].kind == GV_NIL || a[i].kind == GV_INVALID)
			a[i] = gv_cstr("<no value>");
	gv_sprint(&b, a, n);
	return bstr(x, &b);
}

static bool
f_html(A)
{
	struct gv s = eval_args(x, a, n);
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < s.u.s.n; i++) {
		switch (s.u.s.s[i]) {
		case '"': buf_puts(&b, "&#34;"); break;
		case '\'': buf_puts(&b, "&#39;"); break;
		case '&': buf_puts(&b, "&amp;"); break;
		case '<': buf_puts(&b, "&lt;"); break;
		case '>': buf_puts(&b, "&gt;"); break;
		case '\0': buf_puts(&b, "\xef\xbf\xbd"); break;
		default: buf_putc(&b, s.u.s.s[i]);
		}
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_js(A)
{
	struct gv s = eval_args(x, a, n);
	struct buf b = BUF_INIT;
	size_t i = 0;

	while (i < s.u.s.n) {
		uint32_t cp;
		size_t k = utf8_decode(s.u.s.s + i, s.u.s.n - i, &cp);
		unsigned char c = (unsigned char)s.u.s.s[i];

		if (!k) {
			buf_puts(&b, "\\uFFFD");
			i++;
			continue;
		}
		switch (c) {
		case '\\': buf_puts(&b, "\\\\"); break;
		case '\'': buf_puts(&b, "\\'"); break;
		case '"': buf_puts(&b, "\\\""); break;
		case '<': buf_puts(&b, "\\u003C"); break;
		case '>': buf_puts(&b, "\\u003E"); break;
		case '&': buf_puts(&b, "\\u0026"); break;
		case '=': buf_puts(&b, "\\u003D"); break;
		default:
			/* Go's JSEscape: controls, and runes that are not
			 * printable (unicode.IsPrint) */
			if (cp < ' ' || (cp >= 0x80 && (cp <= 0xa0 ||
			    cp == 0xad || cp == 0x1680 || (cp >= 0x2000 &&
			    cp <= 0x200a) || cp == 0x202f || cp == 0x205f ||
			    cp == 0x3000 || cp == 0x2028 || cp == 0x2029 ||
			    (cp >= 0x200b && cp <= 0x200f) ||
			    (cp >= 0x202a && cp <= 0x202e) ||
			    (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
			    (cp >= 0xe000 && cp <= 0xf8ff))))
				buf_printf(&b, "\\u%04X", cp);
			else
				buf_put(&b, s.u.s.s + i, k);
		}
		i += k;
	}
	*out = bstr(x, &b);
	return true;
}

static void
query_escape(struct buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' ||
		    c == '.' || c == '~')
			buf_putc(b, c);
		else if (c == ' ')
			buf_putc(b, '+');
		else
			buf_printf(b, "%%%02X", c);
	}
}

static bool
f_urlquery(A)
{
	struct gv s = eval_args(x, a, n);
	struct buf b = BUF_INIT;

	query_escape(&b, s.u.s.s, s.u.s.n);
	*out = bstr(x, &b);
	return true;
}

/* Comparison: Go's basicKind. */
enum bkind { K_INVALID, K_BOOL, K_INT, K_FLOAT, K_STRING, K_OTHER };

static enum bkind
bkind(const struct gv *v)
{
	switch (v->kind) {
	case GV_BOOL: return K_BOOL;
	case GV_INT: return K_INT;
	case GV_FLOAT: return K_FLOAT;
	case GV_STRING: return K_STRING;
	case GV_INVALID:
	case GV_NIL: return K_INVALID;
	default: return K_OTHER;
	}
}

/* Go's %s of a value, for comparison errors. */
static const char *
show_s(struct gt_exec *x, const struct gv *v)
{
	struct buf b = BUF_INIT;

	gv_sprintf(&b, "%s", 2, v, 1);
	return bstr(x, &b).u.s.s;
}

static bool
f_eq(A)
{
	struct gv a1 = gv_unwrap(a[0]);
	enum bkind k1 = bkind(&a1);
	size_t i;

	if (n < 2)
		return gt_fail(x, "missing argument for comparison");
	for (i = 1; i < n; i++) {
		struct gv b = gv_unwrap(a[i]);
		enum bkind k2 = bkind(&b);
		bool truth = false;

		if (k1 != k2) {
			if (k1 != K_INVALID && k2 != K_INVALID)
				return gt_fail(x,
				    "incompatible types for comparison");
		} else {
			switch (k1) {
			case K_BOOL: truth = a1.u.b == b.u.b; break;
			case K_INT: truth = a1.u.i == b.u.i; break;
			case K_FLOAT: truth = a1.u.f == b.u.f; break;
			case K_STRING:
				truth = a1.u.s.n == b.u.s.n &&
				    memcmp(a1.u.s.s, b.u.s.s, a1.u.s.n) == 0;
				break;
			case K_INVALID: truth = true; break;
			default:
				if (strcmp(gv_type(&a1), gv_type(&b)) != 0)
					return gt_fail(x,
					    "non-comparable types %s: %s, %s: %s",
					    show_s(x, &a1), gv_type(&a1),
					    gv_type(&b), show_s(x, &b));
				if (b.kind == GV_LIST || b.kind == GV_MAP)
					return gt_fail(x,
					    "non-comparable type %s: %s",
					    show_s(x, &b), gv_type(&b));
				truth = a1.u.ver == b.u.ver;
			}
		}
		if (truth) {
			*out = gv_bool(true);
			return true;
		}
	}
	*out = gv_bool(false);
	return true;
}

static bool
f_ne(A)
{
	if (!f_eq(x, a, n, out))
		return false;
	out->u.b = !out->u.b;
	return true;
}

static int
keycmp_str(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : an < bn ? -1 : an > bn;
}

static bool
less(struct gt_exec *x, struct gv *a, bool *r)
{
	struct gv a1 = gv_unwrap(a[0]), a2 = gv_unwrap(a[1]);
	enum bkind k1 = bkind(&a1), k2 = bkind(&a2);

	if (k1 == K_INVALID || k1 == K_OTHER || k2 == K_INVALID ||
	    k2 == K_OTHER)
		return gt_fail(x, "invalid type for comparison");
	if (k1 != k2)
		return gt_fail(x, "incompatible types for comparison");
	switch (k1) {
	case K_BOOL:
		return gt_fail(x, "invalid type for comparison");
	case K_INT: *r = a1.u.i < a2.u.i; break;
	case K_FLOAT: *r = a1.u.f < a2.u.f; break;
	default:
		*r = keycmp_str(a1.u.s.s, a1.u.s.n, a2.u.s.s, a2.u.s.n) < 0;
	}
	return true;
}

static bool
f_lt(A)
{
	bool r;

	ARGS_UNUSED;
	if (!less(x, a, &r))
		return false;
	*out = gv_bool(r);
	return true;
}

static bool
f_le(A)
{
	bool r;

	ARGS_UNUSED;
	if (!less(x, a, &r))
		return false;
	if (!r && !f_eq(x, a, 2, out))
		return false;
	if (r)
		*out = gv_bool(true);
	return true;
}

static bool
f_gt(A)
{
	if (!f_le(x, a, n, out))
		return false;
	out->u.b = !out->u.b;
	return true;
}

static bool
f_ge(A)
{
	if (!f_lt(x, a, n, out))
		return false;
	out->u.b = !out->u.b;
	return true;
}

static bool
f_call(A)
{
	struct gv f = gv_unwrap(a[0]);

	ARGS_UNUSED;
	if (f.kind == GV_INVALID)
		return gt_fail(x, "call of nil");
	return gt_fail(x, "non-function of type %s", gv_type(&f));
}

/* Sprig: strings. */

static bool
f_trim(A)
{
	const char *s = a[0].u.s.s;
	size_t len = a[0].u.s.n;

	ARGS_UNUSED;
	/* strings.TrimSpace: ASCII space and Unicode White_Space */
	for (;;) {
		uint32_t cp;
		size_t k = utf8_decode(s, len, &cp);

		if (k && (cp == ' ' || (cp >= 9 && cp <= 13) || cp == 0x85 ||
		    cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 &&
		    cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
		    cp == 0x202f || cp == 0x205f || cp == 0x3000)) {
			s += k;
			len -= k;
		} else {
			break;
		}
	}
	while (len) {
		size_t k = 1;
		uint32_t cp;

		while (k < len && k < 4 && ((unsigned char)s[len - k] & 0xc0) ==
		    0x80)
			k++;
		if (utf8_decode(s + len - k, k, &cp) == k && (cp == ' ' ||
		    (cp >= 9 && cp <= 13) || cp == 0x85 || cp == 0xa0 ||
		    cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
		    cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
		    cp == 0x205f || cp == 0x3000))
			len -= k;
		else
			break;
	}
	return ret_str(x, out, s, len);
}

static bool
in_cutset(const struct gv *cut, const char *s, size_t n, size_t *k)
{
	uint32_t cp, cc;
	size_t i = 0;

	*k = utf8_decode(s, n, &cp);
	if (!*k) {
		*k = 1;
		cp = 0xfffd;
	}
	while (i < cut->u.s.n) {
		size_t l = utf8_decode(cut->u.s.s + i, cut->u.s.n - i, &cc);

		if (!l) {
			l = 1;
			cc = 0xfffd;
		}
		if (cc == cp)
			return true;
		i += l;
	}
	return false;
}

/* strings.Trim(s, cutset): Sprig's trimAll takes (cutset, s). */
static void
trim_cut(const struct gv *cut, const char **s, size_t *len, bool left,
    bool right)
{
	size_t k;

	while (left && *len && in_cutset(cut, *s, *len, &k)) {
		*s += k;
		*len -= k;
	}
	while (right && *len) {
		size_t j = 1;

		while (j < *len && j < 4 && ((unsigned char)(*s)[*len - j] &
		    0xc0) == 0x80)
			j++;
		if (in_cutset(cut, *s + *len - j, j, &k) && k == j)
			*len -= j;
		else
			break;
	}
}

static bool
f_trimall(A)
{
	const char *s = a[1].u.s.s;
	size_t len = a[1].u.s.n;

	ARGS_UNUSED;
	trim_cut(&a[0], &s, &len, true, true);
	return ret_str(x, out, s, len);
}

static bool
f_trimprefix(A)
{
	ARGS_UNUSED;
	if (a[1].u.s.n >= a[0].u.s.n && memcmp(a[1].u.s.s, a[0].u.s.s,
	    a[0].u.s.n) == 0)
		*out = gv_str(a[1].u.s.s + a[0].u.s.n, a[1].u.s.n - a[0].u.s.n);
	else
		*out = a[1];
	return true;
}

static bool
f_trimsuffix(A)
{
	ARGS_UNUSED;
	if (a[1].u.s.n >= a[0].u.s.n && memcmp(a[1].u.s.s + a[1].u.s.n -
	    a[0].u.s.n, a[0].u.s.s, a[0].u.s.n) == 0)
		*out = gv_str(a[1].u.s.s, a[1].u.s.n - a[0].u.s.n);
	else
		*out = a[1];
	return true;
}

/* Simple case mapping: ASCII, Latin-1, Latin Extended-A, Greek,
 * Cyrillic. */
static uint32_t
to_upper(uint32_t c)
{
	if (c >= 'a' && c <= 'z')
		return c - 32;
	if ((c >= 0xe0 && c <= 0xfe && c != 0xf7))
		return c - 32;
	if (c == 0xff)
		return 0x178;
	if (c >= 0x100 && c <= 0x17f && (c & 1) && c != 0x131 && c != 0x138 &&
	    c != 0x149 && !(c >= 0x139 && c <= 0x148) && !(c >= 0x179))
		return c - 1;
	if (((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) &&
	    !(c & 1))
		return c - 1;
	if (c >= 0x3b1 && c <= 0x3c9 && c != 0x3c2)
		return c - 32;
	if (c >= 0x430 && c <= 0x44f)
		return c - 32;
	if (c >= 0x450 && c <= 0x45f)
		return c - 80;
	return c;
}

static uint32_t
to_lower(uint32_t c)
{
	if (c >= 'A' && c <= 'Z')
		return c + 32;
	if (c >= 0xc0 && c <= 0xde && c != 0xd7)
		return c + 32;
	if (c == 0x178)
		return 0xff;
	if (c >= 0x100 && c <= 0x17f && !(c & 1) && c != 0x130 &&
	    c != 0x138 && !(c >= 0x139 && c <= 0x148) && !(c >= 0x179))
		return c + 1;
	if (((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) &&
	    (c & 1))
		return c + 1;
	if (c >= 0x391 && c <= 0x3a9 && c != 0x3a2)
		return c + 32;
	if (c >= 0x410 && c <= 0x42f)
		return c + 32;
	if (c >= 0x400 && c <= 0x40f)
		return c + 80;
	return c;
}

static bool
is_space_cp(uint32_t c)
{
	return c == ' ' || (c >= 9 && c <= 13) || c == 0x85 || c == 0xa0 ||
	    c == 0x3000;
}

/* mode: 'u' upper, 'l' lower, 't' title (strings.Title), 's' swap,
 * 'n' untitle. */
static bool
map_case(struct gt_exec *x, const struct gv *s, int mode, struct gv *out)
{
	struct buf b = BUF_INIT;
	size_t i = 0;
	uint32_t prev = ' ';

	while (i < s->u.s.n) {
		uint32_t cp, r;
		size_t k = utf8_decode(s->u.s.s + i, s->u.s.n - i, &cp);
		char enc[4];

		if (!k) {
			buf_putc(&b, s->u.s.s[i++]);
			prev = 0xfffd;
			continue;
		}
		switch (mode) {
		case 'u': r = to_upper(cp); break;
		case 'l': r = to_lower(cp); break;
		case 't':
			/* strings.Title: after a separator -- ASCII other
			 * than letters, digits and '_', or a space */
			r = (prev < 0x80 ? !((prev >= 'a' && prev <= 'z') ||
			    (prev >= 'A' && prev <= 'Z') || (prev >= '0' &&
			    prev <= '9') || prev == '_') : is_space_cp(prev)) ?
			    to_upper(cp) : cp;
			break;
		case 'n':
			r = is_space_cp(prev) ? to_lower(cp) : cp;
			break;
		default:
			r = to_upper(cp) != cp ? to_upper(cp) :
			    to_lower(cp) != cp ? to_lower(cp) : cp;
			if (to_lower(cp) != cp && is_space_cp(prev))
				r = to_lower(cp);
			else if (to_lower(cp) != cp)
				r = to_lower(cp);
			else if (to_upper(cp) != cp && is_space_cp(prev))
				r = to_upper(cp);  /* title case: upper */
			break;
		}
		buf_put(&b, enc, utf8_encode(r, enc));
		prev = cp;
		i += k;
	}
	*out = bstr(x, &b);
	return true;
}

static bool f_upper(A) { ARGS_UNUSED; return map_case(x, &a[0], 'u', out); }
static bool f_lower(A) { ARGS_UNUSED; return map_case(x, &a[0], 'l', out); }
static bool f_title(A) { ARGS_UNUSED; return map_case(x, &a[0], 't', out); }
static bool f_untitle(A) { ARGS_UNUSED; return map_case(x, &a[0], 'n', out); }
static bool f_swapcase(A) { ARGS_UNUSED; return map_case(x, &a[0], 's', out); }

static bool
f_replace(A)
{
	const struct gv *old = &a[0], *new = &a[1], *s = &a[2];
	struct buf b = BUF_INIT;
	size_t i = 0;

	ARGS_UNUSED;
	if (!old->u.s.n) {
		/* strings.Replace with "": new before every rune and at
		 * the end */
		while (i < s->u.s.n) {
			uint32_t cp;
			size_t k = utf8_decode(s->u.s.s + i, s->u.s.n - i, &cp);

			buf_put(&b, new->u.s.s, new->u.s.n);
			buf_put(&b, s->u.s.s + i, k ? k : 1);
			i += k ? k : 1;
		}
		buf_put(&b, new->u.s.s, new->u.s.n);
		*out = bstr(x, &b);
		return true;
	}
	while (i < s->u.s.n) {
		const char *q = memmem(s->u.s.s + i, s->u.s.n - i, old->u.s.s,
		    old->u.s.n);

		if (!q) {
			buf_put(&b, s->u.s.s + i, s->u.s.n - i);
			break;
		}
		buf_put(&b, s->u.s.s + i, (size_t)(q - s->u.s.s) - i);
		buf_put(&b, new->u.s.s, new->u.s.n);
		i = (size_t)(q - s->u.s.s) + old->u.s.n;
	}
	*out = bstr(x, &b);
	return true;
}

static bool
contains(const struct gv *hay, const struct gv *needle)
{
	return needle->u.s.n == 0 || memmem(hay->u.s.s, hay->u.s.n,
	    needle->u.s.s, needle->u.s.n) != NULL;
}

static bool
f_contains(A)
{
	ARGS_UNUSED;
	*out = gv_bool(contains(&a[1], &a[0]));
	return true;
}

static bool
f_hasprefix(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[1].u.s.n >= a[0].u.s.n && memcmp(a[1].u.s.s,
	    a[0].u.s.s, a[0].u.s.n) == 0);
	return true;
}

static bool
f_hassuffix(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[1].u.s.n >= a[0].u.s.n && memcmp(a[1].u.s.s +
	    a[1].u.s.n - a[0].u.s.n, a[0].u.s.s, a[0].u.s.n) == 0);
	return true;
}

static bool
quote_all(struct gt_exec *x, struct gv *a, size_t n, struct gv *out,
    bool dbl)
{
	struct buf b = BUF_INIT;
	size_t i;
	bool first = true;

	for (i = 0; i < n; i++) {
		struct gv s;

		if (a[i].kind == GV_NIL || a[i].kind == GV_INVALID)
			continue;
		s = strval(x, &a[i]);
		if (!first)
			buf_putc(&b, ' ');
		first = false;
		if (dbl) {
			gv_quote(&b, s.u.s.s, s.u.s.n);
		} else {
			buf_putc(&b, '\'');
			buf_put(&b, s.u.s.s, s.u.s.n);
			buf_putc(&b, '\'');
		}
	}
	*out = bstr(x, &b);
	return true;
}

static bool f_quote(A) { return quote_all(x, a, n, out, true); }
static bool f_squote(A) { return quote_all(x, a, n, out, false); }

static bool
f_cat(A)
{
	struct buf b = BUF_INIT;
	size_t i;
	bool first = true;

	for (i = 0; i < n; i++) {
		if (a[i].kind == GV_NIL || a[i].kind == GV_INVALID)
			continue;
		if (!first)
			buf_putc(&b, ' ');
		first = false;
		gv_print(&b, &a[i]);
	}
	*out = bstr(x, &b);
	return true;
}

static bool
indent_str(struct gt_exec *x, int64_t spaces, const struct gv *s, bool nl,
    struct gv *out)
{
	struct buf b = BUF_INIT, pad = BUF_INIT;
	size_t i;
	int64_t k;

	for (k = 0; k < spaces && k < 100000; k++)
		buf_putc(&pad, ' ');
	if (nl)
		buf_putc(&b, '\n');
	buf_put(&b, pad.data, pad.len);
	for (i = 0; i < s->u.s.n; i++) {
		buf_putc(&b, s->u.s.s[i]);
		if (s->u.s.s[i] == '\n')
			buf_put(&b, pad.data, pad.len);
	}
	buf_free(&pad);
	*out = bstr(x, &b);
	return true;
}

static bool
f_indent(A)
{
	ARGS_UNUSED;
	return indent_str(x, a[0].u.i, &a[1], false, out);
}

static bool
f_nindent(A)
{
	ARGS_UNUSED;
	return indent_str(x, a[0].u.i, &a[1], true, out);
}

static bool
f_nospace(A)
{
	struct buf b = BUF_INIT;
	size_t i = 0;

	ARGS_UNUSED;
	while (i < a[0].u.s.n) {
		uint32_t cp;
		size_t k = utf8_decode(a[0].u.s.s + i, a[0].u.s.n - i, &cp);

		if (!k)
			k = 1;
		else if (is_space_cp(cp) || cp == 0x1680 || (cp >= 0x2000 &&
		    cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
		    cp == 0x202f || cp == 0x205f) {
			i += k;
			continue;
		}
		buf_put(&b, a[0].u.s.s + i, k);
		i += k;
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_repeat(A)
{
	struct buf b = BUF_INIT;
	int64_t i;

	ARGS_UNUSED;
	if (a[0].u.i < 0)
		return gt_fail(x, "strings: negative Repeat count");
	if (a[1].u.s.n && (uint64_t)a[0].u.i > ((size_t)64 << 20) /
	    a[1].u.s.n)
		return gt_fail(x, "strings: Repeat output length overflow");
	for (i = 0; i < a[0].u.i; i++)
		buf_put(&b, a[1].u.s.s, a[1].u.s.n);
	*out = bstr(x, &b);
	return true;
}

/* Sprig's substr works on bytes. */
static bool
f_substr(A)
{
	int64_t start = a[0].u.i, end = a[1].u.i, len = (int64_t)a[2].u.s.n;

	ARGS_UNUSED;
	if (start < 0)
		return ret_str(x, out, a[2].u.s.s, end < 0 || end > len ?
		    (size_t)len : (size_t)end);
	if (end < 0 || end > len) {
		if (start > len)
			return gt_fail(x, "runtime error: slice bounds out of range [%lld:%lld]",
			    (long long)start, (long long)len);
		return ret_str(x, out, a[2].u.s.s + start, (size_t)(len -
		    start));
	}
	if (start > end)
		return gt_fail(x, "runtime error: slice bounds out of range [%lld:%lld]",
		    (long long)start, (long long)end);
	return ret_str(x, out, a[2].u.s.s + start, (size_t)(end - start));
}

static bool
f_trunc(A)
{
	int64_t c = a[0].u.i, len = (int64_t)a[1].u.s.n;

	ARGS_UNUSED;
	if (c < 0 && len + c > 0)
		return ret_str(x, out, a[1].u.s.s + len + c, (size_t)-c);
	if (c >= 0 && len > c)
		return ret_str(x, out, a[1].u.s.s, (size_t)c);
	*out = a[1];
	return true;
}

/* goutils.AbbreviateFull on bytes; NULL: its error. */
static bool
abbreviate(struct gt_exec *x, const struct gv *s, int64_t off, int64_t w,
    struct gv *out)
{
	int64_t len = (int64_t)s->u.s.n;
	struct buf b = BUF_INIT;

	if (!len || w < 4 || len <= w) {
		*out = w < 4 && len ? gv_cstr("") : *s;
		return true;
	}
	if (off > len)
		off = len;
	if (len - off < w - 3)
		off = len - (w - 3);
	if (off <= 4) {
		buf_put(&b, s->u.s.s, (size_t)(w - 3));
		buf_puts(&b, "...");
	} else if (w < 7) {
		*out = gv_cstr("");
		return true;
	} else if (off + w - 3 < len) {
		struct gv rest = gv_str(s->u.s.s + off, (size_t)(len - off)),
		    r;

		abbreviate(x, &rest, 0, w - 3, &r);
		buf_puts(&b, "...");
		buf_put(&b, r.u.s.s, r.u.s.n);
	} else {
		buf_puts(&b, "...");
		buf_put(&b, s->u.s.s + len - (w - 3), (size_t)(w - 3));
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_abbrev(A)
{
	ARGS_UNUSED;
	if (a[0].u.i < 4) {
		*out = a[1];
		return true;
	}
	return abbreviate(x, &a[1], 0, a[0].u.i, out);
}

static bool
f_abbrevboth(A)
{
	ARGS_UNUSED;
	if (a[1].u.i < 4 || (a[0].u.i > 0 && a[1].u.i < 7)) {
		*out = a[2];
		return true;
	}
	return abbreviate(x, &a[2], a[0].u.i, a[1].u.i, out);
}

static bool
f_initials(A)
{
	struct buf b = BUF_INIT;
	size_t i = 0;
	bool start = true;

	ARGS_UNUSED;
	while (i < a[0].u.s.n) {
		uint32_t cp;
		size_t k = utf8_decode(a[0].u.s.s + i, a[0].u.s.n - i, &cp);

		if (!k)
			k = 1;
		if (is_space_cp(cp))
			start = true;
		else if (start) {
			buf_put(&b, a[0].u.s.s + i, k);
			start = false;
		}
		i += k;
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_plural(A)
{
	ARGS_UNUSED;
	*out = a[2].u.i == 1 ? a[0] : a[1];
	return true;
}

/* snakecase, kebabcase, camelcase. */
static bool
f_snakecase(A)
{
	struct buf b = BUF_INIT;
	size_t i;
	const char *s = a[0].u.s.s;

	ARGS_UNUSED;
	for (i = 0; i < a[0].u.s.n; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z') {
			if (i > 0 && ((s[i - 1] >= 'a' && s[i - 1] <= 'z') ||
			    (s[i - 1] >= '0' && s[i - 1] <= '9') ||
			    (i + 1 < a[0].u.s.n && s[i + 1] >= 'a' &&
			    s[i + 1] <= 'z' && s[i - 1] >= 'A' &&
			    s[i - 1] <= 'Z')))
				buf_putc(&b, '_');
			buf_putc(&b, c + 32);
		} else if (c == ' ' || c == '-') {
			buf_putc(&b, '_');
		} else {
			buf_putc(&b, c);
		}
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_kebabcase(A)
{
	size_t i;
	char *s;

	if (!f_snakecase(x, a, n, out))
		return false;
	s = (char *)out->u.s.s;
	for (i = 0; i < out->u.s.n; i++)
		if (s[i] == '_')
			s[i] = '-';
	return true;
}

static bool
f_camelcase(A)
{
	struct buf b = BUF_INIT;
	size_t i;
	bool up = true;

	ARGS_UNUSED;
	for (i = 0; i < a[0].u.s.n; i++) {
		char c = a[0].u.s.s[i];

		if (c == '_' || c == ' ' || c == '-') {
			up = true;
			continue;
		}
		buf_putc(&b, up && c >= 'a' && c <= 'z' ? c - 32 : c);
		up = false;
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_wrapwith(A)
{
	/* a[0] width, a[1] separator, a[2] string: word wrap at spaces */
	struct buf b = BUF_INIT;
	int64_t w = a[0].u.i, col = 0;
	size_t i = 0;
	const char *s = a[2].u.s.s;
	size_t len = a[2].u.s.n;

	ARGS_UNUSED;
	if (w < 1)
		w = 1;
	while (i < len) {
		size_t j = i;

		while (j < len && s[j] != ' ' && s[j] != '\n')
			j++;
		if (col > 0 && col + (int64_t)(j - i) > w) {
			buf_put(&b, a[1].u.s.s, a[1].u.s.n);
			col = 0;
		} else if (col > 0) {
			buf_putc(&b, ' ');
			col++;
		}
		buf_put(&b, s + i, j - i);
		col += (int64_t)(j - i);
		if (j < len && s[j] == '\n') {
			buf_putc(&b, '\n');
			col = 0;
		}
		i = j + 1;
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_wrap(A)
{
	struct gv v[3];

	v[0] = a[0];
	v[1] = gv_cstr("\n");
	v[2] = a[1];
	(void)n;
	return f_wrapwith(x, v, 3, out);
}

/* Sprig: lists. */

static bool
f_list(A)
{
	size_t i;

	*out = gv_list_new(AR, n);
	for (i = 0; i < n; i++) {
		out->u.l->v[i] = a[i];
		out->u.l->v[i].iface = false;
	}
	return true;
}

static bool
f_first(A)
{
	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find first"))
		return false;
	*out = a[0].u.l->n ? a[0].u.l->v[0] : gv_nil();
	return true;
}

static bool
f_last(A)
{
	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find last"))
		return false;
	*out = a[0].u.l->n ? a[0].u.l->v[a[0].u.l->n - 1] : gv_nil();
	return true;
}

static bool
sub_list(struct gt_exec *x, const struct gv *l, size_t from, size_t to,
    struct gv *out)
{
	size_t i;

	*out = list_of(x, to - from, NULL);
	for (i = from; i < to; i++)
		out->u.l->v[i - from] = l->u.l->v[i];
	return true;
}

static bool
f_rest(A)
{
	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find rest"))
		return false;
	if (!a[0].u.l->n) {
		*out = list_of(x, 0, NULL);
		return true;
	}
	return sub_list(x, &a[0], 1, a[0].u.l->n, out);
}

static bool
f_initial(A)
{
	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find initial"))
		return false;
	if (!a[0].u.l->n) {
		*out = list_of(x, 0, NULL);
		return true;
	}
	return sub_list(x, &a[0], 0, a[0].u.l->n - 1, out);
}

static bool
f_append(A)
{
	size_t i;

	ARGS_UNUSED;
	if (!need_list(x, &a[0], "push"))
		return false;
	*out = list_of(x, a[0].u.l->n + 1, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		out->u.l->v[i] = a[0].u.l->v[i];
	out->u.l->v[i] = a[1];
	return true;
}

static bool
f_prepend(A)
{
	size_t i;

	ARGS_UNUSED;
	if (!need_list(x, &a[0], "prepend"))
		return false;
	*out = list_of(x, a[0].u.l->n + 1, NULL);
	out->u.l->v[0] = a[1];
	for (i = 0; i < a[0].u.l->n; i++)
		out->u.l->v[i + 1] = a[0].u.l->v[i];
	return true;
}

static bool
f_reverse(A)
{
	size_t i, k;

	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find reverse"))
		return false;
	k = a[0].u.l->n;
	*out = list_of(x, k, NULL);
	for (i = 0; i < k; i++)
		out->u.l->v[i] = a[0].u.l->v[k - 1 - i];
	return true;
}

static bool
in_list(const struct gv *l, const struct gv *v)
{
	size_t i;

	for (i = 0; i < l->u.l->n; i++)
		if (gv_deep_equal(&l->u.l->v[i], v))
			return true;
	return false;
}

static bool
f_has(A)
{
	ARGS_UNUSED;
	if (a[1].kind == GV_NIL || a[1].kind == GV_INVALID) {
		*out = gv_bool(false);
		return true;
	}
	if (!need_list(x, &a[1], "find has"))
		return false;
	*out = gv_bool(in_list(&a[1], &a[0]));
	return true;
}

static bool
f_without(A)
{
	size_t i, k = 0;
	struct gv omit;

	if (!need_list(x, &a[0], "find without"))
		return false;
	omit.kind = GV_LIST;
	omit.u.l = &(struct gv_list){ a + 1, n - 1 };
	*out = list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		if (!in_list(&omit, &a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	out->u.l->n = k;
	return true;
}

static bool
f_uniq(A)
{
	size_t i, k = 0;

	ARGS_UNUSED;
	if (!need_list(x, &a[0], "find uniq"))
		return false;
	*out = list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++) {
		out->u.l->n = k;
		if (!in_list(out, &a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	}
	out->u.l->n = k;
	return true;
}

static bool
f_compact(A)
{
	size_t i, k = 0;

	ARGS_UNUSED;
	if (!need_list(x, &a[0], "compact"))
		return false;
	*out = list_of(x, a[0].u.l->n, NULL);
	for (i = 0; i < a[0].u.l->n; i++)
		if (!gv_empty(&a[0].u.l->v[i]))
			out->u.l->v[k++] = a[0].u.l->v[i];
	out->u.l->n = k;
	return true;
}

static bool
f_concat(A)
{
	size_t i, j, total = 0, k = 0;

	for (i = 0; i < n; i++) {
		if (!need_list(x, &a[i], "concat"))
			return false;
		total += a[i].u.l->n;
	}
	*out = list_of(x, total, NULL);
	for (i = 0; i < n; i++)
		for (j = 0; j < a[i].u.l->n; j++)
			out->u.l->v[k++] = a[i].u.l->v[j];
	return true;
}

static int
cmp_str(const void *p, const void *q)
{
	const struct gv *a = p, *b = q;
	int c = memcmp(a->u.s.s, b->u.s.s, a->u.s.n < b->u.s.n ? a->u.s.n :
	    b->u.s.n);

	return c ? c : a->u.s.n < b->u.s.n ? -1 : a->u.s.n > b->u.s.n;
}

static bool
f_sortalpha(A)
{
	ARGS_UNUSED;
	if (!is_list(&a[0])) {
		*out = list_of(x, 1, "[]string");
		out->u.l->v[0] = strval(x, &a[0]);
		return true;
	}
	*out = strslice(x, &a[0]);
	qsort(out->u.l->v, out->u.l->n, sizeof(struct gv), cmp_str);
	return true;
}

static bool
f_slice(A)
{
	int64_t start = 0, end;

	if (!is_list(&a[0]))
		return gt_fail(x, "list should be type of slice or array but %s",
		    gv_kindname(&a[0]));
	end = (int64_t)a[0].u.l->n;
	if (!a[0].u.l->n) {
		*out = gv_nil();
		return true;
	}
	if (n > 1)
		start = to_int64(&a[1]);
	if (n > 2)
		end = to_int64(&a[2]);
	if (start < 0 || end < start || end > (int64_t)a[0].u.l->n)
		return gt_fail(x, "reflect.Value.Slice: slice index out of bounds");
	return sub_list(x, &a[0], (size_t)start, (size_t)end, out);
}

/* Sprig's untilStep. */
static bool
until_step(struct gt_exec *x, int64_t start, int64_t stop, int64_t step,
    struct gv *out)
{
	size_t k = 0, cap = 0;
	int64_t i;
	struct gv *v = NULL;

	*out = list_of(x, 0, "[]int");
	if ((stop < start && step >= 0) || (stop >= start && step <= 0))
		return true;
	for (i = start; stop < start ? i > stop : i < stop; i += step) {
		if (k == cap) {
			v = arena_grow(AR, v, cap, cap ? cap * 2 : 16,
			    sizeof(*v));
			cap = cap ? cap * 2 : 16;
		}
		if (k >= 1000000)
			return gt_fail(x, "list longer than a million items");
		v[k++] = gv_int(i);
	}
	out->u.l->v = v;
	out->u.l->n = k;
	return true;
}

static bool
f_until(A)
{
	ARGS_UNUSED;
	return until_step(x, 0, a[0].u.i, a[0].u.i < 0 ? -1 : 1, out);
}

static bool
f_untilstep(A)
{
	ARGS_UNUSED;
	return until_step(x, a[0].u.i, a[1].u.i, a[2].u.i, out);
}

static bool
f_seq(A)
{
	struct buf b = BUF_INIT;
	int64_t start, end, step, inc = 1;
	struct gv l;
	size_t i;

	switch (n) {
	case 1:
		start = 1;
		end = a[0].u.i;
		if (end < start)
			inc = -1;
		step = inc;
		break;
	case 2:
		start = a[0].u.i;
		end = a[1].u.i;
		step = inc = end < start ? -1 : 1;
		break;
	case 3:
		start = a[0].u.i;
		end = a[2].u.i;
		step = a[1].u.i;
		if (end < start) {
			inc = -1;
			if (step > 0) {
				*out = gv_cstr("");
				return true;
			}
		}
		break;
	default:
		*out = gv_cstr("");
		return true;
	}
	if (!until_step(x, start, end + inc, step, &l))
		return false;
	for (i = 0; i < l.u.l->n; i++)
		buf_printf(&b, "%s%lld", i ? " " : "",
		    (long long)l.u.l->v[i].u.i);
	*out = bstr(x, &b);
	return true;
}

static bool
f_chunk(A)
{
	size_t len, cs, i, j, size;

	ARGS_UNUSED;
	if (!is_list(&a[1]))
		return gt_fail(x, "Cannot chunk type %s", gv_kindname(&a[1]));
	if (a[0].u.i <= 0)
		return gt_fail(x, "runtime error: integer divide by zero");
	size = (size_t)a[0].u.i;
	len = a[1].u.l->n;
	cs = len ? (len - 1) / size + 1 : 0;
	*out = list_of(x, cs, "[][]interface {}");
	for (i = 0; i < cs; i++) {
		size_t clen = i == cs - 1 && len % size ? len % size : size;

		out->u.l->v[i] = list_of(x, clen, NULL);
		for (j = 0; j < clen; j++)
			out->u.l->v[i].u.l->v[j] = a[1].u.l->v[i * size + j];
	}
	return true;
}

/* Sprig: dicts. */

static bool
f_dict(A)
{
	size_t i;

	*out = gv_map_new(AR);
	for (i = 0; i < n; i += 2) {
		struct gv k = strval(x, &a[i]);

		gv_map_set(AR, out->u.m, k.u.s.s, k.u.s.n, i + 1 < n ?
		    a[i + 1] : gv_cstr(""));
	}
	return true;
}

static bool
f_get(A)
{
	struct gv *v;

	ARGS_UNUSED;
	if (a[0].kind != GV_MAP) {
		*out = gv_cstr("");
		return true;
	}
	v = gv_map_get(a[0].u.m, a[1].u.s.s, a[1].u.s.n);
	*out = v ? *v : gv_cstr("");
	return true;
}

static bool
f_set(A)
{
	ARGS_UNUSED;
	if (a[0].kind != GV_MAP)
		return gt_fail(x, "assignment to entry in nil map");
	gv_map_set(AR, a[0].u.m, a[1].u.s.s, a[1].u.s.n, a[2]);
	*out = a[0];
	return true;
}

static bool
f_unset(A)
{
	ARGS_UNUSED;
	if (a[0].kind == GV_MAP)
		gv_map_del(a[0].u.m, a[1].u.s.s, a[1].u.s.n);
	*out = a[0];
	return true;
}

static bool
f_haskey(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[0].kind == GV_MAP && gv_map_get(a[0].u.m,
	    a[1].u.s.s, a[1].u.s.n));
	return true;
}

static bool
f_pluck(A)
{
	size_t i, k = 0;

	*out = list_of(x, n, NULL);
	for (i = 1; i < n; i++) {
		struct gv *v = a[i].kind == GV_MAP ? gv_map_get(a[i].u.m,
		    a[0].u.s.s, a[0].u.s.n) : NULL;

		if (v)
			out->u.l->v[k++] = *v;
	}
	out->u.l->n = k;
	return true;
}

static bool
f_keys(A)
{
	size_t i, j, k = 0, total = 0;

	for (i = 0; i < n; i++)
		if (a[i].kind == GV_MAP)
			total += a[i].u.m->n;
	*out = list_of(x, total, "[]string");
	for (i = 0; i < n; i++)
		if (a[i].kind == GV_MAP)
			for (j = 0; j < a[i].u.m->n; j++)
				out->u.l->v[k++] = gv_str(a[i].u.m->items[j].k,
				    a[i].u.m->items[j].kn);
	return true;
}

static bool
f_values(A)
{
	size_t i;

	ARGS_UNUSED;
	if (a[0].kind != GV_MAP) {
		*out = list_of(x, 0, NULL);
		return true;
	}
	*out = list_of(x, a[0].u.m->n, NULL);
	for (i = 0; i < a[0].u.m->n; i++)
		out->u.l->v[i] = a[0].u.m->items[i].v;
	return true;
}

static bool
pick_omit(struct gt_exec *x, struct gv *a, size_t n, struct gv *out,
    bool pick)
{
	size_t i, j;

	*out = gv_map_new(AR);
	if (a[0].kind != GV_MAP)
		return true;
	for (i = 0; i < a[0].u.m->n; i++) {
		const struct gv_item *it = &a[0].u.m->items[i];
		bool listed = false;

		for (j = 1; j < n; j++)
			if (a[j].u.s.n == it->kn && memcmp(a[j].u.s.s, it->k,
			    it->kn) == 0)
				listed = true;
		if (listed == pick)
			gv_map_set(AR, out->u.m, it->k, it->kn, it->v);
	}
	return true;
}

static bool f_pick(A) { return pick_omit(x, a, n, out, true); }
static bool f_omit(A) { return pick_omit(x, a, n, out, false); }

static void
merge_into(struct gt_exec *x, struct gv_map *dst, const struct gv_map *src,
    bool overwrite)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		const struct gv_item *it = &src->items[i];
		struct gv *d = gv_map_get(dst, it->k, it->kn);

		if (d && d->kind == GV_MAP && it->v.kind == GV_MAP)
			merge_into(x, d->u.m, it->v.u.m, overwrite);
		else if (!d || overwrite || gv_empty(d))
			gv_map_set(AR, dst, it->k, it->kn, it->v);
	}
}

static bool
merge(struct gt_exec *x, struct gv *a, size_t n, struct gv *out, bool over)
{
	size_t i;

	if (a[0].kind != GV_MAP)
		return gt_fail(x, "assignment to entry in nil map");
	for (i = 1; i < n; i++)
		if (a[i].kind == GV_MAP)
			merge_into(x, a[0].u.m, a[i].u.m, over);
	*out = a[0];
	return true;
}

static bool f_merge(A) { return merge(x, a, n, out, false); }
static bool f_mergeover(A) { return merge(x, a, n, out, true); }

static bool
f_dig(A)
{
	const struct gv *d = &a[n - 1];
	size_t i;

	if (n < 3)
		return gt_fail(x, "dig needs at least three arguments");
	for (i = 0; i + 2 < n; i++) {
		struct gv *v;
		struct gv k = a[i];

		if (k.kind != GV_STRING)
			return gt_fail(x, "interface conversion: interface {} is %s, not string",
			    gv_type(&k));
		if (d->kind != GV_MAP)
			return gt_fail(x, "interface conversion: interface {} is %s, not map[string]interface {}",
			    d->kind == GV_NIL ? "nil" : gv_type(d));
		v = gv_map_get(d->u.m, k.u.s.s, k.u.s.n);
		if (!v) {
			*out = a[n - 2];
			return true;
		}
		d = v;
	}
	*out = *d;
	return true;
}

/* Sprig: defaults and flow. */

static bool
f_default(A)
{
	*out = n < 2 || gv_empty(&a[1]) ? a[0] : a[1];
	return true;
}

static bool
f_empty(A)
{
	ARGS_UNUSED;
	*out = gv_bool(gv_empty(&a[0]));
	return true;
}

static bool
f_coalesce(A)
{
	size_t i;

	ARGS_UNUSED;
	*out = gv_nil();
	for (i = 0; i < n; i++)
		if (!gv_empty(&a[i])) {
			*out = a[i];
			break;
		}
	return true;
}

static bool
f_all(A)
{
	size_t i;

	*out = gv_bool(true);
	for (i = 0; i < n; i++)
		if (gv_empty(&a[i]))
			*out = gv_bool(false);
	return true;
}

static bool
f_any(A)
{
	size_t i;

	*out = gv_bool(false);
	for (i = 0; i < n; i++)
		if (!gv_empty(&a[i]))
			*out = gv_bool(true);
	return true;
}

static bool
f_ternary(A)
{
	ARGS_UNUSED;
	*out = a[2].u.b ? a[0] : a[1];
	return true;
}

static bool
f_fail(A)
{
	ARGS_UNUSED;
	return gt_fail(x, "%.*s", (int)a[0].u.s.n, a[0].u.s.s);
}

/* Sprig: math. */

static bool
f_add1(A)
{
	ARGS_UNUSED;
	*out = gv_int64(to_int64(&a[0]) + 1);
	return true;
}

static bool
f_add(A)
{
	int64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += to_int64(&a[i]);
	*out = gv_int64(s);
	return true;
}

static bool
f_sub(A)
{
	ARGS_UNUSED;
	*out = gv_int64(to_int64(&a[0]) - to_int64(&a[1]));
	return true;
}

static bool
f_div(A)
{
	int64_t d = to_int64(&a[1]);

	ARGS_UNUSED;
	if (d == 0)
		return gt_fail(x, "runtime error: integer divide by zero");
	*out = gv_int64(to_int64(&a[0]) / d);
	return true;
}

static bool
f_mod(A)
{
	int64_t d = to_int64(&a[1]);

	ARGS_UNUSED;
	if (d == 0)
		return gt_fail(x, "runtime error: integer divide by zero");
	*out = gv_int64(to_int64(&a[0]) % d);
	return true;
}

static bool
f_mul(A)
{
	int64_t s = to_int64(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		s *= to_int64(&a[i]);
	*out = gv_int64(s);
	return true;
}

static bool
f_max(A)
{
	int64_t s = to_int64(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		if (to_int64(&a[i]) > s)
			s = to_int64(&a[i]);
	*out = gv_int64(s);
	return true;
}

static bool
f_min(A)
{
	int64_t s = to_int64(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		if (to_int64(&a[i]) < s)
			s = to_int64(&a[i]);
	*out = gv_int64(s);
	return true;
}

/*
 * Sprig's float math goes through shopspring/decimal: each operand is
 * the shortest decimal that reads back as its float, the arithmetic is
 * exact (division: 16 digits after the point), and the result is read
 * back as a float.  Exact 128-bit decimals do that for the values
 * prompts use; past their range, doubles.
 */
__extension__ typedef __int128 i128;

struct dec {
	i128 m;                 /* value = m * 10^e */
	int e;
	bool ok;
};

static struct dec
dec_of(double f)
{
	struct dec d = { 0, 0, true };
	char tmp[64], *p;
	int nd = 0;

	if (isnan(f) || isinf(f)) {
		d.ok = false;
		return d;
	}
	for (int prec = 0; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec, f);
		if (strtod(tmp, NULL) == f)
			break;
	}
	for (p = tmp; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9') {
			d.m = d.m * 10 + (*p - '0');
			nd++;
		}
	d.e = atoi(strchr(tmp, 'e') + 1) - (nd - 1);
	if (tmp[0] == '-')
		d.m = -d.m;
	return d;
}

static bool
dec_scale(i128 *m, int by)
{
	const i128 lim = (i128)1 << 120;

	while (by-- > 0) {
		if (*m > lim / 10 || *m < -lim / 10)
			return false;
		*m *= 10;
	}
	return true;
}

static double
dec_float(struct dec d)
{
	char tmp[80], *p = tmp + sizeof(tmp) - 1;
	i128 m = d.m < 0 ? -d.m : d.m;
	char out[100];

	*p = '\0';
	do {
		*--p = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m);
	snprintf(out, sizeof(out), "%s%se%d", d.m < 0 ? "-" : "", p, d.e);
	return strtod(out, NULL);
}

/* op: '+', '-', '*', '/'. */
static double
dec_op(double a, double b, char op)
{
	struct dec x = dec_of(a), y = dec_of(b), r = { 0, 0, true };

	if (!x.ok || !y.ok)
		goto plain;
	switch (op) {
	case '+':
	case '-':
		if (x.e > y.e) {
			if (!dec_scale(&x.m, x.e - y.e))
				goto plain;
			x.e = y.e;
		} else if (y.e > x.e) {
			if (!dec_scale(&y.m, y.e - x.e))
				goto plain;
			y.e = x.e;
		}
		r.m = op == '+' ? x.m + y.m : x.m - y.m;
		r.e = x.e;
		return dec_float(r);
	case '*': {
		const i128 lim = (i128)1 << 62;

		if (x.m > lim || x.m < -lim || y.m > lim || y.m < -lim)
			goto plain;
		r.m = x.m * y.m;
		r.e = x.e + y.e;
		return dec_float(r);
	}
	default: {
		/* x / y rounded half away from zero at 10^-16 */
		int shift = x.e - y.e + 17;
		i128 q, num = x.m;

		if (y.m == 0)
			goto plain;
		if (shift < 0 || !dec_scale(&num, shift))
			goto plain;
		q = num / y.m;
		q = (q + (q < 0 ? -5 : 5)) / 10;
		r.m = q;
		r.e = -16;
		return dec_float(r);
	}
	}
plain:
	return op == '+' ? a + b : op == '-' ? a - b : op == '*' ? a * b :
	    a / b;
}

static bool
f_addf(A)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s = dec_op(s, to_float(&a[i]), '+');
	*out = gv_float(s);
	return true;
}

static bool
f_add1f(A)
{
	ARGS_UNUSED;
	*out = gv_float(dec_op(to_float(&a[0]), 1, '+'));
	return true;
}

static bool
f_subf(A)
{
	double s = to_float(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		s = dec_op(s, to_float(&a[i]), '-');
	*out = gv_float(s);
	return true;
}

static bool
f_mulf(A)
{
	double s = to_float(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		s = dec_op(s, to_float(&a[i]), '*');
	*out = gv_float(s);
	return true;
}

static bool
f_divf(A)
{
	double s = to_float(&a[0]);
	size_t i;

	for (i = 1; i < n; i++) {
		if (to_float(&a[i]) == 0)
			return gt_fail(x, "decimal division by 0");
		s = dec_op(s, to_float(&a[i]), '/');
	}
	*out = gv_float(s);
	return true;
}

/* Go's path package: pure functions of the text. */
static void
path_clean(struct buf *b, const char *p, size_t n)
{
	bool rooted = n && p[0] == '/';
	size_t r = rooted, dotdot = rooted;

	buf_reset(b);
	if (!n) {
		buf_putc(b, '.');
		return;
	}
	if (rooted)
		buf_putc(b, '/');
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' && (r + 2 == n ||
		    p[r + 2] == '/')) {
			r += 2;
			if (b->len > dotdot) {
				b->len--;
				while (b->len > dotdot && b->data[b->len] != '/')
					b->len--;
			} else if (!rooted) {
				if (b->len > 0)
					buf_putc(b, '/');
				buf_puts(b, "..");
				dotdot = b->len;
			}
		} else {
			if ((rooted && b->len != 1) || (!rooted && b->len))
				buf_putc(b, '/');
			for (; r < n && p[r] != '/'; r++)
				buf_putc(b, p[r]);
		}
	}
	if (!b->len)
		buf_putc(b, '.');
	b->data[b->len] = '\0';
}

static bool
f_clean(A)
{
	struct buf b = BUF_INIT;

	ARGS_UNUSED;
	path_clean(&b, a[0].u.s.s, a[0].u.s.n);
	*out = bstr(x, &b);
	return true;
}

static bool
f_base(A)
{
	const char *p = a[0].u.s.s;
	size_t len = a[0].u.s.n, i;

	ARGS_UNUSED;
	if (!len)
		return ret_str(x, out, ".", 1);
	while (len && p[len - 1] == '/')
		len--;
	if (!len)
		return ret_str(x, out, "/", 1);
	for (i = len; i > 0 && p[i - 1] != '/'; i--)
		;
	return ret_str(x, out, p + i, len - i);
}

static bool
f_dir(A)
{
	struct buf b = BUF_INIT;
	size_t i = a[0].u.s.n;

	ARGS_UNUSED;
	while (i > 0 && a[0].u.s.s[i - 1] != '/')
		i--;
	path_clean(&b, a[0].u.s.s, i);
	*out = bstr(x, &b);
	return true;
}

static bool
f_ext(A)
{
	size_t i = a[0].u.s.n;

	ARGS_UNUSED;
	while (i > 0 && a[0].u.s.s[i - 1] != '/') {
		if (a[0].u.s.s[i - 1] == '.')
			return ret_str(x, out, a[0].u.s.s + i - 1,
			    a[0].u.s.n - i + 1);
		i--;
	}
	*out = gv_cstr("");
	return true;
}

static bool
f_isabs(A)
{
	ARGS_UNUSED;
	*out = gv_bool(a[0].u.s.n && a[0].u.s.s[0] == '/');
	return true;
}

static bool
f_hello(A)
{
	ARGS_UNUSED;
	*out = gv_cstr("Hello!");
	return true;
}

static bool
f_maxf(A)
{
	double s = to_float(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		s = fmax(s, to_float(&a[i]));
	*out = gv_float(s);
	return true;
}

static bool
f_minf(A)
{
	double s = to_float(&a[0]);
	size_t i;

	for (i = 1; i < n; i++)
		s = fmin(s, to_float(&a[i]));
	*out = gv_float(s);
	return true;
}

static bool
f_floor(A)
{
	ARGS_UNUSED;
	*out = gv_float(floor(to_float(&a[0])));
	return true;
}

static bool
f_ceil(A)
{
	ARGS_UNUSED;
	*out = gv_float(ceil(to_float(&a[0])));
	return true;
}

static bool
f_round(A)
{
	double v = to_float(&a[0]), ro = n > 2 ? a[2].u.f : 0.5, pow10, d;
	int64_t p = a[1].u.i;

	pow10 = pow(10, (double)p);
	d = v * pow10;
	if (d < 0) {
		d = -d;
		d = d - floor(d) >= ro ? ceil(d) : floor(d);
		d = -d;
	} else {
		d = d - floor(d) >= ro ? ceil(d) : floor(d);
	}
	*out = gv_float(d / pow10);
	return true;
}

/* Sprig: conversions. */

static bool
f_int(A)
{
	ARGS_UNUSED;
	*out = gv_int(to_int64(&a[0]));
	return true;
}

static bool
f_int64(A)
{
	ARGS_UNUSED;
	*out = gv_int64(to_int64(&a[0]));
	return true;
}

static bool
f_float64(A)
{
	ARGS_UNUSED;
	*out = gv_float(to_float(&a[0]));
	return true;
}

static bool
f_tostring(A)
{
	ARGS_UNUSED;
	*out = strval(x, &a[0]);
	return true;
}

static bool
f_atoi(A)
{
	struct gv s = a[0];
	char tmp[32], *end;
	long long r;

	ARGS_UNUSED;
	*out = gv_int(0);
	if (!s.u.s.n || s.u.s.n >= sizeof(tmp))
		return true;
	memcpy(tmp, s.u.s.s, s.u.s.n);
	tmp[s.u.s.n] = '\0';
	if (tmp[0] == ' ' || strchr(tmp, '_'))
		return true;
	r = strtoll(tmp, &end, 10);
	if (!*end)
		*out = gv_int(r);
	return true;
}

static bool
f_tostrings(A)
{
	ARGS_UNUSED;
	*out = strslice(x, &a[0]);
	return true;
}

static bool
f_todecimal(A)
{
	struct gv s = strval(x, &a[0]);
	char tmp[32], *end;
	long long r;

	ARGS_UNUSED;
	*out = gv_int64(0);
	if (!s.u.s.n || s.u.s.n >= sizeof(tmp))
		return true;
	memcpy(tmp, s.u.s.s, s.u.s.n);
	tmp[s.u.s.n] = '\0';
	r = strtoll(tmp, &end, 8);
	if (!*end)
		*out = gv_int64(r);
	return true;
}

static bool
f_split(A)
{
	size_t i = 0, k = 0;
	const struct gv *sep = &a[0], *s = &a[1];

	ARGS_UNUSED;
	*out = gv_map_new(AR);
	out->type = "map[string]string";
	for (;;) {
		const char *q = sep->u.s.n ? memmem(s->u.s.s + i, s->u.s.n - i,
		    sep->u.s.s, sep->u.s.n) : NULL;
		size_t end = q ? (size_t)(q - s->u.s.s) : s->u.s.n;
		const char *key = arena_printf(AR, "_%zu", k++);

		if (!sep->u.s.n && i < s->u.s.n) {
			uint32_t cp;
			size_t l = utf8_decode(s->u.s.s + i, s->u.s.n - i, &cp);

			end = i + (l ? l : 1);
		}
		gv_map_set(AR, out->u.m, key, strlen(key), gv_str(s->u.s.s + i,
		    end - i));
		if (!sep->u.s.n) {
			i = end;
			if (i >= s->u.s.n)
				break;
			continue;
		}
		if (!q)
			break;
		i = end + sep->u.s.n;
	}
	return true;
}

static bool
split_list(struct gt_exec *x, const struct gv *sep, const struct gv *s,
    int64_t max, struct gv *out)
{
	size_t i = 0, k = 0, cap = 0;
	struct gv *v = NULL;

	*out = list_of(x, 0, "[]string");
	if (max == 0)
		return true;
	for (;;) {
		const char *q = sep->u.s.n && (max < 0 || (int64_t)k + 1 <
		    max) ? memmem(s->u.s.s + i, s->u.s.n - i, sep->u.s.s,
		    sep->u.s.n) : NULL;
		size_t end = q ? (size_t)(q - s->u.s.s) : s->u.s.n;

		if (!sep->u.s.n && i < s->u.s.n && (max < 0 || (int64_t)k + 1 <
		    max)) {
			uint32_t cp;
			size_t l = utf8_decode(s->u.s.s + i, s->u.s.n - i, &cp);

			end = i + (l ? l : 1);
		}
		if (k == cap) {
			v = arena_grow(AR, v, cap, cap ? cap * 2 : 8,
			    sizeof(*v));
			cap = cap ? cap * 2 : 8;
		}
		v[k++] = gv_str(s->u.s.s + i, end - i);
		if (!sep->u.s.n) {
			i = end;
			if (i >= s->u.s.n)
				break;
			continue;
		}
		if (!q)
			break;
		i = end + sep->u.s.n;
	}
	out->u.l->v = v;
	out->u.l->n = k;
	return true;
}

static bool
f_splitlist(A)
{
	ARGS_UNUSED;
	return split_list(x, &a[0], &a[1], -1, out);
}

static bool
f_splitn(A)
{
	struct gv l;
	size_t i;

	ARGS_UNUSED;
	if (!split_list(x, &a[0], &a[2], a[1].u.i, &l))
		return false;
	*out = gv_map_new(AR);
	out->type = "map[string]string";
	for (i = 0; i < l.u.l->n; i++) {
		const char *key = arena_printf(AR, "_%zu", i);

		gv_map_set(AR, out->u.m, key, strlen(key), l.u.l->v[i]);
	}
	return true;
}

static bool
f_join(A)
{
	struct gv l = strslice(x, &a[1]);
	struct buf b = BUF_INIT;
	size_t i;

	ARGS_UNUSED;
	for (i = 0; i < l.u.l->n; i++) {
		if (i)
			buf_put(&b, a[0].u.s.s, a[0].u.s.n);
		buf_put(&b, l.u.l->v[i].u.s.s, l.u.l->v[i].u.s.n);
	}
	*out = bstr(x, &b);
	return true;
}

/* Sprig: types. */

static bool
f_typeof(A)
{
	ARGS_UNUSED;
	*out = gv_cstr(a[0].kind == GV_NIL ? "<nil>" : gv_type(&a[0]));
	return true;
}

static bool
f_kindof(A)
{
	ARGS_UNUSED;
	*out = gv_cstr(gv_kindname(&a[0]));
	return true;
}

static bool
f_typeis(A)
{
	const char *t = a[1].kind == GV_NIL ? "<nil>" : gv_type(&a[1]);

	ARGS_UNUSED;
	*out = gv_bool(strlen(t) == a[0].u.s.n && memcmp(t, a[0].u.s.s,
	    a[0].u.s.n) == 0);
	return true;
}

static bool
f_typeislike(A)
{
	const char *t = a[1].kind == GV_NIL ? "<nil>" : gv_type(&a[1]);
	const char *like = arena_printf(AR, "*%.*s", (int)a[0].u.s.n,
	    a[0].u.s.s);

	ARGS_UNUSED;
	*out = gv_bool((strlen(t) == a[0].u.s.n && memcmp(t, a[0].u.s.s,
	    a[0].u.s.n) == 0) || strcmp(like, t) == 0);
	return true;
}

static bool
f_kindis(A)
{
	const char *k = gv_kindname(&a[1]);

	ARGS_UNUSED;
	*out = gv_bool(strlen(k) == a[0].u.s.n && memcmp(k, a[0].u.s.s,
	    a[0].u.s.n) == 0);
	return true;
}

static bool
f_deepequal(A)
{
	ARGS_UNUSED;
	*out = gv_bool(gv_deep_equal(&a[0], &a[1]));
	return true;
}

static bool
f_deepcopy(A)
{
	ARGS_UNUSED;
	*out = gv_deep_copy(AR, &a[0]);
	return true;
}

/* Sprig: JSON, as Go's encoding/json writes and reads it. */

static bool
json_float(struct buf *b, double f)
{
	double abs = fabs(f);
	struct buf t = BUF_INIT;
	size_t i;

	if (isnan(f) || isinf(f))
		return false;
	if (abs != 0 && (abs < 1e-6 || abs >= 1e21)) {
		gv_float_str(&t, f, 'e', -1);
		/* e-07 -> e-7 */
		for (i = 0; i + 2 < t.len; i++)
			if (t.data[i] == 'e' && t.data[i + 2] == '0' &&
			    i + 3 < t.len) {
				memmove(t.data + i + 2, t.data + i + 3,
				    t.len - i - 3);
				t.len--;
				break;
			}
		buf_put(b, t.data, t.len);
	} else {
		gv_float_str(&t, f, 'f', -1);
		buf_put(b, t.data, t.len);
	}
	buf_free(&t);
	return true;
}

static void
json_str(struct buf *b, const char *s, size_t n, bool html)
{
	size_t i = 0;

	buf_putc(b, '"');
	while (i < n) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);
		unsigned char c = (unsigned char)s[i];

		if (!k) {
			buf_puts(b, "\\ufffd");
			i++;
			continue;
		}
		if (c == '"' || c == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, c);
		} else if (c == '\n') {
			buf_puts(b, "\\n");
		} else if (c == '\r') {
			buf_puts(b, "\\r");
		} else if (c == '\t') {
			buf_puts(b, "\\t");
		} else if (c < 0x20 || (html && (c == '<' || c == '>' ||
		    c == '&'))) {
			buf_printf(b, "\\u00%02x", c);
		} else if (cp == 0x2028 || cp == 0x2029) {
			buf_printf(b, "\\u%04x", cp);
		} else {
			buf_put(b, s + i, k);
		}
		i += k;
	}
	buf_putc(b, '"');
}

static void
json_nl(struct buf *b, int indent, int level)
{
	int i;

	if (indent < 0)
		return;
	buf_putc(b, '\n');
	for (i = 0; i < indent * level; i++)
		buf_putc(b, ' ');
}

static bool
json_gv(struct buf *b, const struct gv *v, int indent, int level, bool html)
{
	size_t i;

	switch (v->kind) {
	case GV_INVALID:
	case GV_NIL:
		buf_puts(b, "null");
		return true;
	case GV_BOOL:
		buf_puts(b, v->u.b ? "true" : "false");
		return true;
	case GV_INT:
		buf_printf(b, "%lld", (long long)v->u.i);
		return true;
	case GV_FLOAT:
		return json_float(b, v->u.f);
	case GV_STRING:
		json_str(b, v->u.s.s, v->u.s.n, html);
		return true;
	case GV_VERSION: {
		struct buf t = BUF_INIT;

		gv_print(&t, v);
		json_str(b, t.data, t.len, html);
		buf_free(&t);
		return true;
	}
	case GV_LIST:
		buf_putc(b, '[');
		for (i = 0; i < v->u.l->n; i++) {
			if (i)
				buf_putc(b, ',');
			json_nl(b, indent, level + 1);
			if (!json_gv(b, &v->u.l->v[i], indent, level + 1,
			    html))
				return false;
		}
		if (v->u.l->n)
			json_nl(b, indent, level);
		buf_putc(b, ']');
		return true;
	case GV_MAP:
		buf_putc(b, '{');
		for (i = 0; i < v->u.m->n; i++) {
			if (i)
				buf_putc(b, ',');
			json_nl(b, indent, level + 1);
			json_str(b, v->u.m->items[i].k, v->u.m->items[i].kn,
			    html);
			buf_puts(b, indent >= 0 ? ": " : ":");
			if (!json_gv(b, &v->u.m->items[i].v, indent,
			    level + 1, html))
				return false;
		}
		if (v->u.m->n)
			json_nl(b, indent, level);
		buf_putc(b, '}');
		return true;
	}
	return false;
}

static bool
to_json(struct gt_exec *x, const struct gv *v, int indent, bool html,
    bool must, struct gv *out)
{
	struct buf b = BUF_INIT;

	if (!json_gv(&b, v, indent, 0, html)) {
		buf_free(&b);
		if (must)
			return gt_fail(x, "json: unsupported value: %s",
			    isnan(v->u.f) ? "NaN" : v->u.f > 0 ? "+Inf" :
			    "-Inf");
		*out = gv_cstr("");
		return true;
	}
	*out = bstr(x, &b);
	return true;
}

static bool f_tojson(A) { ARGS_UNUSED; return to_json(x, &a[0], -1, true, false, out); }
static bool f_toprettyjson(A) { ARGS_UNUSED; return to_json(x, &a[0], 2, true, false, out); }
static bool f_torawjson(A) { ARGS_UNUSED; return to_json(x, &a[0], -1, false, false, out); }
static bool f_musttojson(A) { ARGS_UNUSED; return to_json(x, &a[0], -1, true, true, out); }
static bool f_musttoprettyjson(A) { ARGS_UNUSED; return to_json(x, &a[0], 2, true, true, out); }
static bool f_musttorawjson(A) { ARGS_UNUSED; return to_json(x, &a[0], -1, false, true, out); }

struct jp {
	struct gt_exec *x;
	const char *s;
	size_t n, i;
	int depth;
	const char *err;
};

static void
jp_ws(struct jp *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
	    p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool jp_value(struct jp *p, struct gv *out);

/* encoding/json's quoteChar. */
static const char *
jp_char(struct jp *p)
{
	unsigned char c = p->i < p->n ? (unsigned char)p->s[p->i] : 0;
	struct buf b = BUF_INIT;
	const char *r;

	if (p->i >= p->n)
		return NULL;
	if (c == '\'')
		return "'\\''";
	if (c == '"')
		return "'\"'";
	gv_quote(&b, (const char *)&c, 1);
	r = arena_printf(&gt_set(p->x)->run->arena, "'%.*s'",
	    (int)b.len - 2, b.data + 1);
	buf_free(&b);
	return r;
}

/* "invalid character 'x' what", or the end of input. */
static bool
jp_err(struct jp *p, const char *what)
{
	const char *c = jp_char(p);

	if (!p->err)
		p->err = c ? arena_printf(&gt_set(p->x)->run->arena,
		    "invalid character %s %s", c, what) :
		    "unexpected end of JSON input";
	return false;
}

static bool
jp_string(struct jp *p, struct gv *out)
{
	struct buf b = BUF_INIT;

	p->i++;
	while (p->i < p->n && p->s[p->i] != '"') {
		unsigned char c = (unsigned char)p->s[p->i];

		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			buf_putc(&b, c);
			p->i++;
			continue;
		}
		if (++p->i >= p->n)
			goto bad;
		switch (p->s[p->i]) {
		case '"': buf_putc(&b, '"'); break;
		case '\\': buf_putc(&b, '\\'); break;
		case '/': buf_putc(&b, '/'); break;
		case 'b': buf_putc(&b, '\b'); break;
		case 'f': buf_putc(&b, '\f'); break;
		case 'n': buf_putc(&b, '\n'); break;
		case 'r': buf_putc(&b, '\r'); break;
		case 't': buf_putc(&b, '\t'); break;
		case 'u': {
			uint32_t cp = 0;
			int k;
			char enc[4];

			for (k = 1; k <= 4; k++) {
				int h = p->i + (size_t)k < p->n ?
				    hex_value(p->s[p->i + k]) : -1;

				if (h < 0)
					goto bad;
				cp = cp * 16 + (uint32_t)h;
			}
			p->i += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && p->i + 6 < p->n &&
			    p->s[p->i + 1] == '\\' && p->s[p->i + 2] == 'u') {
				uint32_t lo = 0;

				for (k = 3; k <= 6; k++) {
					int h = hex_value(p->s[p->i + k]);

					if (h < 0)
						goto bad;
					lo = lo * 16 + (uint32_t)h;
				}
				if (lo >= 0xdc00 && lo < 0xe000) {
					cp = 0x10000 + ((cp - 0xd800) << 10) +
					    (lo - 0xdc00);
					p->i += 6;
				}
			}
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			buf_put(&b, enc, utf8_encode(cp, enc));
			break;
		}
		default:
			goto bad;
		}
		p->i++;
	}
	if (p->i >= p->n)
		goto bad;
	p->i++;
	*out = bstr(p->x, &b);
	return true;
bad:
	buf_free(&b);
	return jp_err(p, "in string literal");
}

static bool
jp_value(struct jp *p, struct gv *out)
{
	struct gt_exec *x = p->x;

	jp_ws(p);
	if (p->i >= p->n) {
		p->err = "unexpected end of JSON input";
		return false;
	}
	if (++p->depth > 10000) {
		p->err = "exceeded max depth";
		return false;
	}
	switch (p->s[p->i]) {
	case '{':
		*out = gv_map_new(AR);
		p->i++;
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			break;
		}
		for (;;) {
			struct gv k, v;

			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != '"')
				return jp_err(p,
				    "looking for beginning of object key string");
			if (!jp_string(p, &k))
				return false;
			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return jp_err(p, "after object key");
			p->i++;
			if (!jp_value(p, &v))
				return false;
			gv_map_set(AR, out->u.m, k.u.s.s, k.u.s.n, v);
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == '}') {
				p->i++;
				break;
			}
			return jp_err(p, "after object key:value pair");
		}
		break;
	case '[': {
		struct gv *v = NULL;
		size_t k = 0, cap = 0;

		p->i++;
		jp_ws(p);
		*out = gv_list_new(AR, 0);
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			break;
		}
		for (;;) {
			if (k == cap) {
				v = arena_grow(AR, v, cap, cap ? cap * 2 : 8,
				    sizeof(*v));
				cap = cap ? cap * 2 : 8;
			}
			if (!jp_value(p, &v[k++]))
				return false;
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == ']') {
				p->i++;
				break;
			}
			return jp_err(p, "after array element");
		}
		out->u.l->v = v;
		out->u.l->n = k;
		break;
	}
	case '"':
		if (!jp_string(p, out))
			return false;
		break;
	default:
		if (p->n - p->i >= 4 && memcmp(p->s + p->i, "true", 4) == 0) {
			*out = gv_bool(true);
			p->i += 4;
		} else if (p->n - p->i >= 5 && memcmp(p->s + p->i, "false",
		    5) == 0) {
			*out = gv_bool(false);
			p->i += 5;
		} else if (p->n - p->i >= 4 && memcmp(p->s + p->i, "null",
		    4) == 0) {
			*out = gv_nil();
			p->i += 4;
		} else if (p->s[p->i] == '-' || (p->s[p->i] >= '0' &&
		    p->s[p->i] <= '9')) {
			size_t st = p->i;
			char tmp[64];

			while (p->i < p->n && strchr("+-0123456789.eE",
			    p->s[p->i]) && p->s[p->i])
				p->i++;
			if (p->i - st >= sizeof(tmp)) {
				p->err = "number too long";
				return false;
			}
			memcpy(tmp, p->s + st, p->i - st);
			tmp[p->i - st] = '\0';
			*out = gv_float(strtod(tmp, NULL));
		} else {
			return jp_err(p, "looking for beginning of value");
		}
	}
	p->depth--;
	return true;
}

static bool
from_json(struct gt_exec *x, const struct gv *s, bool must, struct gv *out)
{
	struct jp p = { x, s->u.s.s, s->u.s.n, 0, 0, NULL };

	if (jp_value(&p, out)) {
		jp_ws(&p);
		if (p.i == p.n)
			return true;
		jp_err(&p, "after top-level value");
	}
	if (must)
		return gt_fail(x, "%s", p.err);
	*out = gv_nil();
	return true;
}

static bool f_fromjson(A) { ARGS_UNUSED; return from_json(x, &a[0], false, out); }
static bool f_mustfromjson(A) { ARGS_UNUSED; return from_json(x, &a[0], true, out); }

/* Sprig: encodings and hashes. */

static bool
f_b64enc(A)
{
	struct buf b = BUF_INIT;

	ARGS_UNUSED;
	base64_encode(&b, a[0].u.s.s, a[0].u.s.n);
	*out = bstr(x, &b);
	return true;
}

static bool
f_b64dec(A)
{
	struct buf b = BUF_INIT;
	size_t where;

	ARGS_UNUSED;
	where = a[0].u.s.n - a[0].u.s.n % 4;
	if (a[0].u.s.n % 4 || base64_decode(&b, a[0].u.s.s, a[0].u.s.n,
	    &where) != BASE64_OK) {
		buf_free(&b);
		*out = gv_cstr(arena_printf(AR,
		    "illegal base64 data at input byte %zu", where));
		return true;
	}
	*out = bstr(x, &b);
	return true;
}

static const char b32[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

static bool
f_b32enc(A)
{
	struct buf b = BUF_INIT;
	const unsigned char *s = (const unsigned char *)a[0].u.s.s;
	size_t i, len = a[0].u.s.n;

	ARGS_UNUSED;
	for (i = 0; i < len; i += 5) {
		uint64_t v = 0;
		size_t k, m = len - i < 5 ? len - i : 5, chars;

		for (k = 0; k < 5; k++)
			v = v << 8 | (k < m ? s[i + k] : 0);
		chars = (m * 8 + 4) / 5;
		for (k = 0; k < 8; k++)
			buf_putc(&b, k < chars ? b32[(v >> (35 - 5 * k)) &
			    31] : '=');
	}
	*out = bstr(x, &b);
	return true;
}

static bool
f_b32dec(A)
{
	struct buf b = BUF_INIT;
	size_t i, len = a[0].u.s.n;
	uint64_t v = 0;
	int bits = 0;

	ARGS_UNUSED;
	for (i = 0; i < len; i++) {
		const char *p = a[0].u.s.s[i] ? strchr(b32, a[0].u.s.s[i]) :
		    NULL;

		if (a[0].u.s.s[i] == '=')
			break;
		if (!p) {
			buf_free(&b);
			*out = gv_cstr(arena_printf(AR,
			    "illegal base32 data at input byte %zu", i));
			return true;
		}
		v = v << 5 | (uint64_t)(p - b32);
		bits += 5;
		if (bits >= 8) {
			buf_putc(&b, (int)((v >> (bits - 8)) & 0xff));
			bits -= 8;
		}
	}
	*out = bstr(x, &b);
	return true;
}

#define ROL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define ROR(v, n) (((v) >> (n)) | ((v) << (32 - (n))))

static void
sha1(const unsigned char *s, size_t n, unsigned char out[20])
{
	uint32_t h[5] = { 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476,
	    0xC3D2E1F0 };
	size_t total = ((n + 8) / 64 + 1) * 64, i, j;
	unsigned char blk[64];

	for (i = 0; i < total; i += 64) {
		uint32_t w[80], a, b, c, d, e, f, k, t;

		for (j = 0; j < 64; j++) {
			size_t p = i + j;

			blk[j] = p < n ? s[p] : p == n ? 0x80 : 0;
			if (p >= total - 8)
				blk[j] = (unsigned char)(((uint64_t)n * 8) >>
				    (8 * (total - 1 - p)));
		}
		for (j = 0; j < 16; j++)
			w[j] = (uint32_t)blk[4 * j] << 24 |
			    (uint32_t)blk[4 * j + 1] << 16 |
			    (uint32_t)blk[4 * j + 2] << 8 | blk[4 * j + 3];
		for (j = 16; j < 80; j++)
			w[j] = ROL(w[j - 3] ^ w[j - 8] ^ w[j - 14] ^ w[j - 16],
			    1);
		a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
		for (j = 0; j < 80; j++) {
			if (j < 20)
				f = (b & c) | (~b & d), k = 0x5A827999;
			else if (j < 40)
				f = b ^ c ^ d, k = 0x6ED9EBA1;
			else if (j < 60)
				f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
			else
				f = b ^ c ^ d, k = 0xCA62C1D6;
			t = ROL(a, 5) + f + e + k + w[j];
			e = d, d = c, c = ROL(b, 30), b = a, a = t;
		}
		h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
	}
	for (i = 0; i < 20; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static void
sha256(const unsigned char *s, size_t n, unsigned char out[32])
{
	static const uint32_t K[64] = {
		0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
		0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
		0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
		0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
		0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
		0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
		0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
		0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
		0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
		0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
		0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
		0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
		0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
	};
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	size_t total = ((n + 8) / 64 + 1) * 64, i, j;
	unsigned char blk[64];

	for (i = 0; i < total; i += 64) {
		uint32_t w[64], v[8], t1, t2;

		for (j = 0; j < 64; j++) {
			size_t p = i + j;

			blk[j] = p < n ? s[p] : p == n ? 0x80 : 0;
			if (p >= total - 8)
				blk[j] = (unsigned char)(((uint64_t)n * 8) >>
				    (8 * (total - 1 - p)));
		}
		for (j = 0; j < 16; j++)
			w[j] = (uint32_t)blk[4 * j] << 24 |
			    (uint32_t)blk[4 * j + 1] << 16 |
			    (uint32_t)blk[4 * j + 2] << 8 | blk[4 * j + 3];
		for (j = 16; j < 64; j++)
			w[j] = w[j - 16] + (ROR(w[j - 15], 7) ^
			    ROR(w[j - 15], 18) ^ (w[j - 15] >> 3)) + w[j - 7] +
			    (ROR(w[j - 2], 17) ^ ROR(w[j - 2], 19) ^
			    (w[j - 2] >> 10));
		memcpy(v, h, sizeof(v));
		for (j = 0; j < 64; j++) {
			t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^
			    ROR(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
			    K[j] + w[j];
			t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
			    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
			memmove(v + 1, v, 7 * sizeof(*v));
			v[4] += t1;
			v[0] = t1 + t2;
		}
		for (j = 0; j < 8; j++)
			h[j] += v[j];
	}
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

static bool
hex_out(struct gt_exec *x, const unsigned char *d, size_t n, struct gv *out)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		buf_printf(&b, "%02x", d[i]);
	*out = bstr(x, &b);
	return true;
}

static bool
f_sha1sum(A)
{
	unsigned char d[20];

	ARGS_UNUSED;
	sha1((const unsigned char *)a[0].u.s.s, a[0].u.s.n, d);
	return hex_out(x, d, 20, out);
}

static bool
f_sha256sum(A)
{
	unsigned char d[32];

	ARGS_UNUSED;
	sha256((const unsigned char *)a[0].u.s.s, a[0].u.s.n, d);
	return hex_out(x, d, 32, out);
}

static bool
f_adler32sum(A)
{
	uint32_t s1 = 1, s2 = 0;
	size_t i;

	ARGS_UNUSED;
	for (i = 0; i < a[0].u.s.n; i++) {
		s1 = (s1 + (unsigned char)a[0].u.s.s[i]) % 65521;
		s2 = (s2 + s1) % 65521;
	}
	*out = gv_cstr(arena_printf(AR, "%u", s2 << 16 | s1));
	return true;
}

/* Sprig: regular expressions (RE2 syntax, PCRE2 engine). */

static pcre2_code *
regex(struct gt_exec *x, const struct gv *pat)
{
	struct gotmpl *set = gt_set(x);
	pcre2_code *re = map_get(&set->regex, pat->u.s.s, pat->u.s.n);
	int err;
	PCRE2_SIZE off;

	if (re)
		return re;
	re = pcre2_compile((PCRE2_SPTR)pat->u.s.s, pat->u.s.n, PCRE2_UTF |
	    PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C | PCRE2_NO_UTF_CHECK *
	    0, &err, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		bool must = strncmp(gt_callname(x), "must", 4) == 0;

		if (strcmp(gt_callname(x), "regexMatch") == 0)
			return NULL;    /* Sprig's regexMatch: false */
		pcre2_get_error_message(err, msg, sizeof(msg));
		gt_fail(x, "%s%.*s%serror parsing regexp: %s at offset %zu",
		    must ? "" : "regexp: Compile(`", must ? 0 :
		    (int)pat->u.s.n, pat->u.s.s, must ? "" : "`): ",
		    (const char *)msg, (size_t)off);
		return NULL;
	}
	map_put(&set->regex, arena_strndup(AR, pat->u.s.s, pat->u.s.n),
	    pat->u.s.n, re);
	return re;
}

struct rematch {
	pcre2_match_data *md;
	pcre2_match_context *mc;
};

/* One match at or after pos: 1, none: 0, error (reported): -1. */
static int
re_exec(struct gt_exec *x, pcre2_code *re, const struct gv *s, size_t pos,
    struct rematch *m)
{
	int rc = pcre2_match(re, (PCRE2_SPTR)s->u.s.s, s->u.s.n, pos, 0,
	    m->md, m->mc);

	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT)
		gt_fail(x, "regular expression takes too long (PCRE2 match limit)");
	else if (rc == PCRE2_ERROR_UTF8_ERR1 || rc <= PCRE2_ERROR_UTF8_ERR1)
		gt_fail(x, "text is not valid UTF-8");
	else
		gt_fail(x, "regular expression match failed (PCRE2 error %d)",
		    rc);
	return -1;
}

static bool
re_open(struct gt_exec *x, const struct gv *pat, pcre2_code **re,
    struct rematch *m)
{
	if (!(*re = regex(x, pat)))
		return false;
	m->md = pcre2_match_data_create_from_pattern(*re, NULL);
	m->mc = pcre2_match_context_create(NULL);
	if (!m->md || !m->mc)
		die("out of memory");
	pcre2_set_match_limit(m->mc, RE_MATCH_LIMIT);
	pcre2_set_depth_limit(m->mc, RE_DEPTH_LIMIT);
	return true;
}

static void
re_close(struct rematch *m)
{
	pcre2_match_data_free(m->md);
	pcre2_match_context_free(m->mc);
}

static size_t
rune_width(const struct gv *s, size_t pos)
{
	uint32_t cp;
	size_t k;

	if (pos >= s->u.s.n)
		return 1;
	k = utf8_decode(s->u.s.s + pos, s->u.s.n - pos, &cp);
	return k ? k : 1;
}

/* Go's allMatches: every match, up to max (< 0: all), as offset pairs
 * in *v (2 per match); false on error. */
static bool
all_matches(struct gt_exec *x, pcre2_code *re, struct rematch *m,
    const struct gv *s, int64_t max, size_t **v, size_t *nv)
{
	size_t pos = 0, cap = 0;
	long prev = -1;
	int64_t count = 0;

	*v = NULL;
	*nv = 0;
	while ((max < 0 || count < max) && pos <= s->u.s.n) {
		int rc = re_exec(x, re, s, pos, m);
		PCRE2_SIZE *ov;
		bool accept = true;

		if (rc < 0)
			return false;
		if (rc == 0)
			break;
		ov = pcre2_get_ovector_pointer(m->md);
		if (ov[1] == pos) {
			if ((long)ov[0] == prev)
				accept = false;
			pos += rune_width(s, pos);
		} else {
			pos = ov[1];
		}
		prev = (long)ov[1];
		if (accept) {
			if (*nv + 2 > cap) {
				*v = arena_grow(AR, *v, cap, cap ? cap * 2 : 16,
				    sizeof(**v));
				cap = cap ? cap * 2 : 16;
			}
			(*v)[(*nv)++] = ov[0];
			(*v)[(*nv)++] = ov[1];
			count++;
		}
	}
	return true;
}

static bool
f_regexmatch(A)
{
	pcre2_code *re;
	struct rematch m;
	int rc;

	ARGS_UNUSED;
	if (!re_open(x, &a[0], &re, &m)) {
		*out = gv_bool(false);
		return strcmp(gt_callname(x), "regexMatch") == 0;
	}
	rc = re_exec(x, re, &a[1], 0, &m);
	re_close(&m);
	if (rc < 0)
		return false;
	*out = gv_bool(rc == 1);
	return true;
}

static bool
f_regexfind(A)
{
	pcre2_code *re;
	struct rematch m;
	int rc;

	ARGS_UNUSED;
	if (!re_open(x, &a[0], &re, &m))
		return false;
	rc = re_exec(x, re, &a[1], 0, &m);
	if (rc == 1) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m.md);

		*out = gv_str(a[1].u.s.s + ov[0], ov[1] - ov[0]);
	} else {
		*out = gv_cstr("");
	}
	re_close(&m);
	return rc >= 0;
}

static bool
f_regexfindall(A)
{
	pcre2_code *re;
	struct rematch m;
	size_t *v, nv, i;
	bool ok;

	ARGS_UNUSED;
	if (!re_open(x, &a[0], &re, &m))
		return false;
	ok = all_matches(x, re, &m, &a[1], a[2].u.i, &v, &nv);
	re_close(&m);
	if (!ok)
		return false;
	*out = list_of(x, nv / 2, "[]string");
	for (i = 0; i < nv; i += 2)
		out->u.l->v[i / 2] = gv_str(a[1].u.s.s + v[i], v[i + 1] - v[i]);
	return true;
}

static bool
f_regexsplit(A)
{
	pcre2_code *re;
	struct rematch m;
	size_t *v, nv, i, beg = 0, end = 0, k = 0;
	int64_t max = a[2].u.i;
	bool ok;

	ARGS_UNUSED;
	*out = list_of(x, 0, "[]string");
	if (max == 0)
		return true;
	if (a[0].u.s.n && !a[1].u.s.n) {
		*out = list_of(x, 1, "[]string");
		out->u.l->v[0] = gv_cstr("");
		return true;
	}
	if (!re_open(x, &a[0], &re, &m))
		return false;
	ok = all_matches(x, re, &m, &a[1], max, &v, &nv);
	re_close(&m);
	if (!ok)
		return false;
	*out = list_of(x, nv / 2 + 1, "[]string");
	for (i = 0; i < nv; i += 2) {
		if (max > 0 && (int64_t)k == max - 1)
			break;
		end = v[i];
		if (v[i + 1] != 0)
			out->u.l->v[k++] = gv_str(a[1].u.s.s + beg, end - beg);
		beg = v[i + 1];
	}
	if (end != a[1].u.s.n)
		out->u.l->v[k++] = gv_str(a[1].u.s.s + beg, a[1].u.s.n - beg);
	out->u.l->n = k;
	return true;
}

/* Go's Regexp.Expand: $1, ${1}, $name, ${name}, $$. */
static void
expand(struct buf *b, pcre2_code *re, PCRE2_SIZE *ov, uint32_t nov,
    const struct gv *s, const struct gv *tmpl)
{
	const char *t = tmpl->u.s.s;
	size_t n = tmpl->u.s.n, i = 0;

	while (i < n) {
		size_t st, len;
		bool brace = false;
		char name[64];
		int num = -1;

		if (t[i] != '$' || i + 1 >= n) {
			buf_putc(b, t[i++]);
			continue;
		}
		if (t[i + 1] == '$') {
			buf_putc(b, '$');
			i += 2;
			continue;
		}
		st = i + 1;
		if (t[st] == '{') {
			brace = true;
			st++;
		}
		len = 0;
		while (st + len < n && (t[st + len] == '_' ||
		    (t[st + len] >= 'a' && t[st + len] <= 'z') ||
		    (t[st + len] >= 'A' && t[st + len] <= 'Z') ||
		    (t[st + len] >= '0' && t[st + len] <= '9')))
			len++;
		if (!len || len >= sizeof(name) || (brace && (st + len >= n ||
		    t[st + len] != '}'))) {
			buf_putc(b, t[i++]);    /* malformed: kept as is */
			continue;
		}
		memcpy(name, t + st, len);
		name[len] = '\0';
		i = st + len + (brace ? 1 : 0);
		if (strspn(name, "0123456789") == len) {
			num = len > 9 ? -1 : atoi(name);
		} else {
			num = pcre2_substring_number_from_name(re,
			    (PCRE2_SPTR)name);
		}
		if (num >= 0 && (uint32_t)num < nov &&
		    ov[2 * num] != PCRE2_UNSET)
			buf_put(b, s->u.s.s + ov[2 * num], ov[2 * num + 1] -
			    ov[2 * num]);
	}
}

static bool
replace_all(struct gt_exec *x, struct gv *a, struct gv *out, bool literal)
{
	pcre2_code *re;
	struct rematch m;
	const struct gv *s = &a[1], *repl = &a[2];
	struct buf b = BUF_INIT;
	size_t last = 0, pos = 0;

	if (!re_open(x, &a[0], &re, &m))
		return false;
	while (pos <= s->u.s.n) {
		int rc = re_exec(x, re, s, pos, &m);
		PCRE2_SIZE *ov;
		size_t w;

		if (rc < 0) {
			re_close(&m);
			buf_free(&b);
			return false;
		}
		if (rc == 0)
			break;
		ov = pcre2_get_ovector_pointer(m.md);
		buf_put(&b, s->u.s.s + last, ov[0] - last);
		if (ov[1] > last || ov[0] == 0) {
			if (literal)
				buf_put(&b, repl->u.s.s, repl->u.s.n);
			else
				expand(&b, re, ov,
				    pcre2_get_ovector_count(m.md), s, repl);
		}
		last = ov[1];
		w = rune_width(s, pos);
		if (pos + w > ov[1])
			pos += w;
		else if (pos + 1 > ov[1])
			pos++;
		else
			pos = ov[1];
		if (b.len > ((size_t)64 << 20)) {
			re_close(&m);
			buf_free(&b);
			return gt_fail(x, "result longer than 64 MiB");
		}
	}
	re_close(&m);
	buf_put(&b, s->u.s.s + last, s->u.s.n - last);
	*out = bstr(x, &b);
	return true;
}

static bool f_regexreplaceall(A) { ARGS_UNUSED; return replace_all(x, a, out, false); }
static bool f_regexreplaceallliteral(A) { ARGS_UNUSED; return replace_all(x, a, out, true); }

static bool
f_regexquotemeta(A)
{
	struct buf b = BUF_INIT;
	size_t i;

	ARGS_UNUSED;
	for (i = 0; i < a[0].u.s.n; i++) {
		if (strchr("\\.+*?()|[]{}^$", a[0].u.s.s[i]) && a[0].u.s.s[i])
			buf_putc(&b, '\\');
		buf_putc(&b, a[0].u.s.s[i]);
	}
	*out = bstr(x, &b);
	return true;
}

/* Sprig: semver (Masterminds semver v3). */

static bool
num_part(const char **p, uint64_t *v)
{
	const char *s = *p;

	if (!(*s >= '0' && *s <= '9'))
		return false;
	*v = 0;
	while (*s >= '0' && *s <= '9') {
		if (*v > UINT64_MAX / 10 - 10)
			return false;
		*v = *v * 10 + (uint64_t)(*s++ - '0');
	}
	*p = s;
	return true;
}

static bool
ident_ok(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' &&
		    s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    s[i] == '-' || (s[i] == '.' && i && s[i - 1] != '.' &&
		    i + 1 < n)))
			return false;
	return true;
}

/* NewVersion: v?1(.2(.3)?)?(-pre)?(+meta)?; *wild gets the parts
 * written as x, X or * (for constraints; NULL: none allowed). */
static struct gv_version *
parse_version(struct gt_exec *x, const char *s, size_t n, int *wild)
{
	struct gv_version *v = arena_alloc(AR, sizeof(*v));
	char *t = arena_strndup(AR, s, n), *q;
	const char *p = t;
	uint64_t *parts[3] = { &v->major, &v->minor, &v->patch };
	int i;

	v->original = t;
	v->pre = v->meta = "";
	if (wild)
		*wild = 3;
	if (*p == 'v' || *p == 'V')
		p++;
	for (i = 0; i < 3; i++) {
		if (i > 0) {
			if (*p != '.')
				break;
			p++;
		}
		if (wild && (*p == 'x' || *p == 'X' || *p == '*')) {
			if (*wild == 3)
				*wild = i;
			p++;
			continue;
		}
		if (!num_part(&p, parts[i]))
			return NULL;
	}
	if (wild && i < 3 && *wild == 3)
		*wild = i;
	if (*p == '-') {
		q = strchr(p + 1, '+');
		v->pre = arena_strndup(AR, p + 1, q ? (size_t)(q - p - 1) :
		    strlen(p + 1));
		if (!ident_ok(v->pre, strlen(v->pre)))
			return NULL;
		p = q ? q : p + strlen(p);
	}
	if (*p == '+') {
		v->meta = p + 1;
		if (!ident_ok(v->meta, strlen(v->meta)))
			return NULL;
		p += strlen(p);
	}
	return *p ? NULL : v;
}

static int
cmp_u(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int
cmp_pre(const char *a, const char *b)
{
	if (!*a || !*b)
		return !*a && !*b ? 0 : !*a ? 1 : -1;
	while (*a || *b) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		bool na = la && strspn(a, "0123456789") == la;
		bool nb = lb && strspn(b, "0123456789") == lb;
		int c;

		if (!*a)
			return -1;
		if (!*b)
			return 1;
		if (na && nb) {
			c = cmp_u(strtoull(a, NULL, 10), strtoull(b, NULL, 10));
		} else if (na || nb) {
			c = na ? -1 : 1;
		} else {
			c = memcmp(a, b, la < lb ? la : lb);
			if (!c)
				c = la < lb ? -1 : la > lb;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += la + (a[la] == '.');
		b += lb + (b[lb] == '.');
	}
	return 0;
}

static int
vcmp(const struct gv_version *a, const struct gv_version *b)
{
	int c = cmp_u(a->major, b->major);

	if (!c)
		c = cmp_u(a->minor, b->minor);
	if (!c)
		c = cmp_u(a->patch, b->patch);
	if (!c)
		c = cmp_pre(a->pre, b->pre);
	return c;
}

static bool
f_semver(A)
{
	struct gv_version *v = parse_version(x, a[0].u.s.s, a[0].u.s.n,
	    NULL);

	ARGS_UNUSED;
	if (!v)
		return gt_fail(x, "Invalid Semantic Version");
	out->kind = GV_VERSION;
	out->u.ver = v;
	return true;
}

/* One constraint term: op and version (with wildcards) against v. */
static int
check_term(struct gt_exec *x, const char *t, size_t n,
    const struct gv_version *v)
{
	char op[3] = "";
	size_t k = 0;
	struct gv_version *c, lo, hi;
	int wild, cmp;

	while (k < n && k < 2 && strchr("=!<>~^", t[k]) && t[k])
		op[k] = t[k], k++;
	op[k] = '\0';
	while (k < n && (t[k] == ' ' || t[k] == '\t'))
		k++;
	if (!(c = parse_version(x, t + k, n - k, &wild)))
		return -1;
	if (*v->pre && !*c->pre)
		return 0;       /* prereleases only match prerelease
				 * constraints */
	lo = *c;
	hi = *c;
	hi.pre = "";
	if (wild == 0)
		hi.major = UINT64_MAX;
	else if (wild == 1)
		hi.major++, hi.minor = 0, hi.patch = 0;
	else if (wild == 2)
		hi.minor++, hi.patch = 0;
	if (strcmp(op, "~") == 0 || strcmp(op, "~>") == 0) {
		if (wild == 0)
			return 1;
		hi = *c;
		hi.pre = "";
		if (wild == 1)
			hi.major++, hi.minor = 0, hi.patch = 0;
		else
			hi.minor++, hi.patch = 0;
		return vcmp(v, &lo) >= 0 && vcmp(v, &hi) < 0;
	}
	if (strcmp(op, "^") == 0) {
		if (wild == 0)
			return 1;
		hi = *c;
		hi.pre = "";
		if (c->major > 0 || wild == 1)
			hi.major++, hi.minor = 0, hi.patch = 0;
		else if (c->minor > 0 || wild == 2)
			hi.minor++, hi.patch = 0;
		else
			hi.patch++;
		return vcmp(v, &lo) >= 0 && vcmp(v, &hi) < 0;
	}
	cmp = vcmp(v, c);
	if (!*op || strcmp(op, "=") == 0 || strcmp(op, "!=") == 0) {
		bool eq = wild < 3 ? (wild == 0 || (vcmp(v, &lo) >= 0 &&
		    vcmp(v, &hi) < 0)) : cmp == 0;

		return *op == '!' ? !eq : eq;
	}
	if (strcmp(op, ">") == 0)
		return wild < 3 ? vcmp(v, &hi) >= 0 : cmp > 0;
	if (strcmp(op, ">=") == 0 || strcmp(op, "=>") == 0)
		return cmp >= 0;
	if (strcmp(op, "<") == 0)
		return cmp < 0;
	if (strcmp(op, "<=") == 0 || strcmp(op, "=<") == 0)
		return wild < 3 ? vcmp(v, &hi) < 0 : cmp <= 0;
	return -1;
}

static bool
f_semvercompare(A)
{
	const char *c = a[0].u.s.s, *end = c + a[0].u.s.n;
	struct gv_version *v = parse_version(x, a[1].u.s.s, a[1].u.s.n,
	    NULL);
	bool any = false;

	ARGS_UNUSED;
	if (!v)
		return gt_fail(x, "Invalid Semantic Version");
	while (c < end) {
		const char *alt = memmem(c, (size_t)(end - c), "||", 2);
		const char *ae = alt ? alt : end, *t = c;
		const char *hy = memmem(c, (size_t)(ae - c), " - ", 3);
		bool all = true;

		if (hy) {
			/* a hyphen range, A - B: >= A, <= B */
			const char *a0 = c, *b0 = hy + 3, *b1 = ae;
			const char *lo, *hi;
			int r1, r2;

			while (a0 < hy && *a0 == ' ')
				a0++;
			while (b0 < b1 && *b0 == ' ')
				b0++;
			while (b1 > b0 && b1[-1] == ' ')
				b1--;
			lo = arena_printf(AR, ">=%.*s", (int)(hy - a0), a0);
			hi = arena_printf(AR, "<=%.*s", (int)(b1 - b0), b0);
			r1 = check_term(x, lo, strlen(lo), v);
			r2 = check_term(x, hi, strlen(hi), v);
			if (r1 < 0 || r2 < 0)
				return gt_fail(x, "improper constraint: %.*s",
				    (int)a[0].u.s.n, a[0].u.s.s);
			if (r1 && r2)
				any = true;
			c = alt ? alt + 2 : end;
			continue;
		}
		while (t < ae) {
			const char *te;
			int r;

			while (t < ae && (*t == ' ' || *t == ','))
				t++;
			if (t >= ae)
				break;
			te = t;
			while (te < ae && strchr("=!<>~^", *te) && *te)
				te++;
			while (te < ae && *te == ' ')
				te++;
			while (te < ae && *te != ' ' && *te != ',')
				te++;
			r = check_term(x, t, (size_t)(te - t), v);
			if (r < 0)
				return gt_fail(x, "improper constraint: %.*s",
				    (int)a[0].u.s.n, a[0].u.s.s);
			if (!r)
				all = false;
			t = te;
		}
		if (all)
			any = true;
		c = alt ? alt + 2 : end;
	}
	*out = gv_bool(any);
	return true;
}

/* The table, sorted by name for bsearch. */
#define CLOCK "the clock"
#define ENV "the environment"
#define RAND "a random source"
#define NET "the network"

static const struct gt_func funcs[] = {
	{ "abbrev", "is", f_abbrev, NULL, false },
	{ "abbrevboth", "iis", f_abbrevboth, NULL, false },
	{ "add", "a*", f_add, NULL, false },
	{ "add1", "a", f_add1, NULL, false },
	{ "add1f", "a", f_add1f, NULL, false },
	{ "addf", "a*", f_addf, NULL, false },
	{ "adler32sum", "s", f_adler32sum, NULL, false },
	{ "ago", "a", NULL, CLOCK, false },
	{ "all", "a*", f_all, NULL, false },
	{ "and", "vv*", f_and, NULL, true },
	{ "any", "a*", f_any, NULL, false },
	{ "append", "aa", f_append, NULL, false },
	{ "atoi", "s", f_atoi, NULL, false },
	{ "b32dec", "s", f_b32dec, NULL, false },
	{ "b32enc", "s", f_b32enc, NULL, false },
	{ "b64dec", "s", f_b64dec, NULL, false },
	{ "b64enc", "s", f_b64enc, NULL, false },
	{ "base", "s", f_base, NULL, false },
	{ "bcrypt", "s", NULL, RAND, false },
	{ "biggest", "aa*", f_max, NULL, false },
	{ "buildCustomCert", "ss", NULL, RAND, false },
	{ "call", "vv*", f_call, NULL, false },
	{ "camelcase", "s", f_camelcase, NULL, false },
	{ "cat", "a*", f_cat, NULL, false },
	{ "ceil", "a", f_ceil, NULL, false },
	{ "chunk", "ia", f_chunk, NULL, false },
	{ "clean", "s", f_clean, NULL, false },
	{ "coalesce", "a*", f_coalesce, NULL, false },
	{ "compact", "a", f_compact, NULL, false },
	{ "concat", "a*", f_concat, NULL, false },
	{ "contains", "ss", f_contains, NULL, false },
	{ "date", "sa", NULL, CLOCK, false },
	{ "dateInZone", "sas", NULL, CLOCK, false },
	{ "dateModify", "sa", NULL, CLOCK, false },
	{ "date_in_zone", "sas", NULL, CLOCK, false },
	{ "date_modify", "sa", NULL, CLOCK, false },
	{ "decryptAES", "ss", NULL, RAND, false },
	{ "deepCopy", "a", f_deepcopy, NULL, false },
	{ "deepEqual", "aa", f_deepequal, NULL, false },
	{ "default", "aa*", f_default, NULL, false },
	{ "derivePassword", "issss", NULL, RAND, false },
	{ "dict", "a*", f_dict, NULL, false },
	{ "dig", "a*", f_dig, NULL, false },
	{ "dir", "s", f_dir, NULL, false },
	{ "div", "aa", f_div, NULL, false },
	{ "divf", "aa*", f_divf, NULL, false },
	{ "duration", "a", NULL, CLOCK, false },
	{ "durationRound", "a", NULL, CLOCK, false },
	{ "empty", "a", f_empty, NULL, false },
	{ "encryptAES", "ss", NULL, RAND, false },
	{ "env", "s", NULL, ENV, false },
	{ "eq", "vv*", f_eq, NULL, false },
	{ "expandenv", "s", NULL, ENV, false },
	{ "ext", "s", f_ext, NULL, false },
	{ "fail", "s", f_fail, NULL, false },
	{ "first", "a", f_first, NULL, false },
	{ "float64", "a", f_float64, NULL, false },
	{ "floor", "a", f_floor, NULL, false },
	{ "fromJson", "s", f_fromjson, NULL, false },
	{ "ge", "vv", f_ge, NULL, false },
	{ "genCA", "si", NULL, RAND, false },
	{ "genCAWithKey", "sis", NULL, RAND, false },
	{ "genPrivateKey", "s", NULL, RAND, false },
	{ "genSelfSignedCert", "saai", NULL, RAND, false },
	{ "genSelfSignedCertWithKey", "saais", NULL, RAND, false },
	{ "genSignedCert", "saaia", NULL, RAND, false },
	{ "genSignedCertWithKey", "saaias", NULL, RAND, false },
	{ "get", "ms", f_get, NULL, false },
	{ "getHostByName", "s", NULL, NET, false },
	{ "gt", "vv", f_gt, NULL, false },
	{ "has", "aa", f_has, NULL, false },
	{ "hasKey", "ms", f_haskey, NULL, false },
	{ "hasPrefix", "ss", f_hasprefix, NULL, false },
	{ "hasSuffix", "ss", f_hassuffix, NULL, false },
	{ "hello", "", f_hello, NULL, false },
	{ "html", "a*", f_html, NULL, false },
	{ "htmlDate", "a", NULL, CLOCK, false },
	{ "htmlDateInZone", "as", NULL, CLOCK, false },
	{ "htpasswd", "ss", NULL, RAND, false },
	{ "indent", "is", f_indent, NULL, false },
	{ "index", "vv*", f_index, NULL, false },
	{ "initial", "a", f_initial, NULL, false },
	{ "initials", "s", f_initials, NULL, false },
	{ "int", "a", f_int, NULL, false },
	{ "int64", "a", f_int64, NULL, false },
	{ "isAbs", "s", f_isabs, NULL, false },
	{ "join", "sa", f_join, NULL, false },
	{ "js", "a*", f_js, NULL, false },
	{ "kebabcase", "s", f_kebabcase, NULL, false },
	{ "keys", "m*", f_keys, NULL, false },
	{ "kindIs", "sa", f_kindis, NULL, false },
	{ "kindOf", "a", f_kindof, NULL, false },
	{ "last", "a", f_last, NULL, false },
	{ "le", "vv", f_le, NULL, false },
	{ "len", "v", f_len, NULL, false },
	{ "list", "a*", f_list, NULL, false },
	{ "lower", "s", f_lower, NULL, false },
	{ "lt", "vv", f_lt, NULL, false },
	{ "max", "aa*", f_max, NULL, false },
	{ "maxf", "aa*", f_maxf, NULL, false },
	{ "merge", "mm*", f_merge, NULL, false },
	{ "mergeOverwrite", "mm*", f_mergeover, NULL, false },
	{ "min", "aa*", f_min, NULL, false },
	{ "minf", "aa*", f_minf, NULL, false },
	{ "mod", "aa", f_mod, NULL, false },
	{ "mul", "aa*", f_mul, NULL, false },
	{ "mulf", "aa*", f_mulf, NULL, false },
	{ "mustAppend", "aa", f_append, NULL, false },
	{ "mustChunk", "ia", f_chunk, NULL, false },
	{ "mustCompact", "a", f_compact, NULL, false },
	{ "mustDateModify", "sa", NULL, CLOCK, false },
	{ "mustDeepCopy", "a", f_deepcopy, NULL, false },
	{ "mustFirst", "a", f_first, NULL, false },
	{ "mustFromJson", "s", f_mustfromjson, NULL, false },
	{ "mustHas", "aa", f_has, NULL, false },
	{ "mustInitial", "a", f_initial, NULL, false },
	{ "mustLast", "a", f_last, NULL, false },
	{ "mustMerge", "mm*", f_merge, NULL, false },
	{ "mustMergeOverwrite", "mm*", f_mergeover, NULL, false },
	{ "mustPrepend", "aa", f_prepend, NULL, false },
	{ "mustPush", "aa", f_append, NULL, false },
	{ "mustRegexFind", "ss", f_regexfind, NULL, false },
	{ "mustRegexFindAll", "ssi", f_regexfindall, NULL, false },
	{ "mustRegexMatch", "ss", f_regexmatch, NULL, false },
	{ "mustRegexReplaceAll", "sss", f_regexreplaceall, NULL, false },
	{ "mustRegexReplaceAllLiteral", "sss", f_regexreplaceallliteral, NULL,
	  false },
	{ "mustRegexSplit", "ssi", f_regexsplit, NULL, false },
	{ "mustRest", "a", f_rest, NULL, false },
	{ "mustReverse", "a", f_reverse, NULL, false },
	{ "mustSlice", "aa*", f_slice, NULL, false },
	{ "mustToDate", "ss", NULL, CLOCK, false },
	{ "mustToJson", "a", f_musttojson, NULL, false },
	{ "mustToPrettyJson", "a", f_musttoprettyjson, NULL, false },
	{ "mustToRawJson", "a", f_musttorawjson, NULL, false },
	{ "mustUniq", "a", f_uniq, NULL, false },
	{ "mustWithout", "aa*", f_without, NULL, false },
	{ "must_date_modify", "sa", NULL, CLOCK, false },
	{ "ne", "vv", f_ne, NULL, false },
	{ "nindent", "is", f_nindent, NULL, false },
	{ "nospace", "s", f_nospace, NULL, false },
	{ "not", "v", f_not, NULL, false },
	{ "now", "", NULL, CLOCK, false },
	{ "omit", "ms*", f_omit, NULL, false },
	{ "or", "vv*", f_and, NULL, true },
	{ "osBase", "s", f_base, NULL, false },
	{ "osClean", "s", f_clean, NULL, false },
	{ "osDir", "s", f_dir, NULL, false },
	{ "osExt", "s", f_ext, NULL, false },
	{ "osIsAbs", "s", f_isabs, NULL, false },
	{ "pick", "ms*", f_pick, NULL, false },
	{ "pluck", "sm*", f_pluck, NULL, false },
	{ "plural", "ssi", f_plural, NULL, false },
	{ "prepend", "aa", f_prepend, NULL, false },
	{ "print", "a*", f_print, NULL, false },
	{ "printf", "sa*", f_printf, NULL, false },
	{ "println", "a*", f_println, NULL, false },
	{ "push", "aa", f_append, NULL, false },
	{ "quote", "a*", f_quote, NULL, false },
	{ "randAlpha", "i", NULL, RAND, false },
	{ "randAlphaNum", "i", NULL, RAND, false },
	{ "randAscii", "i", NULL, RAND, false },
	{ "randBytes", "i", NULL, RAND, false },
	{ "randInt", "ii", NULL, RAND, false },
	{ "randNumeric", "i", NULL, RAND, false },
	{ "regexFind", "ss", f_regexfind, NULL, false },
	{ "regexFindAll", "ssi", f_regexfindall, NULL, false },
	{ "regexMatch", "ss", f_regexmatch, NULL, false },
	{ "regexQuoteMeta", "s", f_regexquotemeta, NULL, false },
	{ "regexReplaceAll", "sss", f_regexreplaceall, NULL, false },
	{ "regexReplaceAllLiteral", "sss", f_regexreplaceallliteral, NULL,
	  false },
	{ "regexSplit", "ssi", f_regexsplit, NULL, false },
	{ "repeat", "is", f_repeat, NULL, false },
	{ "replace", "sss", f_replace, NULL, false },
	{ "rest", "a", f_rest, NULL, false },
	{ "reverse", "a", f_reverse, NULL, false },
	{ "round", "aif*", f_round, NULL, false },
	{ "semver", "s", f_semver, NULL, false },
	{ "semverCompare", "ss", f_semvercompare, NULL, false },
	{ "seq", "i*", f_seq, NULL, false },
	{ "set", "msa", f_set, NULL, false },
	{ "sha1sum", "s", f_sha1sum, NULL, false },
	{ "sha256sum", "s", f_sha256sum, NULL, false },
	{ "shuffle", "s", NULL, RAND, false },
	{ "slice", "aa*", f_slice, NULL, false },
	{ "snakecase", "s", f_snakecase, NULL, false },
	{ "sortAlpha", "a", f_sortalpha, NULL, false },
	{ "split", "ss", f_split, NULL, false },
	{ "splitList", "ss", f_splitlist, NULL, false },
	{ "splitn", "sis", f_splitn, NULL, false },
	{ "squote", "a*", f_squote, NULL, false },
	{ "sub", "aa", f_sub, NULL, false },
	{ "subf", "aa*", f_subf, NULL, false },
	{ "substr", "iis", f_substr, NULL, false },
	{ "swapcase", "s", f_swapcase, NULL, false },
	{ "ternary", "aab", f_ternary, NULL, false },
	{ "title", "s", f_title, NULL, false },
	{ "toDate", "ss", NULL, CLOCK, false },
	{ "toDecimal", "a", f_todecimal, NULL, false },
	{ "toJson", "a", f_tojson, NULL, false },
	{ "toPrettyJson", "a", f_toprettyjson, NULL, false },
	{ "toRawJson", "a", f_torawjson, NULL, false },
	{ "toString", "a", f_tostring, NULL, false },
	{ "toStrings", "a", f_tostrings, NULL, false },
	{ "trim", "s", f_trim, NULL, false },
	{ "trimAll", "ss", f_trimall, NULL, false },
	{ "trimPrefix", "ss", f_trimprefix, NULL, false },
	{ "trimSuffix", "ss", f_trimsuffix, NULL, false },
	{ "trimall", "ss", f_trimall, NULL, false },
	{ "trunc", "is", f_trunc, NULL, false },
	{ "tuple", "a*", f_list, NULL, false },
	{ "typeIs", "sa", f_typeis, NULL, false },
	{ "typeIsLike", "sa", f_typeislike, NULL, false },
	{ "typeOf", "a", f_typeof, NULL, false },
	{ "uniq", "a", f_uniq, NULL, false },
	{ "unixEpoch", "a", NULL, CLOCK, false },
	{ "unset", "ms", f_unset, NULL, false },
	{ "until", "i", f_until, NULL, false },
	{ "untilStep", "iii", f_untilstep, NULL, false },
	{ "untitle", "s", f_untitle, NULL, false },
	{ "upper", "s", f_upper, NULL, false },
	{ "urlquery", "a*", f_urlquery, NULL, false },
	{ "uuidv4", "", NULL, RAND, false },
	{ "values", "m", f_values, NULL, false },
	{ "without", "aa*", f_without, NULL, false },
	{ "wrap", "is", f_wrap, NULL, false },
	{ "wrapWith", "iss", f_wrapwith, NULL, false },
};

const struct gt_func *
gt_func_find(const char *name, size_t len)
{
	size_t lo = 0, hi = LEN(funcs);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		size_t ml = strlen(funcs[mid].name);
		int c = strncmp(funcs[mid].name, name, ml < len ? ml : len);

		if (!c)
			c = ml < len ? -1 : ml > len;
		if (!c)
			return funcs[mid].fn || funcs[mid].refused ?
			    &funcs[mid] : NULL;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
gotmpl_free(struct gotmpl *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->regex.n; i++)
		pcre2_code_free(t->regex.items[i].value);
	t->regex.n = 0;
}
