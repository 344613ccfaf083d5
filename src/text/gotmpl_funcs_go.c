/*
 * gotmpl_funcs_go: text/template's own builtins -- and, or, not, len,
 * index, print, printf, println, html, js, urlquery, the comparisons
 * and call -- as Go 1.19 defines them.
 */
#include "text/gotmpl_funcs.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"

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

	*out = 0;       /* set on every path: gt_fail()'s false is opaque */
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
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_println(A)
{
	struct buf b = BUF_INIT;

	gv_sprintln(&b, a, n);
	*out = gt_bstr(x, &b);
	return true;
}

static bool
f_printf(A)
{
	struct buf b = BUF_INIT;

	gv_sprintf(&b, a[0].u.s.s, a[0].u.s.n, a + 1, n - 1);
	*out = gt_bstr(x, &b);
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
	return gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	return gt_bstr(x, &b).u.s.s;
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

	*r = false;     /* set on every path: gt_fail()'s false is opaque */
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

const struct gt_func gt_funcs_go[] = {
	{ "and", "vv*", f_and, NULL, true, 0 },
	{ "call", "vv*", f_call, NULL, false, 0 },
	{ "eq", "vv*", f_eq, NULL, false, 0 },
	{ "ge", "vv", f_ge, NULL, false, 0 },
	{ "gt", "vv", f_gt, NULL, false, 0 },
	{ "html", "a*", f_html, NULL, false, 0 },
	{ "index", "vv*", f_index, NULL, false, 0 },
	{ "js", "a*", f_js, NULL, false, 0 },
	{ "le", "vv", f_le, NULL, false, 0 },
	{ "len", "v", f_len, NULL, false, 0 },
	{ "lt", "vv", f_lt, NULL, false, 0 },
	{ "ne", "vv", f_ne, NULL, false, 0 },
	{ "not", "v", f_not, NULL, false, 0 },
	{ "or", "vv*", f_and, NULL, true, 0 },
	{ "print", "a*", f_print, NULL, false, 0 },
	{ "printf", "sa*", f_printf, NULL, false, 0 },
	{ "println", "a*", f_println, NULL, false, 0 },
	{ "urlquery", "a*", f_urlquery, NULL, false, 0 },
};
const size_t gt_nfuncs_go = LEN(gt_funcs_go);
