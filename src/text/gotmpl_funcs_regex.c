/*
 * gotmpl_funcs_regex: Sprig's regular expressions -- RE2 patterns run by
 * PCRE2 with match and depth limits, each compiled once per template set
 * (the set owns them: gotmpl_free()).
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "text/gotmpl_funcs.h"

#include <pcre2.h>
#include <string.h>

#include "base/arena.h"
#include "base/util.h"
#include "diag/run.h"

#define RE_MATCH_LIMIT 10000000
#define RE_DEPTH_LIMIT 10000

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
		bool must = gt_callmode(x) & GT_MUST;

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
	*out = gt_list_of(x, nv / 2, "[]string");
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
	*out = gt_list_of(x, 0, "[]string");
	if (max == 0)
		return true;
	if (a[0].u.s.n && !a[1].u.s.n) {
		*out = gt_list_of(x, 1, "[]string");
		out->u.l->v[0] = gv_cstr("");
		return true;
	}
	if (!re_open(x, &a[0], &re, &m))
		return false;
	ok = all_matches(x, re, &m, &a[1], max, &v, &nv);
	re_close(&m);
	if (!ok)
		return false;
	*out = gt_list_of(x, nv / 2 + 1, "[]string");
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

/* regexReplaceAll, regexReplaceAllLiteral ('l'), and their must
 * spellings. */
static bool
f_regexreplaceall(A)
{
	bool literal = (gt_callmode(x) & 0xff) == 'l';
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
	*out = gt_bstr(x, &b);
	return true;
}


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
	*out = gt_bstr(x, &b);
	return true;
}

const struct gt_func gt_funcs_regex[] = {
	{ "mustRegexFind", "ss", f_regexfind, NULL, false, GT_MUST },
	{ "mustRegexFindAll", "ssi", f_regexfindall, NULL, false, GT_MUST },
	{ "mustRegexMatch", "ss", f_regexmatch, NULL, false, GT_MUST },
	{ "mustRegexReplaceAll", "sss", f_regexreplaceall, NULL, false, GT_MUST },
	{ "mustRegexReplaceAllLiteral", "sss", f_regexreplaceall, NULL,
	  false, GT_MUST | 'l' },
	{ "mustRegexSplit", "ssi", f_regexsplit, NULL, false, GT_MUST },
	{ "regexFind", "ss", f_regexfind, NULL, false, 0 },
	{ "regexFindAll", "ssi", f_regexfindall, NULL, false, 0 },
	{ "regexMatch", "ss", f_regexmatch, NULL, false, 0 },
	{ "regexQuoteMeta", "s", f_regexquotemeta, NULL, false, 0 },
	{ "regexReplaceAll", "sss", f_regexreplaceall, NULL, false, 0 },
	{ "regexReplaceAllLiteral", "sss", f_regexreplaceall, NULL,
	  false, 'l' },
	{ "regexSplit", "ssi", f_regexsplit, NULL, false, 0 },
};
const size_t gt_nfuncs_regex = LEN(gt_funcs_regex);
