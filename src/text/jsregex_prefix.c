/*
 * jsregex_prefix: the literal every match of a pattern begins with, read
 * from the pattern's source, so that a search can skip to where it
 * occurs instead of letting PCRE2's interpreter try every position (it
 * only knows a first and a last code unit).  The rules are kept
 * conservative, so that they hold for JavaScript syntax and for PCRE2's
 * own (world-info keys are compiled as written):
 *
 *   - nothing when the pattern holds a '|' outside groups (an
 *     alternative could begin with anything), or something that makes
 *     telling so uncertain (\Q, a comment group, a POSIX class), or is
 *     sticky (anchored where it starts);
 *   - leading \b and \B are skipped (zero-width, they examine the text
 *     before the start offset, which PCRE2 sees as well);
 *   - then printable ASCII characters that are not syntax, and a
 *     backslash before ASCII punctuation, are the literal, until
 *     something else; a character followed by ?, * or a brace that is
 *     not {n}, {n,} or {n,m} with n >= 1 is left out, one followed by +
 *     or such a brace is taken (n times) and ends it;
 *   - a literal ended by \d not followed by ?, * or a brace also says
 *     that an ASCII digit follows it (\d is ASCII-only without UCP).
 *
 * Caseless patterns compare ASCII letters without case.  In UTF mode
 * PCRE2 also matches U+017F (long s) to s and U+212A (Kelvin sign) to k:
 * a caseless literal that holds s or k does not skip in a text holding
 * either.
 *
 * Skipping changes nothing else: PCRE2 counts its match limit per start
 * position, and a position that is not at the literal fails on the
 * literal's first character, so the match, the offsets and whether a
 * limit is hit are what a search from the first position would give.
 * Callers that count across start positions (automatic callouts) do not
 * use it.
 */
#define _GNU_SOURCE             /* memmem */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "text/jsregex.h"

#include <pcre2.h>
#include <string.h>

#include "base/buf.h"

static bool
is_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && !strchr("\\^$.|?*+()[]{}/", c);
}

static bool
is_punct(unsigned char c)
{
	return c > 0x20 && c < 0x7f && !((c >= '0' && c <= '9') ||
	    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_');
}

/* A brace quantifier at p[i] ('{'): its minimum, or -1 when it is none
 * of {n}, {n,}, {n,m}; *end is past the '}'. */
static long
brace_min(const char *p, size_t n, size_t i, size_t *end)
{
	size_t j = i + 1;
	long lo = 0;

	if (j >= n || p[j] < '0' || p[j] > '9')
		return -1;
	for (; j < n && p[j] >= '0' && p[j] <= '9'; j++)
		if (lo < 1000)
			lo = lo * 10 + (p[j] - '0');
	if (j < n && p[j] == ',')
		for (j++; j < n && p[j] >= '0' && p[j] <= '9'; j++)
			;
	if (j >= n || p[j] != '}')
		return -1;
	*end = j + 1;
	return lo;
}

/* A '|' outside groups and classes, or syntax that hides where they
 * are: no prefix can be trusted. */
static bool
alternatives(const char *p, size_t n)
{
	size_t i, depth = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\') {
			if (++i < n && (p[i] == 'Q' || p[i] == 'E'))
				return true;
		} else if (p[i] == '[') {
			for (i++; i < n && p[i] == '^'; i++)
				;
			if (i < n && p[i] == ']')
				continue;       /* [] or [^]: empty / any */
			for (; i < n && p[i] != ']'; i++) {
				if (p[i] == '\\')
					i++;
				else if (p[i] == '[' && i + 1 < n &&
				    strchr(":.=", p[i + 1]))
					return true;
			}
			if (i >= n)
				return true;
		} else if (p[i] == '(') {
			if (i + 2 < n && p[i + 1] == '?' && p[i + 2] == '#')
				return true;
			depth++;
		} else if (p[i] == ')') {
			if (depth == 0)
				return true;
			depth--;
		} else if (p[i] == '|' && depth == 0) {
			return true;
		}
	}
	return depth != 0;
}

bool
jsregex_prefix(const char *pat, size_t n, bool caseless, bool sticky,
    struct jsregex_prefix *out)
{
	size_t i = 0, j, end;
	long rep;

	memset(out, 0, sizeof(*out));
	if (sticky || alternatives(pat, n))
		return false;
	while (i + 1 < n && pat[i] == '\\' && (pat[i + 1] == 'b' ||
	    pat[i + 1] == 'B'))
		i += 2;
	while (i < n && out->len < sizeof(out->lit)) {
		unsigned char c = (unsigned char)pat[i];
		size_t next;

		if (is_plain(c))
			next = i + 1;
		else if (c == '\\' && i + 1 < n &&
		    is_punct((unsigned char)pat[i + 1]))
			c = (unsigned char)pat[i + 1], next = i + 2;
		else
			break;
		if (caseless && c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (next < n && (pat[next] == '?' || pat[next] == '*'))
			break;
		if (next < n && pat[next] == '{') {
			rep = brace_min(pat, n, next, &end);
			for (j = 0; j < (size_t)(rep > 0 ? rep : 0) &&
			    out->len < sizeof(out->lit); j++)
				out->lit[out->len++] = (char)c;
			i = n;          /* ended: nothing follows it for sure */
			break;
		}
		out->lit[out->len++] = (char)c;
		i = next;
		if (i < n && pat[i] == '+') {
			i = n;
			break;
		}
	}
	if (out->len == 0)
		return false;
	if (out->len < sizeof(out->lit) && i + 1 < n && pat[i] == '\\' &&
	    pat[i + 1] == 'd' && (i + 2 >= n || !strchr("?*{", pat[i + 2])))
		out->digit = true;
	out->caseless = caseless;
	for (j = 0; caseless && j < out->len; j++)
		if (out->lit[j] == 's' || out->lit[j] == 'k')
			out->sk = true;
	return true;
}

static bool
same_ci(const char *a, const char *lit, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)a[i];

		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (c != (unsigned char)lit[i])
			return false;
	}
	return true;
}

