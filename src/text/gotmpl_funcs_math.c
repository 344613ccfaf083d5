/*
 * gotmpl_funcs_math: Sprig's integer math (cast.ToInt64 of each
 * operand), its float math (shopspring/decimal's exact sums, products and
 * quotients), rounding, and the conversions (int, float64, atoi,
 * toString, toDecimal).
 */
#include "text/gotmpl_funcs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* Sprig: math. */

static bool
f_add1(A)
{
	ARGS_UNUSED;
	*out = gv_int64(gt_to_int64(&a[0]) + 1);
	return true;
}

/* add, sub, mul, div, mod, max (biggest), min: a fold of the operands
 * (cast.ToInt64 of each) by the mode's operator, '>' max, '<' min;
 * add's from 0.  int64 arithmetic wraps, as Go's does. */
static bool
f_intfold(A)
{
	int op = gt_callmode(x);
	size_t i = op == '+' ? 0 : 1;
	uint64_t s = op == '+' || !n ? 0 : (uint64_t)gt_to_int64(&a[0]);
	int64_t v;

	for (; i < n; i++) {
		v = gt_to_int64(&a[i]);
		if ((op == '/' || op == '%') && v == 0)
			return gt_fail(x, "runtime error: integer divide by "
			    "zero");
		switch (op) {
		case '+': s += (uint64_t)v; break;
		case '-': s -= (uint64_t)v; break;
		case '*': s *= (uint64_t)v; break;
		case '/': s = v == -1 ? -s : (uint64_t)((int64_t)s / v); break;
		case '%': s = v == -1 ? 0 : (uint64_t)((int64_t)s % v); break;
		case '>': s = v > (int64_t)s ? (uint64_t)v : s; break;
		default: s = v < (int64_t)s ? (uint64_t)v : s; break;
		}
	}
	*out = gv_int64((int64_t)s);
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

/* addf, subf, mulf, divf (decimal arithmetic), maxf, minf: a fold of
 * the operands by the mode's operator, '>' max, '<' min. */
static bool
f_floatfold(A)
{
	int op = gt_callmode(x);
	double s = n ? gt_to_float(&a[0]) : 0, v;
	size_t i;

	/* The first operand is a decimal too (no -0) but for maxf, minf. */
	if (op != '>' && op != '<')
		s = dec_op(0, s, '+');
	for (i = 1; i < n; i++) {
		v = gt_to_float(&a[i]);
		if (op == '/' && v == 0)
			return gt_fail(x, "decimal division by 0");
		if (op == '>')
			s = fmax(s, v);
		else if (op == '<')
			s = fmin(s, v);
		else
			s = dec_op(s, v, (char)op);
	}
	*out = gv_float(s);
	return true;
}

/* floor ('f'), ceil ('c'). */
static bool
f_floorceil(A)
{
	double f = gt_to_float(&a[0]);

	ARGS_UNUSED;
	*out = gv_float(gt_callmode(x) == 'f' ? floor(f) : ceil(f));
	return true;
}

static bool
f_add1f(A)
{
	ARGS_UNUSED;
	*out = gv_float(dec_op(gt_to_float(&a[0]), 1, '+'));
	return true;
}

static bool
f_round(A)
{
	double v = gt_to_float(&a[0]), ro = n > 2 ? a[2].u.f : 0.5, pow10, d;
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

/* int, int64: cast.ToInt64, typed by the name. */
static bool
f_int(A)
{
	ARGS_UNUSED;
	*out = gt_callmode(x) == '6' ? gv_int64(gt_to_int64(&a[0])) :
	    gv_int(gt_to_int64(&a[0]));
	return true;
}

static bool
f_float64(A)
{
	ARGS_UNUSED;
	*out = gv_float(gt_to_float(&a[0]));
	return true;
}

static bool
f_tostring(A)
{
	ARGS_UNUSED;
	*out = gt_strval(x, &a[0]);
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
	*out = gt_strslice(x, &a[0]);
	return true;
}

static bool
f_todecimal(A)
{
	struct gv s = gt_strval(x, &a[0]);
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

const struct gt_func gt_funcs_math[] = {
	{ "add", "a*", f_intfold, NULL, false, '+' },
	{ "add1", "a", f_add1, NULL, false, 0 },
	{ "add1f", "a", f_add1f, NULL, false, 0 },
	{ "addf", "a*", f_floatfold, NULL, false, '+' },
	{ "atoi", "s", f_atoi, NULL, false, 0 },
	{ "biggest", "aa*", f_intfold, NULL, false, '>' },
	{ "ceil", "a", f_floorceil, NULL, false, 'c' },
	{ "div", "aa", f_intfold, NULL, false, '/' },
	{ "divf", "aa*", f_floatfold, NULL, false, '/' },
	{ "float64", "a", f_float64, NULL, false, 0 },
	{ "floor", "a", f_floorceil, NULL, false, 'f' },
	{ "int", "a", f_int, NULL, false, 0 },
	{ "int64", "a", f_int, NULL, false, '6' },
	{ "max", "aa*", f_intfold, NULL, false, '>' },
	{ "maxf", "aa*", f_floatfold, NULL, false, '>' },
	{ "min", "aa*", f_intfold, NULL, false, '<' },
	{ "minf", "aa*", f_floatfold, NULL, false, '<' },
	{ "mod", "aa", f_intfold, NULL, false, '%' },
	{ "mul", "aa*", f_intfold, NULL, false, '*' },
	{ "mulf", "aa*", f_floatfold, NULL, false, '*' },
	{ "round", "aif*", f_round, NULL, false, 0 },
	{ "sub", "aa", f_intfold, NULL, false, '-' },
	{ "subf", "aa*", f_floatfold, NULL, false, '-' },
	{ "toDecimal", "a", f_todecimal, NULL, false, 0 },
	{ "toString", "a", f_tostring, NULL, false, 0 },
	{ "toStrings", "a", f_tostrings, NULL, false, 0 },
};
const size_t gt_nfuncs_math = LEN(gt_funcs_math);
