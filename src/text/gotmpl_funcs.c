/*
 * gotmpl_funcs: the functions a Go template can call, found by name in
 * the families' tables (gotmpl_funcs_*.c, one per family, each with its
 * Go signatures), and the conversions Sprig's functions share.  The
 * functions that read the clock, the environment, the network or a
 * random source have a table here, with the reason strata refuses them.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "text/gotmpl_funcs.h"

#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"

/* Sprig's conversions. */

const char *
gt_sdup(struct gt_exec *x, const struct buf *b)
{
	return arena_strndup(AR, b->data ? b->data : "", b->len);
}

struct gv
gt_bstr(struct gt_exec *x, struct buf *b)
{
	struct gv v = gv_str(gt_sdup(x, b), b->len);

	buf_free(b);
	return v;
}

/* Sprig's strval: strings as they are, others as %v. */
struct gv
gt_strval(struct gt_exec *x, const struct gv *v)
{
	struct buf b = BUF_INIT;

	if (v->kind == GV_STRING)
		return *v;
	if (v->kind == GV_INVALID || v->kind == GV_NIL) {
		return gv_cstr("<nil>");
	}
	gv_print(&b, v);
	return gt_bstr(x, &b);
}

/* cast.ToInt64 */
int64_t
gt_to_int64(const struct gv *v)
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
double
gt_to_float(const struct gv *v)
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

bool
gt_is_list(const struct gv *v)
{
	return v->kind == GV_LIST;
}

/* A list value, else Sprig's panic text. */
bool
gt_need_list(struct gt_exec *x, const struct gv *v, const char *what)
{
	if (gt_is_list(v))
		return true;
	return gt_fail(x, "Cannot %s on type %s", what, v->kind == GV_NIL ||
	    v->kind == GV_INVALID ? "<nil>" : gv_type(v));
}

/* Sprig's strslice. */
struct gv
gt_strslice(struct gt_exec *x, const struct gv *v)
{
	struct gv r;
	size_t i, k = 0;

	if (v->kind == GV_LIST) {
		r = gv_list_new(AR, v->u.l->n);
		for (i = 0; i < v->u.l->n; i++) {
			if (v->u.l->v[i].kind == GV_NIL)
				continue;
			r.u.l->v[k++] = gt_strval(x, &v->u.l->v[i]);
		}
		r.u.l->n = k;
	} else if (v->kind == GV_NIL || v->kind == GV_INVALID) {
		r = gv_list_new(AR, 0);
	} else {
		r = gv_list_new(AR, 1);
		r.u.l->v[0] = gt_strval(x, v);
	}
	r.type = "[]string";
	return r;
}

struct gv
gt_list_of(struct gt_exec *x, size_t n, const char *type)
{
	struct gv r = gv_list_new(AR, n);

	r.type = type;
	return r;
}

bool
gt_ret_str(struct gt_exec *x, struct gv *out, const char *s, size_t n)
{
	*out = gv_str(arena_strndup(AR, s, n), n);
	return true;
}


/* The functions strata refuses: what each would read. */
#define CLOCK "the clock"
#define ENV "the environment"
#define RAND "a random source"
#define NET "the network"

static const struct gt_func refused[] = {
	{ "ago", "a", NULL, CLOCK, false, 0 },
	{ "bcrypt", "s", NULL, RAND, false, 0 },
	{ "buildCustomCert", "ss", NULL, RAND, false, 0 },
	{ "date", "sa", NULL, CLOCK, false, 0 },
	{ "dateInZone", "sas", NULL, CLOCK, false, 0 },
	{ "dateModify", "sa", NULL, CLOCK, false, 0 },
	{ "date_in_zone", "sas", NULL, CLOCK, false, 0 },
	{ "date_modify", "sa", NULL, CLOCK, false, 0 },
	{ "duration", "a", NULL, CLOCK, false, 0 },
	{ "durationRound", "a", NULL, CLOCK, false, 0 },
	{ "encryptAES", "ss", NULL, RAND, false, 0 },
	{ "env", "s", NULL, ENV, false, 0 },
	{ "expandenv", "s", NULL, ENV, false, 0 },
	{ "genCA", "si", NULL, RAND, false, 0 },
	{ "genCAWithKey", "sis", NULL, RAND, false, 0 },
	{ "genPrivateKey", "s", NULL, RAND, false, 0 },
	{ "genSelfSignedCert", "saai", NULL, RAND, false, 0 },
	{ "genSelfSignedCertWithKey", "saais", NULL, RAND, false, 0 },
	{ "genSignedCert", "saaia", NULL, RAND, false, 0 },
	{ "genSignedCertWithKey", "saaias", NULL, RAND, false, 0 },
	{ "getHostByName", "s", NULL, NET, false, 0 },
	{ "htmlDate", "a", NULL, CLOCK, false, 0 },
	{ "htmlDateInZone", "as", NULL, CLOCK, false, 0 },
	{ "htpasswd", "ss", NULL, RAND, false, 0 },
	{ "mustDateModify", "sa", NULL, CLOCK, false, 0 },
	{ "mustToDate", "ss", NULL, CLOCK, false, 0 },
	{ "must_date_modify", "sa", NULL, CLOCK, false, 0 },
	{ "now", "", NULL, CLOCK, false, 0 },
	{ "randAlpha", "i", NULL, RAND, false, 0 },
	{ "randAlphaNum", "i", NULL, RAND, false, 0 },
	{ "randAscii", "i", NULL, RAND, false, 0 },
	{ "randBytes", "i", NULL, RAND, false, 0 },
	{ "randInt", "ii", NULL, RAND, false, 0 },
	{ "randNumeric", "i", NULL, RAND, false, 0 },
	{ "shuffle", "s", NULL, RAND, false, 0 },
	{ "toDate", "ss", NULL, CLOCK, false, 0 },
	{ "unixEpoch", "a", NULL, CLOCK, false, 0 },
	{ "uuidv4", "", NULL, RAND, false, 0 },
};

static const struct {
	const struct gt_func *v;
	const size_t *n;
} families[] = {
	{ gt_funcs_go, &gt_nfuncs_go },
	{ gt_funcs_strings, &gt_nfuncs_strings },
	{ gt_funcs_lists, &gt_nfuncs_lists },
	{ gt_funcs_dicts, &gt_nfuncs_dicts },
	{ gt_funcs_math, &gt_nfuncs_math },
	{ gt_funcs_url, &gt_nfuncs_url },
	{ gt_funcs_encoding, &gt_nfuncs_encoding },
	{ gt_funcs_regex, &gt_nfuncs_regex },
	{ gt_funcs_semver, &gt_nfuncs_semver },
	{ refused, NULL },
};

const struct gt_func *
gt_func_find(const char *name, size_t len)
{
	size_t i, j, n;

	for (i = 0; i < LEN(families); i++) {
		n = families[i].n ? *families[i].n : LEN(refused);
		for (j = 0; j < n; j++)
			if (strlen(families[i].v[j].name) == len &&
			    memcmp(families[i].v[j].name, name, len) == 0)
				return &families[i].v[j];
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
