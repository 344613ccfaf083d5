/*
 * gotmpl_funcs_semver: Sprig's semver and semverCompare
 * (Masterminds semver v3: versions, wildcards, ranges, ^ and ~).
 */
/* memmem() */
#define _GNU_SOURCE

#include "text/gotmpl_funcs.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

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

const struct gt_func gt_funcs_semver[] = {
	{ "semver", "s", f_semver, NULL, false, 0 },
	{ "semverCompare", "ss", f_semvercompare, NULL, false, 0 },
};
const size_t gt_nfuncs_semver = LEN(gt_funcs_semver);
