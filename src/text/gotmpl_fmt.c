/*
 * gotmpl_fmt: the values of the Go template engine printed as Go's fmt
 * package prints them -- %v of numbers, lists ([a b]), maps (map[k:v],
 * keys sorted), nil (<nil>) -- and Sprintf with its verbs, flags, widths,
 * precisions and argument indexes, including Go's %!verb(type=value) for
 * a wrong argument.
 */
#include "text/gotmpl_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

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

/* The shape both verb paths give a list or a map, [a b] and map[k:v]:
 * each key and element printed by put. */
typedef void put_fn(struct buf *b, const struct gv *v, const void *ctx);

static void
put_items(struct buf *b, const struct gv *v, put_fn *put, const void *ctx)
{
	size_t i;

	buf_puts(b, v->kind == GV_MAP ? "map[" : "[");
	for (i = 0; v->kind == GV_LIST && i < v->u.l->n; i++) {
		if (i)
			buf_putc(b, ' ');
		put(b, &v->u.l->v[i], ctx);
	}
	for (i = 0; v->kind == GV_MAP && i < v->u.m->n; i++) {
		struct gv k = gv_str(v->u.m->items[i].k, v->u.m->items[i].kn);

		if (i)
			buf_putc(b, ' ');
		put(b, &k, ctx);
		buf_putc(b, ':');
		put(b, &v->u.m->items[i].v, ctx);
	}
	buf_putc(b, ']');
}

static void
put_v(struct buf *b, const struct gv *v, const void *ctx)
{
	(void)ctx;
	print_v(b, v, false);
}

void
gv_print(struct buf *b, const struct gv *v)
{
	print_v(b, v, true);
}

