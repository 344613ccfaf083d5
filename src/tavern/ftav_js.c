/*
 * ftav_js: JavaScript's conversions of JSON values, as fast-tavern's
 * code applies them: String(), Number(), truthiness, Number::toString,
 * JSON.stringify's key order, trim() and toLowerCase().  A NULL node is
 * undefined (a key that is absent).
 */
#include "tavern/ftav.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/util.h"
#include "base/vec.h"
#include "data/json.h"
#include "data/tree.h"
#include "diag/run.h"

/* Number::toString(10): the shortest digits that read back, laid out
 * as ECMAScript says (exponent form below 1e-6 and from 1e21). */
void
ftav_number(struct buf *out, double d)
{
	char tmp[40], digits[24];
	int p, k = 0, e10, n, i;
	char *ep;

	if (isnan(d)) {
		buf_puts(out, "NaN");
		return;
	}
	if (d == 0) {
		buf_putc(out, '0');
		return;
	}
	if (d < 0) {
		buf_putc(out, '-');
		d = -d;
	}
	if (isinf(d)) {
		buf_puts(out, "Infinity");
		return;
	}
	for (p = 1; p <= 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
		if (strtod(tmp, NULL) == d)
			break;
	}
	ep = strchr(tmp, 'e');
	e10 = atoi(ep + 1);
	for (i = 0; tmp + i < ep; i++)
		if (tmp[i] >= '0' && tmp[i] <= '9')
			digits[k++] = tmp[i];
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	n = e10 + 1;
	if (k <= n && n <= 21) {
		buf_put(out, digits, (size_t)k);
		for (i = 0; i < n - k; i++)
			buf_putc(out, '0');
	} else if (0 < n && n <= 21) {
		buf_put(out, digits, (size_t)n);
		buf_putc(out, '.');
		buf_puts(out, digits + n);
	} else if (-6 < n && n <= 0) {
		buf_puts(out, "0.");
		for (i = 0; i < -n; i++)
			buf_putc(out, '0');
		buf_puts(out, digits);
	} else {
		buf_putc(out, digits[0]);
		if (k > 1) {
			buf_putc(out, '.');
			buf_puts(out, digits + 1);
		}
		buf_printf(out, "e%c%d", n - 1 >= 0 ? '+' : '-',
		    abs(n - 1));
	}
}

static double
num_of(const struct node *v)
{
	return v->kind == NODE_INT ? (double)v->u.i : v->u.f;
}

void
ftav_tostring(struct buf *out, const struct node *v)
{
	size_t i;

	if (!v) {
		buf_puts(out, "undefined");
		return;
	}
	switch (v->kind) {
	case NODE_STRING:
		buf_put(out, v->u.str.s, v->u.str.len);
		break;
	case NODE_INT:
	case NODE_FLOAT:
		ftav_number(out, num_of(v));
		break;
	case NODE_BOOL:
		buf_puts(out, v->u.b ? "true" : "false");
		break;
	case NODE_NULL:
		buf_puts(out, "null");
		break;
	case NODE_ARRAY:
		/* Array.prototype.join(","): null and undefined are "". */
		for (i = 0; i < v->u.array.n; i++) {
			const struct node *x = v->u.array.items[i];

			if (i)
				buf_putc(out, ',');
			if (x->kind != NODE_NULL)
				ftav_tostring(out, x);
		}
		break;
	default:
		buf_puts(out, "[object Object]");
		break;
	}
}

