/*
 * The translator is one left-to-right pass over the JS pattern that
 * writes PCRE2 syntax and, for every byte written, the pattern offset it
 * came from, so PCRE2's error offset can be shown in the JSON file.  A
 * first pass counts the capturing groups and collects their names,
 * because JS decides what "\2" and "\k<n>" mean from the whole pattern.
 * JS syntax errors that PCRE2 would accept (a possessive "a*+", "(?i)",
 * a lone "{" with u) are found here; everything else is left to PCRE2.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/jsregex.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"
#include "diag/run.h"

/* JS's \s, as the inside of a PCRE2 class. */
#define JS_SPACE "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}" \
	"\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
#define JS_EOL "\\n\\r\\x{2028}\\x{2029}"
#define NEVER "[^\\s\\S]"
#define ANY "[\\s\\S]"
/* Groups nested deeper than this are refused (PCRE2's own limit is 250
 * by default). */
#define MAX_NEST 250

enum group_kind { G_CAP, G_NONCAP, G_AHEAD, G_BEHIND };

struct tr {
	struct run *run;
	const struct jsregex_origin *at;
	const char *p;
	size_t n, i;
	bool u, m, s, named;
	uint32_t ngroups;       /* in the whole pattern (first pass) */
	const char **names;     /* [ngroups + 1] */
	char *namebuf;
	uint32_t opened;        /* groups opened so far */
	struct buf *out;
	uint32_t *origin;       /* pattern offset of each output byte */
	size_t norigin, corigin;
	bool canq;              /* the last item can take a quantifier */
	/* Emulate every look-behind by a callout (the second try, when
	 * PCRE2 refused one); the bodies compiled so far. */
	bool emulate;
	unsigned flags;
	struct jsregex_behind *behind;
	size_t nbehind, cbehind;
	bool sub_failed;        /* a body did not compile (reported) */
};

/* An emulated look-behind: its body as a regex whose callout 255 ends a
 * match only at target (the look-behind's position), 254 gives up once
 * a match would start after it. */
struct jsregex_behind {
	struct jsregex re;
	bool negative;
	size_t target;
	pcre2_match_data *md;
};

#define CALLOUT_START 254
#define CALLOUT_END 255
/* Callouts 1..253 are look-behinds. */
#define MAX_BEHIND 253

static bool compile(struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct jsregex *re,
    bool body);

/* The source offset of pattern offset off: through JSON escapes. */
static size_t
source_offset(const struct jsregex_origin *at, size_t off)
{
	const char *s;
	size_t i, n, dec = 0, target = at->base + off;
	uint32_t c, lo;
	char enc[4];

	if (!at->src)
		return 0;
	s = at->src->text + at->span.off;
	n = at->span.len;
	if (!at->json)
		return at->span.off + (target < n ? target : n);
	for (i = 1; i + 1 < n && dec < target;) {
		if (s[i] != '\\') {
			i++;
			dec++;
			continue;
		}
		if (s[i + 1] != 'u' || i + 6 > n) {
			i += 2;
			dec++;
			continue;
		}
		c = (uint32_t)strtoul((char[5]){ s[i + 2], s[i + 3],
		    s[i + 4], s[i + 5], 0 }, NULL, 16);
		i += 6;
		if (c >= 0xd800 && c <= 0xdbff && i + 6 <= n &&
		    s[i] == '\\' && s[i + 1] == 'u') {
			lo = (uint32_t)strtoul((char[5]){ s[i + 2], s[i + 3],
			    s[i + 4], s[i + 5], 0 }, NULL, 16);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) +
				    (lo - 0xdc00);
				i += 6;
			}
		}
		dec += utf8_encode(c, enc);
	}
	return at->span.off + i;
}

static struct span
where(const struct jsregex_origin *at, size_t off, size_t len)
{
	size_t a, b;

	if (!at->src)
		return span_make(0, 0);
	if (at->whole)
		return at->span;
	a = source_offset(at, off);
	b = source_offset(at, off + len);
	return span_make(a, b > a ? b - a : 1);
}

/* Report a JS syntax error at pattern offset off. */
static bool
fail(struct tr *t, size_t off, size_t len, enum diag_msg msg)
{
	diag_report(t->run, t->at->warn ? DIAG_WARNING : DIAG_ERROR,
	    t->at->src, where(t->at, off, len), msg, t->at->what);
	return false;
}

static void
emitn(struct tr *t, const char *s, size_t n, size_t from)
{
	size_t k;

	buf_put(t->out, s, n);
	if (t->norigin + n > t->corigin) {
		t->corigin = (t->norigin + n) * 2 + 16;
		t->origin = xreallocarray(t->origin, t->corigin,
		    sizeof(*t->origin));
	}
	for (k = 0; k < n; k++)
		t->origin[t->norigin++] = (uint32_t)from;
}

static void
emit(struct tr *t, const char *s, size_t from)
{
	emitn(t, s, strlen(s), from);
}

