/*
 * gotmpl_funcs_strings: Sprig's string functions -- trimming, case,
 * replacing, quoting, indenting, abbreviating, wrapping, splitting and
 * joining -- on the bytes and runes Go's strings package sees.
 */
/* memmem() */
#define _GNU_SOURCE

#include "text/gotmpl_funcs.h"

#include <string.h>

#include "base/arena.h"
#include "base/util.h"

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
	return gt_ret_str(x, out, s, len);
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

/* Whether s ends (mode 's') or starts (else) with fix. */
static bool
affixed(const struct gv *fix, const struct gv *s, int mode)
{
	const char *at = mode == 's' ? s->u.s.s + s->u.s.n - fix->u.s.n :
	    s->u.s.s;

	return s->u.s.n >= fix->u.s.n && memcmp(at, fix->u.s.s,
	    fix->u.s.n) == 0;
}

/* trimPrefix ('p'), trimSuffix ('s'): Sprig's order, (fix, s). */
static bool
f_trimaffix(A)
{
	int mode = gt_callmode(x);

	ARGS_UNUSED;
	*out = a[1];
	if (affixed(&a[0], &a[1], mode))
		*out = gv_str(a[1].u.s.s + (mode == 's' ? 0 : a[0].u.s.n),
		    a[1].u.s.n - a[0].u.s.n);
	return true;
}

/* hasPrefix ('p'), hasSuffix ('s'). */
static bool
f_hasaffix(A)
{
	ARGS_UNUSED;
	*out = gv_bool(affixed(&a[0], &a[1], gt_callmode(x)));
	return true;
}

static bool
f_trimall(A)
{
	const char *s = a[1].u.s.s;
	size_t len = a[1].u.s.n;

	ARGS_UNUSED;
	trim_cut(&a[0], &s, &len, true, true);
	return gt_ret_str(x, out, s, len);
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
	*out = gt_bstr(x, &b);
	return true;
}


/* upper, lower, title, untitle, swapcase: the mode names the mapping. */
static bool
f_case(A)
{
	ARGS_UNUSED;
	return map_case(x, &a[0], gt_callmode(x), out);
}

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
		*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
		s = gt_strval(x, &a[i]);
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
	*out = gt_bstr(x, &b);
	return true;
}


/* quote ('"': strconv.Quote), squote ('\''). */
static bool
f_quote(A)
{
	return quote_all(x, a, n, out, gt_callmode(x) == '"');
}

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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
	return true;
}

/* indent, nindent ('n': a newline first). */
static bool
f_indent(A)
{
	ARGS_UNUSED;
	return indent_str(x, a[0].u.i, &a[1], gt_callmode(x) == 'n', out);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
	return true;
}

/* Sprig's substr works on bytes. */
static bool
f_substr(A)
{
	int64_t start = a[0].u.i, end = a[1].u.i, len = (int64_t)a[2].u.s.n;

	ARGS_UNUSED;
	if (start < 0)
		return gt_ret_str(x, out, a[2].u.s.s, end < 0 || end > len ?
		    (size_t)len : (size_t)end);
	if (end < 0 || end > len) {
		if (start > len)
			return gt_fail(x, "runtime error: slice bounds out of range [%lld:%lld]",
			    (long long)start, (long long)len);
		return gt_ret_str(x, out, a[2].u.s.s + start, (size_t)(len -
		    start));
	}
	if (start > end)
		return gt_fail(x, "runtime error: slice bounds out of range [%lld:%lld]",
		    (long long)start, (long long)end);
	return gt_ret_str(x, out, a[2].u.s.s + start, (size_t)(end - start));
}

static bool
f_trunc(A)
{
	int64_t c = a[0].u.i, len = (int64_t)a[1].u.s.n;

	ARGS_UNUSED;
	if (c < 0 && len + c > 0)
		return gt_ret_str(x, out, a[1].u.s.s + len + c, (size_t)-c);
	if (c >= 0 && len > c)
		return gt_ret_str(x, out, a[1].u.s.s, (size_t)c);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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
	*out = gt_bstr(x, &b);
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


static bool
f_hello(A)
{
	ARGS_UNUSED;
	*out = gv_cstr("Hello!");
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

	*out = gt_list_of(x, 0, "[]string");
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
	struct gv l = gt_strslice(x, &a[1]);
	struct buf b = BUF_INIT;
	size_t i;

	ARGS_UNUSED;
	for (i = 0; i < l.u.l->n; i++) {
		if (i)
			buf_put(&b, a[0].u.s.s, a[0].u.s.n);
		buf_put(&b, l.u.l->v[i].u.s.s, l.u.l->v[i].u.s.n);
	}
	*out = gt_bstr(x, &b);
	return true;
}

const struct gt_func gt_funcs_strings[] = {
	{ "abbrev", "is", f_abbrev, NULL, false, 0 },
	{ "abbrevboth", "iis", f_abbrevboth, NULL, false, 0 },
	{ "camelcase", "s", f_camelcase, NULL, false, 0 },
	{ "cat", "a*", f_cat, NULL, false, 0 },
	{ "contains", "ss", f_contains, NULL, false, 0 },
	{ "hasPrefix", "ss", f_hasaffix, NULL, false, 'p' },
	{ "hasSuffix", "ss", f_hasaffix, NULL, false, 's' },
	{ "hello", "", f_hello, NULL, false, 0 },
	{ "indent", "is", f_indent, NULL, false, 0 },
	{ "initials", "s", f_initials, NULL, false, 0 },
	{ "join", "sa", f_join, NULL, false, 0 },
	{ "kebabcase", "s", f_kebabcase, NULL, false, 0 },
	{ "lower", "s", f_case, NULL, false, 'l' },
	{ "nindent", "is", f_indent, NULL, false, 'n' },
	{ "nospace", "s", f_nospace, NULL, false, 0 },
	{ "plural", "ssi", f_plural, NULL, false, 0 },
	{ "quote", "a*", f_quote, NULL, false, '"' },
	{ "repeat", "is", f_repeat, NULL, false, 0 },
	{ "replace", "sss", f_replace, NULL, false, 0 },
	{ "snakecase", "s", f_snakecase, NULL, false, 0 },
	{ "split", "ss", f_split, NULL, false, 0 },
	{ "splitList", "ss", f_splitlist, NULL, false, 0 },
	{ "splitn", "sis", f_splitn, NULL, false, 0 },
	{ "squote", "a*", f_quote, NULL, false, '\'' },
	{ "substr", "iis", f_substr, NULL, false, 0 },
	{ "swapcase", "s", f_case, NULL, false, 's' },
	{ "title", "s", f_case, NULL, false, 't' },
	{ "trim", "s", f_trim, NULL, false, 0 },
	{ "trimAll", "ss", f_trimall, NULL, false, 0 },
	{ "trimPrefix", "ss", f_trimaffix, NULL, false, 'p' },
	{ "trimSuffix", "ss", f_trimaffix, NULL, false, 's' },
	{ "trimall", "ss", f_trimall, NULL, false, 0 },
	{ "trunc", "is", f_trunc, NULL, false, 0 },
	{ "untitle", "s", f_case, NULL, false, 'n' },
	{ "upper", "s", f_case, NULL, false, 'u' },
	{ "wrap", "is", f_wrap, NULL, false, 0 },
	{ "wrapWith", "iss", f_wrapwith, NULL, false, 0 },
};
const size_t gt_nfuncs_strings = LEN(gt_funcs_strings);