const char *
ftav_str(struct run *run, const struct node *v)
{
	struct buf b = BUF_INIT;
	char *s;

	if (v && v->kind == NODE_STRING)
		return v->u.str.s;
	ftav_tostring(&b, v);
	s = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

/* JavaScript's WhiteSpace and LineTerminator code points. */
static bool
js_space(uint32_t c)
{
	return c == 9 || c == 10 || c == 11 || c == 12 || c == 13 ||
	    c == 32 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 &&
	    c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
	    c == 0x205f || c == 0x3000 || c == 0xfeff;
}

void
ftav_trim(const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np, k;
	uint32_t c;

	while (n && (k = utf8_decode(s, n, &c)) && js_space(c)) {
		s += k;
		n -= k;
	}
	for (;;) {
		size_t back = 1;

		while (back < n && back < 4 &&
		    ((unsigned char)s[n - back] & 0xc0) == 0x80)
			back++;
		if (!n || !utf8_decode(s + n - back, back, &c) ||
		    !js_space(c))
			break;
		n -= back;
	}
	*sp = s;
	*np = n;
}

/* StringToNumber: the StrNumericLiteral grammar, else NaN. */
static double
str_number(const char *s0, size_t n0)
{
	const char *s = s0;
	size_t n = n0, i = 0;
	char *tmp, *end;
	double d;
	int base = 0;

	ftav_trim(&s, &n);
	if (n == 0)
		return 0;
	if (n > 2 && s[0] == '0' && strchr("xXoObB", s[1])) {
		base = s[1] == 'x' || s[1] == 'X' ? 16 : s[1] == 'o' ||
		    s[1] == 'O' ? 8 : 2;
		d = 0;
		for (i = 2; i < n; i++) {
			int v = hex_value((unsigned char)s[i]);

			if (v < 0 || v >= base)
				return NAN;
			d = d * base + v;
		}
		return d;
	}
	if (s[i] == '+' || s[i] == '-')
		i++;
	if (n - i == 8 && memcmp(s + i, "Infinity", 8) == 0)
		return s[0] == '-' ? -INFINITY : INFINITY;
	{
		size_t digits = 0, j = i;

		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++, digits++;
		if (j < n && s[j] == '.') {
			j++;
			while (j < n && s[j] >= '0' && s[j] <= '9')
				j++, digits++;
		}
		if (!digits)
			return NAN;
		if (j < n && (s[j] == 'e' || s[j] == 'E')) {
			size_t k = j + 1, ed = 0;

			if (k < n && (s[k] == '+' || s[k] == '-'))
				k++;
			while (k < n && s[k] >= '0' && s[k] <= '9')
				k++, ed++;
			if (!ed)
				return NAN;
			j = k;
		}
		if (j != n)
			return NAN;
	}
	tmp = xstrndup(s, n);
	d = strtod(tmp, &end);
	free(tmp);
	return d;
}

double
ftav_tonumber(const struct node *v)
{
	struct buf b = BUF_INIT;
	double d;

	if (!v)
		return NAN;
	switch (v->kind) {
	case NODE_INT:
	case NODE_FLOAT:
		return num_of(v);
	case NODE_BOOL:
		return v->u.b ? 1 : 0;
	case NODE_NULL:
		return 0;
	case NODE_STRING:
		return str_number(v->u.str.s, v->u.str.len);
	case NODE_ARRAY:
		ftav_tostring(&b, v);
		d = str_number(b.data ? b.data : "", b.len);
		buf_free(&b);
		return d;
	default:
		return NAN;
	}
}

bool
ftav_truthy(const struct node *v)
{
	if (!v)
		return false;
	switch (v->kind) {
	case NODE_NULL:
		return false;
	case NODE_BOOL:
		return v->u.b;
	case NODE_INT:
		return v->u.i != 0;
	case NODE_FLOAT:
		return v->u.f != 0 && !isnan(v->u.f);
	case NODE_STRING:
		return v->u.str.len != 0;
	default:
		return true;
	}
}

struct node *
ftav_num(struct run *run, double d)
{
	if (d == floor(d) && fabs(d) < 9007199254740992.0)
		return tree_int(&run->arena, (int64_t)d);
	return tree_float(&run->arena, d);
}

/* A canonical array index ("0", "17"; not "01" or "-1"): JavaScript
 * lists these keys first, in numeric order. */
static bool
array_index(const char *k, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10 || (n > 1 && k[0] == '0'))
		return false;
	for (i = 0; i < n; i++) {
		if (k[i] < '0' || k[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(k[i] - '0');
	}
	if (v >= 4294967295u)
		return false;
	*out = v;
	return true;
}

/* The members of table t in JavaScript's property order. */
static size_t
js_order(const struct node *t, const struct member ***out)
{
	size_t n = t->u.table.n, i, k = 0, j;
	const struct member **v = xreallocarray(NULL, n ? n : 1, sizeof(*v));
	uint64_t a, b;

	for (i = 0; i < n; i++) {
		const struct member *m = &t->u.table.items[i];

		if (!array_index(m->key, m->keylen, &a))
			continue;
		for (j = k; j > 0 && array_index(v[j - 1]->key,
		    v[j - 1]->keylen, &b) && b > a; j--)
			v[j] = v[j - 1];
		v[j] = m;
		k++;
	}
	for (i = 0; i < n; i++) {
		const struct member *m = &t->u.table.items[i];

		if (!array_index(m->key, m->keylen, &a))
			v[k++] = m;
	}
	*out = v;
	return n;
}

void
ftav_stringify(struct buf *out, const struct node *v)
{
	const struct member **ms;
	size_t i, n;

	switch (v->kind) {
	case NODE_INT:
	case NODE_FLOAT:
		if (isfinite(num_of(v)))
			ftav_number(out, num_of(v));
		else
			buf_puts(out, "null");
		break;
	case NODE_ARRAY:
		buf_putc(out, '[');
		for (i = 0; i < v->u.array.n; i++) {
			if (i)
				buf_putc(out, ',');
			ftav_stringify(out, v->u.array.items[i]);
		}
		buf_putc(out, ']');
		break;
	case NODE_TABLE:
		n = js_order(v, &ms);
		buf_putc(out, '{');
		for (i = 0; i < n; i++) {
			if (i)
				buf_putc(out, ',');
			json_write_string(out, ms[i]->key, ms[i]->keylen);
			buf_putc(out, ':');
			ftav_stringify(out, ms[i]->value);
		}
		buf_putc(out, '}');
		free(ms);
		break;
	default:
		json_write(out, v, -1);
		break;
	}
}

size_t
ftav_spread(struct run *run, const struct node *v, struct ftav_kv **out)
{
	struct arena *a = &run->arena;
	struct ftav_kv *kv;
	const struct member **ms;
	size_t i, n = 0, k, len;

	*out = NULL;
	if (!v)
		return 0;
	if (v->kind == NODE_TABLE) {
		n = js_order(v, &ms);
		kv = arena_array(a, n + 1, sizeof(*kv));
		for (i = 0; i < n; i++) {
			kv[i].key = ms[i]->key;
			kv[i].val = ms[i]->value;
		}
		free(ms);
		*out = kv;
		return n;
	}
	if (v->kind == NODE_ARRAY) {
		n = v->u.array.n;
		kv = arena_array(a, n + 1, sizeof(*kv));
		for (i = 0; i < n; i++) {
			kv[i].key = arena_printf(a, "%zu", i);
			kv[i].val = v->u.array.items[i];
		}
		*out = kv;
		return n;
	}
	if (v->kind != NODE_STRING)
		return 0;
	/* A string spreads into its characters (code points here). */
	len = v->u.str.len;
	kv = arena_array(a, len + 1, sizeof(*kv));
	for (i = 0; i < len; i += k) {
		uint32_t c;

		k = utf8_decode(v->u.str.s + i, len - i, &c);
		if (!k)
			k = 1;
		kv[n].key = arena_printf(a, "%zu", n);
		kv[n].val = tree_strn(a, v->u.str.s + i, k);
		n++;
	}
	*out = kv;
	return n;
}

bool
ftav_inherited(const char *name)
{
	static const char *const proto[] = { "constructor", "toString",
		"toLocaleString", "valueOf", "hasOwnProperty",
		"isPrototypeOf", "propertyIsEnumerable", "__defineGetter__",
		"__defineSetter__", "__lookupGetter__", "__lookupSetter__",
		"__proto__", NULL };
	size_t i;

	for (i = 0; proto[i]; i++)
		if (strcmp(name, proto[i]) == 0)
			return true;
	return false;
}

char *
ftav_lower(struct run *run, const char *s, size_t n)
{
	static locale_t loc;
	struct buf b = BUF_INIT;
	size_t i, k;
	char *r, enc[4];

	if (!loc)
		loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	for (i = 0; i < n; i += k) {
		uint32_t c;
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x80) {
			buf_putc(&b, ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
			k = 1;
			continue;
		}
		k = utf8_decode(s + i, n - i, &c);
		if (!k) {
			buf_putc(&b, ch);
			k = 1;
			continue;
		}
		if (c == 0x130) {       /* full mapping: i + combining dot */
			buf_puts(&b, "i\xcc\x87");
			continue;
		}
		if (loc)
			c = (uint32_t)towlower_l((wint_t)c, loc);
		buf_put(&b, enc, utf8_encode(c, enc));
	}
	r = arena_strndup(&run->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
	return r;
}