/* One code point, literal, into a buffer (class body or pattern). */
static void
put_cp(struct buf *b, uint32_t c)
{
	char enc[4];

	if (c < 0x80 && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z')))
		buf_putc(b, (int)c);
	else if (c < 0x80)
		buf_printf(b, "\\x{%x}", (unsigned)c);
	else
		buf_put(b, enc, utf8_encode(c, enc));
}

static void
emit_cp(struct tr *t, uint32_t c, size_t from)
{
	struct buf b = BUF_INIT;

	if (c >= 0xd800 && c <= 0xdfff)
		buf_puts(&b, NEVER);    /* a lone surrogate never matches */
	else
		put_cp(&b, c);
	emitn(t, b.data, b.len, from);
	buf_free(&b);
}

static bool
is_hex(int c)
{
	return hex_value(c) >= 0;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_syntax(int c)
{
	return c && strchr("^$\\.*+?()[]{}|/", c) != NULL;
}

/* \uHHHH at p[i] (i at the 'u'); joins a following low surrogate. */
static bool
u_escape(const char *p, size_t n, size_t i, uint32_t *cp, size_t *end)
{
	uint32_t c = 0, lo = 0;
	size_t k;

	if (i + 5 > n)
		return false;
	for (k = 1; k <= 4; k++) {
		if (!is_hex(p[i + k]))
			return false;
		c = c * 16 + (uint32_t)hex_value(p[i + k]);
	}
	*end = i + 5;
	if (c >= 0xd800 && c <= 0xdbff && i + 11 <= n && p[i + 5] == '\\' &&
	    p[i + 6] == 'u') {
		for (k = 7; k <= 10 && is_hex(p[i + k]); k++)
			lo = lo * 16 + (uint32_t)hex_value(p[i + k]);
		if (k == 11 && lo >= 0xdc00 && lo <= 0xdfff) {
			c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
			*end = i + 11;
		}
	}
	*cp = c;
	return true;
}

/* \u{H...} with u, at p[i] (the 'u'). */
static bool
u_brace(const char *p, size_t n, size_t i, uint32_t *cp, size_t *end)
{
	uint32_t c = 0;
	size_t k = i + 2;

	if (i + 2 >= n || p[i + 1] != '{' || !is_hex(p[k]))
		return false;
	for (; k < n && is_hex(p[k]); k++) {
		c = c * 16 + (uint32_t)hex_value(p[k]);
		if (c > 0x10ffff)
			return false;
	}
	if (k >= n || p[k] != '}')
		return false;
	*cp = c;
	*end = k + 1;
	return true;
}

/* A legacy octal escape at p[i] (the first digit): up to \377. */
static uint32_t
octal(const char *p, size_t n, size_t i, size_t *end)
{
	uint32_t c = (uint32_t)(p[i] - '0');
	size_t k = i + 1;

	if (k < n && p[k] >= '0' && p[k] <= '7') {
		c = c * 8 + (uint32_t)(p[k++] - '0');
		if (p[i] <= '3' && k < n && p[k] >= '0' && p[k] <= '7')
			c = c * 8 + (uint32_t)(p[k++] - '0');
	}
	*end = k;
	return c;
}

/* A group name at p[i] up to '>': its end (past '>') or 0. */
static size_t
group_name(const char *p, size_t n, size_t i)
{
	size_t k = i;

	for (; k < n && p[k] != '>'; k++) {
		unsigned char c = (unsigned char)p[k];

		if (!(c >= 0x80 || c == '$' || c == '_' ||
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (k > i && is_digit(c))))
			return 0;
	}
	return k < n && k > i ? k + 1 : 0;
}

/* The next '(' or ')' at or after p[i] that is syntax -- not escaped,
 * not inside a class ([)] and [^)] included); n when there is none. */
static size_t
next_paren(const char *p, size_t n, size_t i)
{
	bool cls = false;

	for (; i < n; i++) {
		if (p[i] == '\\') {
			i++;
		} else if (cls) {
			if (p[i] == ']')
				cls = false;
		} else if (p[i] == '[') {
			cls = true;
			if (i + 1 < n && p[i + 1] == '^')
				i++;
			if (i + 1 < n && p[i + 1] == ']') {
				i++;
				cls = false;
			}
		} else if (p[i] == '(' || p[i] == ')') {
			return i;
		}
	}
	return n;
}

/* The offset of the next capturing group's '(' in p[i..n) -- plain
 * "(" or a named "(?<name>", not a look-behind; n when there is none. */
static size_t
next_group(const char *p, size_t n, size_t i)
{
	for (i = next_paren(p, n, i); i < n; i = next_paren(p, n, i + 1))
		if (p[i] == '(' && (!(i + 1 < n && p[i + 1] == '?') ||
		    (i + 3 < n && p[i + 2] == '<' && p[i + 3] != '=' &&
		    p[i + 3] != '!')))
			return i;
	return n;
}

/* The offset of the ')' closing the group whose '(' is at p[i]; n when
 * it is not closed. */
static size_t
group_close(const char *p, size_t n, size_t i)
{
	size_t depth = 0;

	for (i = next_paren(p, n, i); i < n; i = next_paren(p, n, i + 1)) {
		if (p[i] == '(')
			depth++;
		else if (--depth == 0)
			return i;
	}
	return n;
}

/* Emulate the look-behind whose "(?<" is at t->p[i]: compile its body,
 * emit its callout, and keep the numbers of the groups inside it (they
 * are never set). */
static bool
emulate_behind(struct tr *t, size_t i)
{
	const char *p = t->p;
	size_t n = t->n, end = group_close(p, n, i), k, ncap = 0;
	struct jsregex_origin at = *t->at;
	struct jsregex_behind *b;
	char num[16];

	if (end == n)
		return fail(t, n, 0, MSG_JSREGEX_UNTERMINATED_GROUP);
	if (t->nbehind == MAX_BEHIND)
		return fail(t, i, end + 1 - i, MSG_JSREGEX_TOO_DEEP);
	if (t->nbehind == t->cbehind) {
		t->cbehind = t->cbehind ? 2 * t->cbehind : 4;
		t->behind = xrealloc(t->behind, t->cbehind *
		    sizeof(*t->behind));
	}
	/* Its body runs on its own: a reference to a group outside it
	 * would mean nothing there. */
	for (k = i + 4; k + 1 < end; k++) {
		if (p[k] != '\\')
			continue;
		if ((p[k + 1] >= '1' && p[k + 1] <= '9' && t->ngroups) ||
		    (p[k + 1] == 'k' && t->named))
			return fail(t, k, 2, MSG_JSREGEX_BEHIND_REF);
		k++;
	}
	b = &t->behind[t->nbehind];
	memset(b, 0, sizeof(*b));
	b->negative = p[i + 3] == '!';
	at.base += i + 4;
	if (!compile(t->run, &at, p + i + 4, end - i - 4, t->flags &
	    (JSREGEX_I | JSREGEX_M | JSREGEX_S | JSREGEX_U), &b->re, true)) {
		t->sub_failed = true;
		return false;
	}
	b->md = pcre2_match_data_create(1, NULL);
	if (!b->md)
		die("out of memory");
	t->nbehind++;
	snprintf(num, sizeof(num), "(?C%zu)", t->nbehind);
	emit(t, num, i);
	for (k = next_group(p, end, i + 4); k < end;
	    k = next_group(p, end, k + 1))
		ncap++;
	if (ncap) {
		emit(t, "(?:", i);
		for (k = 0; k < ncap; k++)
			emit(t, "()", i);
		emit(t, "){0}", i);
		t->opened += (uint32_t)ncap;
	}
	t->i = end + 1;
	return true;
}

/* Count capturing groups, collect their names. */
static void
count_groups(struct tr *t)
{
	const char *p = t->p;
	size_t n = t->n, i, k, nb = 0;
	uint32_t g = 0;

	for (i = next_group(p, n, 0); i < n; i = next_group(p, n, i + 1)) {
		g++;
		if (i + 1 < n && p[i + 1] == '?')
			t->named = true;
	}
	t->ngroups = g;
	t->names = xcalloc(g + 1, sizeof(*t->names));
	t->namebuf = xmalloc(n + 1);
	g = 0;
	for (i = next_group(p, n, 0); i < n; i = next_group(p, n, i + 1)) {
		g++;
		if (i + 1 < n && p[i + 1] == '?' &&
		    (k = group_name(p, n, i + 3)) != 0) {
			memcpy(t->namebuf + nb, p + i + 3, k - i - 4);
			t->names[g] = t->namebuf + nb;
			nb += k - i - 4;
			t->namebuf[nb++] = '\0';
		}
	}
}

static uint32_t
name_index(const struct tr *t, const char *s, size_t len)
{
	uint32_t g;

	for (g = 1; g <= t->ngroups; g++)
		if (t->names[g] && strlen(t->names[g]) == len &&
		    memcmp(t->names[g], s, len) == 0)
			return g;
	return 0;
}

/* A JS property \p{...} body p[0..n) in PCRE2's spelling, into b. */
static void
put_property(struct buf *b, int e, const char *p, size_t n)
{
	static const struct {
		const char *js, *pcre;
	} prefix[] = {
		{ "General_Category=", "" }, { "gc=", "" },
		{ "Script_Extensions=", "scx:" }, { "scx=", "" },
		{ "Script=", "sc:" }, { "sc=", "sc:" },
	};
	size_t k, l;

	buf_printf(b, "\\%c{", e);
	for (k = 0; k < LEN(prefix); k++) {
		l = strlen(prefix[k].js);
		if (n > l && memcmp(p, prefix[k].js, l) == 0) {
			buf_puts(b, strcmp(prefix[k].js, "scx=") == 0 ?
			    "scx:" : prefix[k].pcre);
			p += l;
			n -= l;
			break;
		}
	}
	buf_put(b, p, n);
	buf_putc(b, '}');
}

/*
 * One class atom at p[i] (after the '[' or a previous atom).  Sets
 * *cp to a code point, or *esc to the PCRE2 text of a class escape
 * (\d, \p{..}, or "s"/"S" for JS's space set).
 */
static bool
class_atom(struct tr *t, uint32_t *cp, const char **esc, char *escbuf,
    size_t escsz)
{
	const char *p = t->p;
	size_t n = t->n, i = t->i, end;
	uint32_t c;
	unsigned char e;

	*esc = NULL;
	if (p[i] != '\\') {
		end = utf8_decode(p + i, n - i, &c);
		if (end == 0) {
			c = (unsigned char)p[i];
			end = 1;
		}
		*cp = c;
		t->i = i + end;
		return true;
	}
	if (i + 1 >= n)
		return fail(t, i, 1, MSG_JSREGEX_TRAILING_BACKSLASH);
	e = (unsigned char)p[i + 1];
	t->i = i + 2;
	switch (e) {
	case 'd': case 'D': case 'w': case 'W':
		snprintf(escbuf, escsz, "\\%c", e);
		*esc = escbuf;
		return true;
	case 's': case 'S':
		*esc = e == 's' ? "s" : "S";
		return true;
	case 'b': *cp = 0x08; return true;
	case 'f': *cp = '\f'; return true;
	case 'n': *cp = '\n'; return true;
	case 'r': *cp = '\r'; return true;
	case 't': *cp = '\t'; return true;
	case 'v': *cp = 0x0b; return true;
	case '-': *cp = '-'; return true;
	case 'c':
		if (i + 2 < n && ((p[i + 2] >= 'a' && p[i + 2] <= 'z') ||
		    (p[i + 2] >= 'A' && p[i + 2] <= 'Z') ||
		    (!t->u && (is_digit(p[i + 2]) || p[i + 2] == '_')))) {
			*cp = (uint32_t)p[i + 2] % 32;
			t->i = i + 3;
			return true;
		}
		if (t->u)
			return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
		*cp = '\\';     /* the backslash itself; 'c' comes next */
		t->i = i + 1;
		return true;
	case 'x':
		if (i + 3 < n && is_hex(p[i + 2]) && is_hex(p[i + 3])) {
			*cp = (uint32_t)(hex_value(p[i + 2]) * 16 +
			    hex_value(p[i + 3]));
			t->i = i + 4;
			return true;
		}
		break;
	case 'u':
		if (t->u && u_brace(p, n, i + 1, cp, &end)) {
			t->i = end;
			return true;
		}
		if (u_escape(p, n, i + 1, cp, &end)) {
			t->i = end;
			return true;
		}
		break;
	case 'p': case 'P':
		if (!t->u)
			break;
		for (end = i + 3; end < n && p[end] != '}'; end++)
			;
		/* escbuf holds a name of any real property. */
		if (i + 2 >= n || p[i + 2] != '{' || end >= n ||
		    end - i > escsz - 16)
			return fail(t, i, 2, MSG_JSREGEX_BAD_PROPERTY);
		{
			struct buf b = BUF_INIT;

			put_property(&b, e, p + i + 3, end - i - 3);
			snprintf(escbuf, escsz, "%s", b.data);
			buf_free(&b);
		}
		*esc = escbuf;
		t->i = end + 1;
		return true;
	default:
		if (e >= '0' && e <= '9') {
			if (t->u) {
				if (e == '0' && !(i + 2 < n &&
				    is_digit(p[i + 2]))) {
					*cp = 0;
					return true;
				}
				return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
			}
			if (e >= '8') {
				*cp = e;
				return true;
			}
			*cp = octal(p, n, i + 1, &end);
			t->i = end;
			return true;
		}
		break;
	}
	if (t->u && !is_syntax(e))
		return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
	end = utf8_decode(p + i + 1, n - i - 1, &c);
	*cp = end ? c : e;
	t->i = i + 1 + (end ? end : 1);
	return true;
}

static void
put_range(struct buf *b, uint32_t lo, uint32_t hi, bool *any)
{
	/* Surrogates cannot occur in UTF-8 text: cut them out. */
	if (lo >= 0xd800 && lo <= 0xdfff)
		lo = 0xe000;
	if (hi >= 0xd800 && hi <= 0xdfff)
		hi = 0xd7ff;
	if (lo > hi) {
		if (lo == 0xe000 && hi == 0xd7ff)
			return;
		if (lo >= 0xe000 && hi <= 0xd7ff)
			return;
	}
	if (lo > hi)
		return;
	put_cp(b, lo);
	if (hi != lo) {
		buf_putc(b, '-');
		put_cp(b, hi);
	}
	*any = true;
}

static bool
class(struct tr *t)
{
	const char *p = t->p;
	size_t n = t->n, start = t->i, at;
	bool neg = false, any = false, has_s = false, has_S = false;
	struct buf body = BUF_INIT;
	char eb1[160], eb2[160];
	const char *e1, *e2;
	uint32_t c1, c2;

	t->i++;
	if (t->i < n && p[t->i] == '^') {
		neg = true;
		t->i++;
	}
	while (t->i < n && p[t->i] != ']') {
		at = t->i;
		if (!class_atom(t, &c1, &e1, eb1, sizeof(eb1)))
			goto err;
		if (t->i + 1 < n && p[t->i] == '-' && p[t->i + 1] != ']') {
			t->i++;
			if (!class_atom(t, &c2, &e2, eb2, sizeof(eb2)))
				goto err;
			if (e1 || e2) {
				if (t->u) {
					fail(t, at, t->i - at,
					    MSG_JSREGEX_CLASS_RANGE);
					goto err;
				}
				/* Annex B: the '-' is a literal. */
				if (e1 && (e1[0] == 's' || e1[0] == 'S'))
					*(e1[0] == 's' ? &has_s : &has_S) =
					    true;
				else if (e1)
					buf_puts(&body, e1), any = true;
				else
					put_range(&body, c1, c1, &any);
				buf_puts(&body, "\\-");
				if (e2 && (e2[0] == 's' || e2[0] == 'S'))
					*(e2[0] == 's' ? &has_s : &has_S) =
					    true;
				else if (e2)
					buf_puts(&body, e2), any = true;
				else
					put_range(&body, c2, c2, &any);
				continue;
			}
			if (c1 > c2) {
				fail(t, at, t->i - at,
				    MSG_JSREGEX_RANGE_ORDER);
				goto err;
			}
			put_range(&body, c1, c2, &any);
			continue;
		}
		if (e1 && e1[0] == 's')
			has_s = true;
		else if (e1 && e1[0] == 'S')
			has_S = true;
		else if (e1)
			buf_puts(&body, e1), any = true;
		else
			put_range(&body, c1, c1, &any);
	}
	if (t->i >= n) {
		fail(t, start, 1, MSG_JSREGEX_UNTERMINATED_CLASS);
		goto err;
	}
	t->i++;
	if (has_s && has_S) {
		/* [\s\S], the usual "anything": a plain class is faster
		 * than the alternation below. */
		emit(t, neg ? NEVER : ANY, start);
		buf_free(&body);
		t->canq = true;
		return true;
	}
	if (has_s) {
		buf_puts(&body, JS_SPACE);
		any = true;
	}
	if (has_S && !neg) {
		emit(t, "(?:", start);
		if (any) {
			emit(t, "[", start);
			emitn(t, body.data, body.len, start);
			emit(t, "]|", start);
		}
		emit(t, "[^" JS_SPACE "])", start);
	} else if (has_S) {
		/* Not in body and not in \S: a space not in body. */
		emit(t, "(?:", start);
		if (any) {
			emit(t, "(?![", start);
			emitn(t, body.data, body.len, start);
			emit(t, "])", start);
		}
		emit(t, "[" JS_SPACE "])", start);
	} else if (!any) {
		emit(t, neg ? ANY : NEVER, start);
	} else {
		emit(t, neg ? "[^" : "[", start);
		emitn(t, body.data, body.len, start);
		emit(t, "]", start);
	}
	buf_free(&body);
	t->canq = true;
	return true;
err:
	buf_free(&body);
	return false;
}

/* An escape outside a class, at p[i] (the backslash). */
static bool
escape(struct tr *t)
{
	const char *p = t->p;
	size_t n = t->n, i = t->i, end, k;
	uint32_t c, v;
	unsigned char e;
	char tmp[32];

	if (i + 1 >= n)
		return fail(t, i, 1, MSG_JSREGEX_TRAILING_BACKSLASH);
	e = (unsigned char)p[i + 1];
	t->i = i + 2;
	t->canq = true;
	switch (e) {
	case 'b': case 'B':
		emit(t, e == 'b' ? "\\b" : "\\B", i);
		t->canq = false;
		return true;
	case 'd': case 'D': case 'w': case 'W':
		snprintf(tmp, sizeof(tmp), "\\%c", e);
		emit(t, tmp, i);
		return true;
	case 's':
		emit(t, "[" JS_SPACE "]", i);
		return true;
	case 'S':
		emit(t, "[^" JS_SPACE "]", i);
		return true;
	case 'f': emit_cp(t, '\f', i); return true;
	case 'n': emit_cp(t, '\n', i); return true;
	case 'r': emit_cp(t, '\r', i); return true;
	case 't': emit_cp(t, '\t', i); return true;
	case 'v': emit_cp(t, 0x0b, i); return true;
	case 'c':
		if (i + 2 < n && ((p[i + 2] >= 'a' && p[i + 2] <= 'z') ||
		    (p[i + 2] >= 'A' && p[i + 2] <= 'Z'))) {
			emit_cp(t, (uint32_t)p[i + 2] % 32, i);
			t->i = i + 3;
			return true;
		}
		if (t->u)
			return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
		emit_cp(t, '\\', i);    /* "\c" is a backslash, then 'c' */
		t->i = i + 1;
		return true;
	case 'x':
		if (i + 3 < n && is_hex(p[i + 2]) && is_hex(p[i + 3])) {
			emit_cp(t, (uint32_t)(hex_value(p[i + 2]) * 16 +
			    hex_value(p[i + 3])), i);
			t->i = i + 4;
			return true;
		}
		break;
	case 'u':
		if (t->u && u_brace(p, n, i + 1, &c, &end)) {
			emit_cp(t, c, i);
			t->i = end;
			return true;
		}
		if (u_escape(p, n, i + 1, &c, &end)) {
			emit_cp(t, c, i);
			t->i = end;
			return true;
		}
		break;
	case 'k':
		if (!t->u && !t->named)
			break;
		if (i + 2 < n && p[i + 2] == '<' &&
		    (end = group_name(p, n, i + 3)) != 0 &&
		    (v = name_index(t, p + i + 3, end - i - 4)) != 0) {
			snprintf(tmp, sizeof(tmp), "\\g{%u}", (unsigned)v);
			emit(t, tmp, i);
			t->i = end;
			return true;
		}
		return fail(t, i, 2, MSG_JSREGEX_BAD_NAMED_REF);
	case 'p': case 'P':
		if (!t->u)
			break;
		for (end = i + 3; end < n && p[end] != '}'; end++)
			;
		if (i + 2 >= n || p[i + 2] != '{' || end >= n)
			return fail(t, i, 2, MSG_JSREGEX_BAD_PROPERTY);
		{
			struct buf b = BUF_INIT;

			put_property(&b, e, p + i + 3, end - i - 3);
			emitn(t, b.data, b.len, i);
			buf_free(&b);
		}
		t->i = end + 1;
		return true;
	default:
		break;
	}
	if (e == '0') {
		if (!(i + 2 < n && is_digit(p[i + 2]))) {
			emit_cp(t, 0, i);
			return true;
		}
		if (t->u)
			return fail(t, i, 3, MSG_JSREGEX_BAD_ESCAPE);
		emit_cp(t, octal(p, n, i + 1, &end), i);
		t->i = end;
		return true;
	}
	if (e >= '1' && e <= '9') {
		v = 0;
		for (k = i + 1; k < n && is_digit(p[k]); k++)
			if (v < 100000)
				v = v * 10 + (uint32_t)(p[k] - '0');
		if (v <= t->ngroups) {
			snprintf(tmp, sizeof(tmp), "\\g{%u}", (unsigned)v);
			emit(t, tmp, i);
			t->i = k;
			return true;
		}
		if (t->u)
			return fail(t, i, k - i, MSG_JSREGEX_BAD_BACKREF);
		if (e >= '8') {
			emit_cp(t, e, i);
			return true;
		}
		emit_cp(t, octal(p, n, i + 1, &end), i);
		t->i = end;
		return true;
	}
	if (t->u && !is_syntax(e) && e != '-')
		return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
	if (t->u && e == '-')
		return fail(t, i, 2, MSG_JSREGEX_BAD_ESCAPE);
	/* An identity escape: the character itself. */
	end = utf8_decode(p + i + 1, n - i - 1, &c);
	emit_cp(t, end ? c : e, i);
	t->i = i + 1 + (end ? end : 1);
	return true;
}

/* A {n}, {n,} or {n,m} at p[i]: its end, or 0 when it is not one. */
static size_t
braces(const char *p, size_t n, size_t i, unsigned long *lo,
    unsigned long *hi)
{
	size_t k = i + 1;

	*lo = 0;
	if (k >= n || !is_digit(p[k]))
		return 0;
	for (; k < n && is_digit(p[k]); k++)
		if (*lo < 1000000)
			*lo = *lo * 10 + (unsigned long)(p[k] - '0');
	*hi = *lo;
	if (k < n && p[k] == ',') {
		k++;
		*hi = (unsigned long)-1;
		if (k < n && is_digit(p[k])) {
			*hi = 0;
			for (; k < n && is_digit(p[k]); k++)
				if (*hi < 1000000)
					*hi = *hi * 10 +
					    (unsigned long)(p[k] - '0');
		}
	}
	return k < n && p[k] == '}' ? k + 1 : 0;
}

/* The group that opens at t->p[t->i]: plain, named, non-capturing,
 * look-ahead, look-behind (emulated or PCRE2's); its kind is pushed on
 * stack[*depth]. */
static bool
open_group(struct tr *t, unsigned char *stack, size_t *depth)
{
	const char *p = t->p;
	size_t n = t->n, i = t->i, end;

	if (*depth == MAX_NEST)
		return fail(t, i, 1, MSG_JSREGEX_TOO_DEEP);
	t->canq = false;
	if (i + 1 >= n || p[i + 1] != '?') {
		t->opened++;
		emit(t, "(", i);
		stack[(*depth)++] = G_CAP;
		t->i = i + 1;
	} else if (i + 2 < n && p[i + 2] == ':') {
		emit(t, "(?:", i);
		stack[(*depth)++] = G_NONCAP;
		t->i = i + 3;
	} else if (i + 2 < n && (p[i + 2] == '=' || p[i + 2] == '!')) {
		emitn(t, p + i, 3, i);
		stack[(*depth)++] = G_AHEAD;
		t->i = i + 3;
	} else if (i + 3 < n && p[i + 2] == '<' && (p[i + 3] == '=' ||
	    p[i + 3] == '!')) {
		if (t->emulate) {
			if (!emulate_behind(t, i))
				return false;
			t->canq = false;
			return true;
		}
		emitn(t, p + i, 4, i);
		stack[(*depth)++] = G_BEHIND;
		t->i = i + 4;
	} else if (i + 2 < n && p[i + 2] == '<' &&
	    (end = group_name(p, n, i + 3)) != 0) {
		/* The first group of this name must be this one. */
		if (name_index(t, p + i + 3, end - i - 4) != t->opened + 1)
			return fail(t, i, end - i, MSG_JSREGEX_DUP_NAME);
		t->opened++;
		emit(t, "(", i);
		stack[(*depth)++] = G_CAP;
		t->i = end;
	} else {
		return fail(t, i, 2, MSG_JSREGEX_BAD_GROUP);
	}
	return true;
}

static bool
translate(struct tr *t)
{
	const char *p = t->p;
	size_t n = t->n, i, end, k;
	unsigned char stack[MAX_NEST];
	size_t depth = 0;
	unsigned long lo, hi;
	uint32_t c;

	count_groups(t);
	t->canq = false;
	while (t->i < n) {
		i = t->i;
		switch (p[i]) {
		case '\\':
			if (!escape(t))
				return false;
			continue;
		case '[':
			if (!class(t))
				return false;
			continue;
		case '(':
			if (!open_group(t, stack, &depth))
				return false;
			continue;
		case ')':
			if (depth == 0)
				return fail(t, i, 1, MSG_JSREGEX_UNMATCHED);
			depth--;
			emit(t, ")", i);
			t->canq = stack[depth] == G_BEHIND ? false :
			    stack[depth] == G_AHEAD ? !t->u : true;
			t->i = i + 1;
			continue;
		case '|':
			emit(t, "|", i);
			t->canq = false;
			t->i = i + 1;
			continue;
		case '^':
			emit(t, t->m ? "(?<![^" JS_EOL "])" : "\\A", i);
			t->canq = false;
			t->i = i + 1;
			continue;
		case '$':
			emit(t, t->m ? "(?![^" JS_EOL "])" : "\\z", i);
			t->canq = false;
			t->i = i + 1;
			continue;
		case '.':
			emit(t, t->s ? ANY : "[^" JS_EOL "]", i);
			t->canq = true;
			t->i = i + 1;
			continue;
		case '*': case '+': case '?':
			if (!t->canq)
				return fail(t, i, 1,
				    MSG_JSREGEX_NOTHING_TO_REPEAT);
			emitn(t, p + i, 1, i);
			t->i = i + 1;
			goto lazy;
		case '{':
			if ((end = braces(p, n, i, &lo, &hi)) != 0) {
				if (!t->canq)
					return fail(t, i, end - i,
					    MSG_JSREGEX_NOTHING_TO_REPEAT);
				if (lo > hi)
					return fail(t, i, end - i,
					    MSG_JSREGEX_QUANT_ORDER);
				emitn(t, p + i, end - i, i);
				t->i = end;
				goto lazy;
			}
			FALLTHROUGH;
		case '}': case ']':
			if (t->u)
				return fail(t, i, 1, MSG_JSREGEX_LONE_BRACKET);
			emit_cp(t, (unsigned char)p[i], i);
			t->canq = true;
			t->i = i + 1;
			continue;
		default:
			k = utf8_decode(p + i, n - i, &c);
			if (k == 0)
				k = 1;
			if ((unsigned char)p[i] < 0x80)
				emit_cp(t, (unsigned char)p[i], i);
			else
				emitn(t, p + i, k, i);
			t->canq = true;
			t->i = i + k;
			continue;
		}
lazy:
		if (t->i < n && p[t->i] == '?') {
			emit(t, "?", t->i);
			t->i++;
		}
		t->canq = false;
	}
	if (depth)
		return fail(t, n, 0, MSG_JSREGEX_UNTERMINATED_GROUP);
	return true;
}

static bool
is_eol(const char *s, size_t n, size_t i, size_t *k)
{
	*k = 1;
	if (s[i] == '\n' || s[i] == '\r')
		return true;
	if (i + 2 < n && (unsigned char)s[i] == 0xe2 &&
	    (unsigned char)s[i + 1] == 0x80 &&
	    ((unsigned char)s[i + 2] == 0xa8 ||
	    (unsigned char)s[i + 2] == 0xa9)) {
		*k = 3;
		return true;
	}
	return false;
}

/*
 * SillyTavern's regexFromString matches the string against
 * /(\/?)(.+)\1([a-z]*)/i, unanchored, and takes the trailing letters as
 * flags only when they are a non-repeating subset of "gmixXsuUAJ";
 * otherwise the whole string is the pattern, without flags.  Since "."
 * stops at a line end, a bare pattern ends at its first line end.
 */
void
jsregex_split(const char *s, size_t len, struct jsregex_parts *out)
{
	static const char ok[] = "gmixXsuUAJ";
	size_t st, eol, e, f, k, i;
	bool seen[sizeof(ok)] = { false };
	const char *q;

	memset(out, 0, sizeof(*out));
	for (st = 0; st < len && is_eol(s, len, st, &k); st += k)
		;
	if (st >= len) {
		out->none = true;
		return;
	}
	for (eol = st; eol < len && !is_eol(s, len, eol, &k); eol++)
		;
	out->off = st;
	out->len = eol - st;
	if (s[st] != '/')
		return;
	for (e = eol; e > st + 1; e--)
		if (s[e - 1] == '/' && e - 1 >= st + 2)
			break;
	if (e <= st + 1)
		return;                 /* no closing '/': a bare pattern */
	e--;                            /* the closing '/' */
	for (f = e + 1; f < len && ((s[f] >= 'a' && s[f] <= 'z') ||
	    (s[f] >= 'A' && s[f] <= 'Z')); f++)
		;
	for (i = e + 1; i < f; i++) {
		q = strchr(ok, s[i]);
		if (!q || seen[q - ok]) {
			/* Not flags: the whole string is the pattern. */
			out->off = 0;
			out->len = len;
			out->not_flags = true;
			return;
		}
		seen[q - ok] = true;
	}
	out->off = st + 1;
	out->len = e - st - 1;
	for (i = e + 1; i < f; i++) {
		switch (s[i]) {
		case 'g': out->flags |= JSREGEX_G; break;
		case 'i': out->flags |= JSREGEX_I; break;
		case 'm': out->flags |= JSREGEX_M; break;
		case 's': out->flags |= JSREGEX_S; break;
		case 'u': out->flags |= JSREGEX_U; break;
		default: out->flags |= JSREGEX_INERT; break;
		}
	}
}

bool
jsregex_split_key(const char *s, size_t len, struct buf *pat,
    unsigned *flags)
{
	static const char ok[] = "gimsuy";
	size_t e, i;
	const char *q;
	unsigned f = 0, bit;

	if (len < 3 || s[0] != '/')
		return false;
	/* The lazy ([\w\W]+?): the first '/' after one character whose
	 * tail is only flag letters. */
	for (e = 2; e < len; e++) {
		if (s[e] != '/')
			continue;
		for (i = e + 1; i < len && s[i] && strchr(ok, s[i]); i++)
			;
		if (i == len)
			break;
	}
	if (e >= len)
		return false;
	/* An unescaped '/' inside: not a regex. */
	for (i = 1; i < e; i++)
		if (s[i] == '/' && (i == 1 || s[i - 1] != '\\'))
			return false;
	for (i = e + 1; i < len; i++) {
		q = strchr(ok, s[i]);
		bit = q[0] == 'g' ? JSREGEX_G : q[0] == 'i' ? JSREGEX_I :
		    q[0] == 'm' ? JSREGEX_M : q[0] == 's' ? JSREGEX_S :
		    q[0] == 'u' ? JSREGEX_U : JSREGEX_Y;
		if (f & bit)
			return false;   /* RegExp refuses "gg" */
		f |= bit;
	}
	for (i = 1; i < e; i++) {
		if (s[i] == '\\' && i + 1 < e && s[i + 1] == '/' &&
		    !(f & (1u << 31))) {
			buf_putc(pat, '/');
			f |= 1u << 31;  /* only the first one */
			i++;
			continue;
		}
		buf_putc(pat, s[i]);
	}
	*flags = f & ~(1u << 31);
	return true;
}

static void
tr_init(struct tr *t, struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct buf *out)
{
	memset(t, 0, sizeof(*t));
	t->run = run;
	t->at = at;
	t->p = pat;
	t->n = len;
	t->u = flags & JSREGEX_U;
	t->m = flags & JSREGEX_M;
	t->s = flags & JSREGEX_S;
	t->flags = flags;
	t->out = out;
}

static void
free_behinds(struct jsregex_behind *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		jsregex_free(&b[i].re);
		if (b[i].md)
			pcre2_match_data_free(b[i].md);
	}
	free(b);
}

static int body_callout(pcre2_callout_block *cb, void *data);

/* Look-behind k (1-based) of re at the callout's position: 0 when the
 * assertion holds, 1 to backtrack, a PCRE2 error to stop. */
static int
run_behind(struct jsregex *re, pcre2_callout_block *cb)
{
	struct jsregex_behind *b;
	int rc;

	if (cb->callout_number == 0 || cb->callout_number > re->nbehind)
		return 0;
	b = &re->behind[cb->callout_number - 1];
	if (b->re.jit_pending) {
		b->re.jit_pending = false;
		(void)pcre2_jit_compile(b->re.code, PCRE2_JIT_COMPLETE);
	}
	b->target = cb->current_position;
	pcre2_set_callout(b->re.mctx, body_callout, b);
	rc = pcre2_match(b->re.code, cb->subject, cb->subject_length, 0,
	    PCRE2_NO_UTF_CHECK, b->md, b->re.mctx);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
		return rc;
	return (rc >= 0) != b->negative ? 0 : 1;
}

/* An automatic callout (number 255, before each item): add the bytes
 * matched since the last one of this start position to re->scan, and
 * one for the callout itself, so that the callouts are bounded too. */
static int
scan_callout(struct jsregex *re, pcre2_callout_block *cb)
{
	if (cb->start_match != re->scan_start) {
		re->scan_start = cb->start_match;
		re->scan_at = cb->start_match;
	}
	re->scan++;
	if (cb->current_position > re->scan_at)
		re->scan += cb->current_position - re->scan_at;
	re->scan_at = cb->current_position;
	return re->scan > re->scan_limit ? PCRE2_ERROR_MATCHLIMIT : 0;
}

static int
outer_callout(pcre2_callout_block *cb, void *data)
{
	if (cb->callout_number == 255)
		return scan_callout(data, cb);
	return run_behind(data, cb);
}

static int
body_callout(pcre2_callout_block *cb, void *data)
{
	struct jsregex_behind *b = data;

	if (cb->callout_number == CALLOUT_START)
		return cb->start_match > b->target ? PCRE2_ERROR_NOMATCH : 0;
	if (cb->callout_number == CALLOUT_END)
		return cb->current_position == b->target ? 0 : 1;
	return run_behind(&b->re, cb);
}

bool
jsregex_translate(struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct buf *out)
{
	struct tr t;
	bool ok;

	tr_init(&t, run, at, pat, len, flags, out);
	ok = translate(&t);
	free(t.origin);
	free(t.names);
	free(t.namebuf);
	return ok;
}

/* Does the JavaScript pattern hold a look-ahead or look-behind?  Only
 * those are counted by callouts (jsregex.h: scan): a look-around can
 * read to the end of the text from every position without consuming
 * it, and callouts before every item would make every other pattern
 * twice as slow.  An escaped "\\(?=" counts too (only slower). */
static bool
has_lookaround(const char *pat, size_t len)
{
	size_t i;

	for (i = 0; i + 2 < len; i++)
		if (pat[i] == '(' && pat[i + 1] == '?' && (pat[i + 2] == '=' ||
		    pat[i + 2] == '!' || (pat[i + 2] == '<' && i + 3 < len &&
		    (pat[i + 3] == '=' || pat[i + 3] == '!'))))
			return true;
	return false;
}

/* Translate and compile; body: a look-behind's body, between the
 * callouts that pin its end (compiled without the optimisations that
 * would skip them).  Emulates the look-behinds when PCRE2 refuses one. */
static bool
compile(struct run *run, const struct jsregex_origin *at, const char *pat,
    size_t len, unsigned flags, struct jsregex *re, bool body)
{
	struct buf out = BUF_INIT;
	struct tr t;
	pcre2_code *code = NULL;
	int err;
	PCRE2_SIZE eoff;
	PCRE2_UCHAR msg[256];
	/* Not PCRE2_MATCH_INVALID_UTF: with JIT, 10.42 then fails to match
	 * \W and \S against non-ASCII characters. */
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_UNSET_BACKREF |
	    PCRE2_NEVER_BACKSLASH_C;
	size_t from, pre = body ? strlen("(?C254)(?:") : 0;
	bool emulate = false;

	memset(re, 0, sizeof(*re));
	re->flags = flags;
	if (flags & JSREGEX_I)
		opts |= PCRE2_CASELESS;
	if (flags & JSREGEX_Y)
		opts |= PCRE2_ANCHORED;
	if (body)
		opts |= PCRE2_NO_AUTO_POSSESS | PCRE2_NO_START_OPTIMIZE |
		    PCRE2_NO_DOTSTAR_ANCHOR;
	else if (has_lookaround(pat, len))
		opts |= PCRE2_AUTO_CALLOUT;     /* the scan count */
again:
	tr_init(&t, run, at, pat, len, flags, &out);
	t.emulate = emulate;
	if (body)
		buf_puts(&out, "(?C254)(?:");
	if (!translate(&t))
		goto fail;
	if (body)
		buf_puts(&out, ")(?C255)");
	code = pcre2_compile((PCRE2_SPTR)(out.data ? out.data : ""), out.len,
	    opts, &err, &eoff, NULL);
	if (!code && !emulate && (err ==
	    PCRE2_ERROR_LOOKBEHIND_NOT_FIXED_LENGTH ||
	    err == PCRE2_ERROR_LOOKBEHIND_TOO_COMPLICATED ||
	    err == PCRE2_ERROR_LOOKBEHIND_TOO_LONG)) {
		/* Again, with every look-behind run by a callout. */
		free(t.origin);
		free(t.names);
		free(t.namebuf);
		free_behinds(t.behind, t.nbehind);
		buf_reset(&out);
		emulate = true;
		goto again;
	}
	if (!code) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		eoff = eoff >= pre ? eoff - pre : 0;
		from = eoff < t.norigin ? t.origin[eoff] : len;
		diag_report(run, at->warn ? DIAG_WARNING : DIAG_ERROR,
		    at->src, where(at, from, from < len ? 1 : 0),
		    MSG_JSREGEX_PCRE2,
		    at->what, diag_shown(run, (const char *)msg,
		    strlen((const char *)msg)));
		goto fail;
	}
	re->code = code;
	/* No JIT: its match limit counts differently from the
	 * interpreter's, so the same input could pass on one machine and
	 * fail on another (strata(1), SECURITY). */
	re->jit_pending = false;
	re->mctx = pcre2_match_context_create(NULL);
	if (!re->mctx)
		die("out of memory");
	re->behind = t.behind;
	re->nbehind = t.nbehind;
	if (!body && !(opts & PCRE2_AUTO_CALLOUT) && t.nbehind == 0 &&
	    !(flags & JSREGEX_Y) && !(re->has_prefix = jsregex_prefix(pat,
	    len, flags & JSREGEX_I, false, &re->prefix)))
		re->has_starts = jsregex_start_bytes(out.data ? out.data : "",
		    out.len, opts, re->starts);
	jsregex_set_limits(re, JSREGEX_MATCH_LIMIT, JSREGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, JSREGEX_HEAP_LIMIT);
	re->ngroups = t.ngroups;
	re->names = t.names;
	re->namebuf = t.namebuf;
	re->has_names = t.named;
	free(t.origin);
	buf_free(&out);
	return true;
fail:
	free(t.origin);
	free(t.names);
	free(t.namebuf);
	free_behinds(t.behind, t.nbehind);
	buf_free(&out);
	return false;
}