static void
print_v(struct buf *b, const struct gv *v, bool top)
{
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
	case GV_MAP:
		put_items(b, v, put_v, NULL);
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
	char verb;              /* a verb of two or more bytes: 1 */
	const char *vtext;      /* the verb as written, for %!verb(...) */
	size_t vlen;
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

static void fmt_arg(struct buf *b, const struct spec *sp,
    const struct gv *v, bool top);

/* Go's badVerb: "%!verb(type=value)", the value as %v with the
 * directive's flags, width and precision. */
static void
bad_verb_at(struct buf *b, const struct spec *sp, const char *verb,
    size_t vn, const struct gv *v)
{
	buf_printf(b, "%%!%.*s(", (int)vn, verb);
	if (v->kind == GV_NIL || v->kind == GV_INVALID) {
		buf_puts(b, "<nil>");
	} else {
		struct spec s = *sp;

		s.verb = 'v';
		buf_printf(b, "%s=", gv_type(v));
		fmt_arg(b, &s, v, false);
	}
	buf_putc(b, ')');
}

static void
bad_verb(struct buf *b, const struct spec *sp, const struct gv *v)
{
	if (sp->vlen)
		bad_verb_at(b, sp, sp->vtext, sp->vlen, v);
	else
		bad_verb_at(b, sp, &sp->verb, 1, v);
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
put_arg(struct buf *b, const struct gv *v, const void *sp)
{
	fmt_arg(b, sp, v, false);
}

static void
fmt_arg(struct buf *b, const struct spec *sp, const struct gv *v, bool top)
{
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
		put_items(b, v, put_arg, sp);
		return;
	case GV_MAP:
		put_items(b, v, put_arg, sp);
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

/* The state of one Sprintf: the format, the operands, the next one. */
struct pf {
	const char *f;
	size_t fn, i;
	const struct gv *v;
	size_t n, arg;
	bool reordered, good;   /* an index was used; this verb's was good */
};

/* Go's parsenum: digits at f[*i], at most 1e6; false when none. */
static bool
parse_num(struct pf *p, int *out)
{
	long num = 0;
	bool any = false;

	while (p->i < p->fn && p->f[p->i] >= '0' && p->f[p->i] <= '9') {
		if (num > 1000000)
			return false;
		num = num * 10 + (p->f[p->i++] - '0');
		any = true;
	}
	*out = (int)num;
	return any;
}

/* Go's argNumber: an index "[n]" at f[i] picks the next operand; true
 * when it named one. */
static bool
arg_index(struct pf *p)
{
	size_t k, j, start = p->i + 1;
	long idx = 0;

	if (p->i >= p->fn || p->f[p->i] != '[')
		return false;
	p->reordered = true;
	for (k = p->i + 1; k < p->fn && p->f[k] != ']'; k++)
		;
	if (p->fn - p->i < 3 || k >= p->fn) {
		p->good = false;
		p->i++;
		return false;
	}
	for (j = start; j < k && p->f[j] >= '0' && p->f[j] <= '9' &&
	    idx <= 1000000; j++)
		idx = idx * 10 + (p->f[j] - '0');
	p->i = k + 1;
	if (j != k || j == start || idx < 1 || (size_t)idx > p->n) {
		p->good = false;
		return false;
	}
	p->arg = (size_t)idx - 1;
	return true;
}

/* Go's intFromArg: a width or precision from the next operand. */
static bool
int_arg(struct pf *p, int *out)
{
	const struct gv *a;

	if (p->arg >= p->n)
		return false;
	a = &p->v[p->arg++];
	if (a->kind != GV_INT || a->u.i > 1000000 || a->u.i < -1000000)
		return false;
	*out = (int)a->u.i;
	return true;
}

/* Flags, index, width, precision, index: Go's doPrintf up to the verb.
 * False at the end of the format (%!(NOVERB)). */
static bool
read_spec(struct buf *b, struct pf *p, struct spec *sp)
{
	bool after;
	int w;

	for (; p->i < p->fn; p->i++) {
		char c = p->f[p->i];

		if (c == '-') {
			sp->minus = true;
			sp->zero = false;
		} else if (c == '+') {
			sp->plus = true;
		} else if (c == '#') {
			sp->sharp = true;
		} else if (c == '0') {
			sp->zero = !sp->minus;
		} else if (c == ' ') {
			sp->space = true;
		} else {
			break;
		}
	}
	after = arg_index(p);
	if (p->i < p->fn && p->f[p->i] == '*') {
		p->i++;
		if (!int_arg(p, &sp->width)) {
			sp->width = -1;
			buf_puts(b, "%!(BADWIDTH)");
		} else if (sp->width < 0) {
			sp->minus = true;
			sp->zero = false;
			sp->width = -sp->width;
		}
		after = false;
	} else if (parse_num(p, &w)) {
		sp->width = w;
		if (after)
			p->good = false;        /* "%[3]2d" */
	}
	if (p->i + 1 < p->fn && p->f[p->i] == '.') {
		p->i++;
		if (after)
			p->good = false;        /* "%[3].2d" */
		after = arg_index(p);
		if (p->i < p->fn && p->f[p->i] == '*') {
			p->i++;
			if (!int_arg(p, &sp->prec) || sp->prec < 0) {
				sp->prec = -1;
				buf_puts(b, "%!(BADPREC)");
			}
			after = false;
		} else if (!parse_num(p, &sp->prec)) {
			sp->prec = 0;
		}
	}
	if (!after)
		arg_index(p);
	if (p->i >= p->fn) {
		buf_puts(b, "%!(NOVERB)");
		return false;
	}
	return true;
}

/* "%!(EXTRA type=value, ...)" for the operands no verb used. */
static void
extra_args(struct buf *b, const struct gv *v, size_t arg, size_t n)
{
	buf_puts(b, "%!(EXTRA ");
	for (; arg < n; arg++) {
		struct spec s = { false, false, false, false, false,
		    -1, -1, 'v', NULL, 0 };

		buf_printf(b, "%s=", v[arg].kind == GV_NIL ||
		    v[arg].kind == GV_INVALID ? "<nil>" : gv_type(&v[arg]));
		fmt_arg(b, &s, &v[arg], false);
		if (arg + 1 < n)
			buf_puts(b, ", ");
	}
	buf_putc(b, ')');
}

void
gv_sprintf(struct buf *b, const char *f, size_t fn, const struct gv *v,
    size_t n)
{
	struct pf p = { f, fn, 0, v, n, 0, false, true };

	while (p.i < fn) {
		struct spec sp = { false, false, false, false, false,
		    -1, -1, 0, NULL, 0 };
		uint32_t cp;
		size_t k;

		if (f[p.i] != '%') {
			buf_putc(b, f[p.i++]);
			continue;
		}
		p.i++;
		p.good = true;
		if (!read_spec(b, &p, &sp))
			break;
		k = utf8_decode(f + p.i, fn - p.i, &cp);
		if (!k)
			k = 1;
		if (f[p.i] == '%') {
			buf_putc(b, '%');
			p.i++;
		} else if (!p.good) {
			buf_printf(b, "%%!%.*s(BADINDEX)", (int)k, f + p.i);
			p.i += k;
		} else if (p.arg >= n) {
			buf_printf(b, "%%!%.*s(MISSING)", (int)k, f + p.i);
			p.i += k;
		} else {
			/* A verb the value's kind has not is its %!verb(...),
			 * inside lists and maps too. */
			sp.verb = k > 1 ? 1 : f[p.i];
			sp.vtext = f + p.i;
			sp.vlen = k;
			p.i += k;
			fmt_arg(b, &sp, &v[p.arg++], true);
		}
	}
	if (p.arg < n && !p.reordered)
		extra_args(b, v, p.arg, n);
}