/* How common a byte is in prose (higher: rarer), to pick the byte of
 * the literal that memchr() looks for. */
static int
rarity(unsigned char c)
{
	static const char common[] = " etaoinshrdlcumwfgypbvkjxqz";
	const char *p;

	if (c >= 'A' && c <= 'Z')
		c = (unsigned char)(c - 'A' + 'a');
	p = c ? strchr(common, c) : NULL;
	return p ? (int)(p - common) : (int)sizeof(common);
}

/* The next byte at or after at that is c, or c in the other case when
 * caseless (c lower-cased), or NULL. */
static const char *
next_byte(const char *at, const char *end, unsigned char c, bool caseless)
{
	const char *a, *b;

	if (at >= end)
		return NULL;
	a = memchr(at, c, (size_t)(end - at));
	if (!caseless || c < 'a' || c > 'z')
		return a;
	b = memchr(at, c - 'a' + 'A', (size_t)(a ? a - at : end - at));
	return b ? b : a;
}

/* The first place at or after from where lit occurs, or NULL: memchr()
 * for its rarest byte, then the rest compared. */
static const char *
find_lit(const struct jsregex_prefix *p, const char *s, size_t len,
    size_t from)
{
	const char *end = s + len, *at;
	size_t r = 0, i;

	for (i = 1; i < p->len; i++)
		if (rarity((unsigned char)p->lit[i]) >
		    rarity((unsigned char)p->lit[r]))
			r = i;
	if (len - from < p->len)
		return NULL;
	for (at = s + from + r; (at = next_byte(at, end - (p->len - 1 - r),
	    (unsigned char)p->lit[r], p->caseless)) != NULL; at++) {
		const char *c = at - r;

		if (p->caseless ? same_ci(c, p->lit, p->len) :
		    memcmp(c, p->lit, p->len) == 0)
			return c;
	}
	return NULL;
}

/* Does s[0..len) hold the bytes t[0..n)? */
static bool
holds(const char *s, size_t len, const char *t, size_t n)
{
	const char *end = s + len, *at;

	for (at = s; (at = memchr(at, t[0], (size_t)(end - at))) != NULL;
	    at++)
		if ((size_t)(end - at) >= n && memcmp(at, t, n) == 0)
			return true;
	return false;
}

size_t
jsregex_prefix_find(const struct jsregex_prefix *p, const char *s,
    size_t len, size_t from)
{
	const char *at;

	if (from > len)
		return SIZE_MAX;
	if (p->sk && (holds(s, len, "\xC5\xBF", 2) ||
	    holds(s, len, "\xE2\x84\xAA", 3)))
		return from;    /* no skipping: PCRE2 folds these to s, k */
	while ((at = find_lit(p, s, len, from)) != NULL) {
		size_t off = (size_t)(at - s);

		if (!p->digit || (off + p->len < len && s[off + p->len] >= '0' &&
		    s[off + p->len] <= '9'))
			return off;
		from = off + 1;
	}
	return SIZE_MAX;
}

/*
 * jsregex_start_bytes(): the translator writes classes, groups and
 * escapes (\x{..}, \p{..}, \g{..}) whose insides hold no '|', '(' or
 * ')'; a POSIX class ("[:") is not looked into.  An alternative that
 * begins with \A can only match at offset 0 (and nowhere when the search
 * starts later); at any other offset the whole regex fails on it at
 * once, and on the others where their start bitmap says so, so only
 * offset 0 and the bitmap's bytes need a try.
 */
bool
jsregex_start_bytes(const char *pat, size_t n, uint32_t opts,
    uint8_t bits[32])
{
	struct buf rest = BUF_INIT;
	size_t i, alt = 0, depth = 0, nstart = 0, nrest = 0;
	pcre2_code *code;
	const uint8_t *bm = NULL;
	int err;
	PCRE2_SIZE eoff;

	if (memmem(pat, n, "[:", 2))
		return false;
	for (i = 0; i <= n; i++) {
		if (i < n && pat[i] == '\\') {
			i++;
			continue;
		}
		if (i < n && pat[i] == '[') {
			for (i++; i < n && pat[i] != ']'; i++)
				if (pat[i] == '\\')
					i++;
			continue;
		}
		if (i < n && pat[i] == '(')
			depth++;
		else if (i < n && pat[i] == ')' && depth > 0)
			depth--;
		if (i < n && !(pat[i] == '|' && depth == 0))
			continue;
		if (i - alt >= 2 && pat[alt] == '\\' && pat[alt + 1] == 'A') {
			nstart++;
		} else {
			if (nrest++)
				buf_putc(&rest, '|');
			buf_put(&rest, pat + alt, i - alt);
		}
		alt = i + 1;
	}
	if (nstart == 0 || nrest == 0 || depth != 0) {
		buf_free(&rest);
		return false;
	}
	code = pcre2_compile((PCRE2_SPTR)(rest.data ? rest.data : ""),
	    rest.len, opts, &err, &eoff, NULL);
	buf_free(&rest);
	if (!code)
		return false;
	if (pcre2_pattern_info(code, PCRE2_INFO_FIRSTBITMAP, &bm) != 0 || !bm) {
		pcre2_code_free(code);
		return false;
	}
	memcpy(bits, bm, 32);
	pcre2_code_free(code);
	return true;
}