bool
jsregex_compile(struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct jsregex *re)
{
	return compile(run, at, pat, len, flags, re, false);
}

void
jsregex_set_limits(struct jsregex *re, uint32_t match, uint32_t depth)
{
	size_t i;

	if (!re->mctx)
		return;
	pcre2_set_match_limit(re->mctx, match);
	pcre2_set_depth_limit(re->mctx, depth);
	re->scan_limit = match;
	for (i = 0; i < re->nbehind; i++)
		jsregex_set_limits(&re->behind[i].re, match, depth);
}

void
jsregex_free(struct jsregex *re)
{
	if (re->code)
		pcre2_code_free(re->code);
	if (re->mctx)
		pcre2_match_context_free(re->mctx);
	if (re->jitstack)
		pcre2_jit_stack_free(re->jitstack);
	free_behinds(re->behind, re->nbehind);
	free(re->names);
	free(re->namebuf);
	memset(re, 0, sizeof(*re));
}

void *
jsregex_match_data(uint32_t ngroups)
{
	pcre2_match_data *md = pcre2_match_data_create(ngroups + 1, NULL);

	if (!md)
		die("out of memory");
	return md;
}

void
jsregex_match_data_free(void *md)
{
	if (md)
		pcre2_match_data_free(md);
}

static enum jsregex_result attempt(struct jsregex *re, void *md,
    const char *subject, size_t len, size_t start, uint32_t options,
    size_t *ov);

/* A regex with start bytes (jsregex_start_bytes()): the whole regex
 * anchored at offset 0 and at each such byte, the first that does not
 * fail to match giving the answer, as an unanchored search would. */
static enum jsregex_result
at_starts(struct jsregex *re, void *md, const char *subject, size_t len,
    size_t start, size_t *ov)
{
	const unsigned char *s = (const unsigned char *)subject;
	enum jsregex_result r;
	size_t p;

	for (p = start; p < len; p++) {
		if (p > 0 && !(re->starts[s[p] >> 3] & (1u << (s[p] & 7))))
			continue;
		if (p > 0 && (s[p] & 0xC0) == 0x80)
			continue;       /* inside a character */
		r = attempt(re, md, subject, len, p, PCRE2_ANCHORED, ov);
		if (r != JSREGEX_NOMATCH)
			return r;
	}
	if (start == 0 && len == 0)
		return attempt(re, md, subject, len, 0, PCRE2_ANCHORED, ov);
	return JSREGEX_NOMATCH;
}

enum jsregex_result
jsregex_match(struct jsregex *re, void *md, const char *subject,
    size_t len, size_t start, size_t *ov)
{
	if (!re->code)
		return JSREGEX_NOMATCH;
	if (re->has_starts)
		return at_starts(re, md, subject, len, start, ov);
	return attempt(re, md, subject, len, start, 0, ov);
}

static enum jsregex_result
attempt(struct jsregex *re, void *md, const char *subject, size_t len,
    size_t start, uint32_t options, size_t *ov)
{
	int rc;
	uint32_t k;
	PCRE2_SIZE *v;

	if (re->jit_pending) {
		/* Without JIT (not built in, no executable memory) the
		 * interpreter gives the same matches. */
		re->jit_pending = false;
		(void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
	}
	/* The scan count and the emulated look-behinds find re where it
	 * is now. */
	re->scan = 0;
	re->scan_start = SIZE_MAX;
	pcre2_set_callout(re->mctx, outer_callout, re);
	if (re->has_prefix) {
		size_t at = jsregex_prefix_find(&re->prefix, subject, len,
		    start);

		if (at == SIZE_MAX)
			return JSREGEX_NOMATCH;
		start = at;
	}
	/* The caller checked the UTF-8 (jsregex_valid()), once per text
	 * rather than once per match. */
	rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start,
	    PCRE2_NO_UTF_CHECK | options, md, re->mctx);
	/* JIT code runs on PCRE2's 32 KB default stack until a match needs
	 * more; then on its own stack of up to 4 MB, the match run again
	 * (a match does not depend on the stack it ran on). */
	if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !re->jitstack &&
	    (re->jitstack = pcre2_jit_stack_create(32 * 1024,
	    4 * 1024 * 1024, NULL)) != NULL) {
		pcre2_jit_stack_assign(re->mctx, NULL, re->jitstack);
		rc = pcre2_match(re->code, (PCRE2_SPTR)subject, len, start,
		    PCRE2_NO_UTF_CHECK | options, md, re->mctx);
	}
	if (rc == PCRE2_ERROR_NOMATCH)
		return JSREGEX_NOMATCH;
	if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
	    rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT)
		return JSREGEX_LIMIT;
	if (rc < 0)
		return JSREGEX_FAIL;
	v = pcre2_get_ovector_pointer(md);
	for (k = 0; k < 2 * (re->ngroups + 1); k++)
		ov[k] = k < 2 * (uint32_t)rc ? v[k] : SIZE_MAX;
	return JSREGEX_MATCH;
}

void
jsregex_escape_value(const char *s, size_t len, struct buf *out)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case '\n': buf_puts(out, "\\n"); break;
		case '\r': buf_puts(out, "\\r"); break;
		case '\t': buf_puts(out, "\\t"); break;
		case '\v': buf_puts(out, "\\v"); break;
		case '\f': buf_puts(out, "\\f"); break;
		case '\0': buf_puts(out, "\\0"); break;
		default:
			if (strchr(".^$*+?{}[]\\/|()", s[i]))
				buf_putc(out, '\\');
			buf_putc(out, s[i]);
		}
	}
}

bool
jsregex_valid(const char *s, size_t len)
{
	size_t i = 0, k;
	uint32_t c;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = utf8_decode(s + i, len - i, &c)) == 0)
			return false;
		i += k;
	}
	return true;
}
