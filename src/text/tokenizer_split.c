/*
 * tokenizer_split: cut text into the pieces the split patterns match
 * (tokenizer.h, 1 to 5): by hand on ASCII text, by PCRE2 elsewhere; and
 * the UTF-8 clean-up every tokenizer does first.
 */
#include "text/tokenizer_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The compiled split patterns, filled when a text first has a non-ASCII
 * character the hand matcher does not take (ascii_cut()) and emptied by
 * tokenizer_release(). */
static struct compiled {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	size_t nfull;           /* matches of re so far */
	bool jitted;            /* re JIT-compiled */
} cache[TOKENIZER__COUNT];


/* The full pattern is JIT-compiled (which costs about as much as a
 * thousand interpreted matches) at this many matches, or at once when
 * the interpreter reports an error. */
#define FULL_JIT_AFTER 200



/* The full pattern, compiled when first needed (its Unicode classes make
 * it a costly compile); its match data's ovector. */
static PCRE2_SIZE *
get_full(struct compiled *c, enum tokenizer_kind kind)
{
	PCRE2_UCHAR msg[256];
	PCRE2_SIZE erroff;
	int err;

	if (c->re) {
		if (!c->jitted && ++c->nfull >= FULL_JIT_AFTER) {
			/* Without JIT (not built in, or no executable
			 * memory) the interpreter gives the same matches,
			 * only slower. */
			(void)pcre2_jit_compile(c->re, PCRE2_JIT_COMPLETE);
			c->jitted = true;
		}
		return pcre2_get_ovector_pointer(c->md);
	}
	c->re = pcre2_compile((PCRE2_SPTR)tok_encodings[kind].pattern,
	    PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &erroff,
	    NULL);
	if (!c->re) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		die("tokenizer: the %s pattern, at %zu: %s",
		    tok_encodings[kind].name, (size_t)erroff, (char *)msg);
	}
	c->md = pcre2_match_data_create_from_pattern(c->re, NULL);
	c->mc = pcre2_match_context_create(NULL);
	if (!c->md || !c->mc)
		die("tokenizer: out of memory");
	/* Each pattern is linear per match (at worst it backtracks over one
	 * run of spaces), so these only stop a runaway. */
	pcre2_set_match_limit(c->mc, 100000000);
	pcre2_set_depth_limit(c->mc, 100000);
	return pcre2_get_ovector_pointer(c->md);
}


void
tok_split_release(void)
{
	size_t i;

	for (i = 0; i < LEN(cache); i++) {
		pcre2_match_data_free(cache[i].md);
		pcre2_match_context_free(cache[i].mc);
		pcre2_code_free(cache[i].re);
		cache[i].md = NULL;
		cache[i].mc = NULL;
		cache[i].re = NULL;
		cache[i].nfull = 0;
		cache[i].jitted = false;
	}
}

size_t
tok_utf8_seq(const unsigned char *s, size_t n, size_t *bad)
{
	unsigned lo = 0x80, hi = 0xbf;
	size_t need, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		if (s[0] == 0xe0)
			lo = 0xa0;
		else if (s[0] == 0xed)
			hi = 0x9f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		if (s[0] == 0xf0)
			lo = 0x90;
		else if (s[0] == 0xf4)
			hi = 0x8f;
	} else {
		*bad = 1;
		return 0;
	}
	for (i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xbf;
	}
	return need + 1;
}

/* The first non-ASCII byte of s[i..len), or len: eight bytes at a time
 * (text is mostly ASCII, and this runs over all of it twice). */
static size_t
skip_ascii(const unsigned char *s, size_t i, size_t len)
{
	uint64_t w;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		if (w & UINT64_C(0x8080808080808080))
			break;
	}
	while (i < len && s[i] < 0x80)
		i++;
	return i;
}

char *
tok_utf8_clean(const char *s, size_t len, size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n, bad, o;
	char *out;

	while ((i = skip_ascii(u, i, len)) < len) {
		if ((n = tok_utf8_seq(u + i, len - i, &bad)) == 0)
			break;
		i += n;
	}
	if (i == len)
		return NULL;
	/* Each replaced byte grows to at most 3. */
	if (len > (SIZE_MAX - 1) / 3)
		die("tokenizer: input too large");
	out = xmalloc(3 * len + 1);
	memcpy(out, s, i);
	o = i;
	while (i < len) {
		if ((n = tok_utf8_seq(u + i, len - i, &bad)) > 0) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i += bad;
		}
	}
	*outlen = o;
	return out;
}

/*
 * The split patterns on ASCII text, by hand: each class cut to its ASCII
 * members (JavaScript's \s is \t \n \v \f \r and space, \p{L} A-Z a-z,
 * the o200k upper and lower classes A-Z and a-z, \p{N} 0-9), and each
 * alternative tried in order as a backtracking engine would, the ways
 * it could backtrack worked out below.  The text may also hold the
 * punctuation of U+2010-2027 and U+2030-205E (dashes, curly quotes, the
 * ellipsis, bullets...): in no class but [^\s\p{L}\p{N}] and its
 * supersets, so each is one more character like '!' (punct_len()).
 */
static bool
is_space(unsigned c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool
is_crlf(unsigned c)
{
	return c == '\r' || c == '\n';
}

static bool
is_lower(unsigned c)
{
	return c - 'a' < 26;
}

static bool
is_upper(unsigned c)
{
	return c - 'A' < 26;
}

static bool
is_letter(unsigned c)
{
	return (c | 0x20) - 'a' < 26;
}

static bool
is_digit(unsigned c)
{
	return c - '0' < 10;
}

/* [^\s\p{L}\p{N}] */
static bool
is_other(unsigned c)
{
	return !is_space(c) && !is_letter(c) && !is_digit(c);
}

/* 3 if s[i..n) starts with a character of U+2010-2027 or U+2030-205E
 * (E2 80 90-A7, E2 80 B0-BF, E2 81 80-9E), else 0.  All are in Unicode's
 * P or Sm categories, none is a JavaScript white space (U+2028, 2029,
 * 202F and 205F are left out), and so none is in \s, \p{L}, \p{N} or
 * \p{M} for either engine. */
static size_t
punct_len(const unsigned char *s, size_t i, size_t n)
{
	unsigned b;

	if (i + 2 >= n || s[i] != 0xe2)
		return 0;
	b = s[i + 2];
	if (s[i + 1] == 0x80)
		return (b >= 0x90 && b <= 0xa7) || (b >= 0xb0 && b <= 0xbf) ?
		    3 : 0;
	if (s[i + 1] == 0x81)
		return b >= 0x80 && b <= 0x9e ? 3 : 0;
	return 0;
}

/* The length of the [^\s\p{L}\p{N}] character at s[i] of s[0..n), or 0
 * if there is none there. */
static size_t
other_len(const unsigned char *s, size_t i, size_t n)
{
	return s[i] < 0x80 ? is_other(s[i]) : punct_len(s, i, n);
}

/* The length of the contraction at s[i..n), s[i] = '\'' ('s, 'RE,
 * 'lL...), or 0.  c | 0x20 is c's lower case for a letter, and no other
 * byte gives a lower-case letter. */
static size_t
contraction(const unsigned char *s, size_t i, size_t n)
{
	unsigned a, b;

	if (i + 1 >= n)
		return 0;
	a = s[i + 1] | 0x20;
	if (a == 's' || a == 't' || a == 'm' || a == 'd')
		return 2;
	if (i + 2 >= n)
		return 0;
	b = s[i + 2] | 0x20;
	return ((a == 'r' || a == 'v') && b == 'e') ||
	    (a == 'l' && b == 'l') ? 3 : 0;
}

/* [^\r\n\p{L}\p{N}]? before the letters of both patterns: the position
 * after it, taken when it can be, since giving it back never helps (the
 * letters would then have to start on it, and it is none). */
static size_t
letters_start(const unsigned char *s, size_t n, size_t pos)
{
	unsigned c = s[pos];

	if (c >= 0x80)
		return pos + punct_len(s, pos, n);
	return !is_crlf(c) && !is_letter(c) && !is_digit(c) ? pos + 1 : pos;
}

/* What both patterns have after their letters, at s[pos] of s[0..n):
 * \p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n]* (with slash, [\r\n/]*)
 * | \s*[\r\n]+ | \s+(?!\S) | \s+.  One of them matches: s[pos] is a
 * digit, a space or another character (else pos, no match, is given). */
static size_t
ascii_rest(const unsigned char *s, size_t n, size_t pos, bool slash)
{
	unsigned c = s[pos];
	size_t i, k, crlf_end;

	if (is_digit(c)) {
		for (i = pos + 1; i < n && i < pos + 3 && is_digit(s[i]); i++)
			;
		return i;
	}
	/* The space given back is not [^\s...] either. */
	i = c == ' ' ? pos + 1 : pos;
	if (i < n && (k = other_len(s, i, n)) > 0) {
		for (i += k; i < n && (k = other_len(s, i, n)) > 0; i += k)
			;
		while (i < n && (is_crlf(s[i]) || (slash && s[i] == '/')))
			i++;
		return i;
	}
	/* Only white space is left: c is one.  \s*[\r\n]+ backtracks to
	 * the run's last line break and ends after it; \s+(?!\S) ends at
	 * the run's end if nothing follows, else gives back its last
	 * character if that leaves one; \s+ takes the run. */
	crlf_end = 0;
	for (i = pos; i < n && is_space(s[i]); i++)
		if (is_crlf(s[i]))
			crlf_end = i + 1;
	if (crlf_end > 0)
		return crlf_end;
	return i == n || i - pos <= 1 ? i : i - 1;
}

/* CONTRACTION | [^\r\n\p{L}\p{N}]?\p{L}+ | the rest */
static size_t
ascii_cl100k(const unsigned char *s, size_t n, size_t pos)
{
	size_t i;

	if (s[pos] == '\'' && (i = contraction(s, pos, n)) > 0)
		return pos + i;
	i = letters_start(s, n, pos);
	if (i < n && is_letter(s[i])) {
		while (++i < n && is_letter(s[i]))
			;
		return i;
	}
	return ascii_rest(s, n, pos, false);
}

/*
 * [^\r\n\p{L}\p{N}]?UPPER*LOWER+CONTRACTION?, where giving back upper-
 * case letters would leave LOWER+ on one; then [^\r\n\p{L}\p{N}]?UPPER+
 * LOWER*CONTRACTION?, whose LOWER* is empty when the first failed; then
 * the rest.
 */
static size_t
ascii_o200k(const unsigned char *s, size_t n, size_t pos)
{
	size_t i = letters_start(s, n, pos), j;

	for (j = i; j < n && is_upper(s[j]); j++)
		;
	if (j < n && is_lower(s[j])) {
		while (++j < n && is_lower(s[j]))
			;
	} else if (j == i) {
		return ascii_rest(s, n, pos, true);
	}
	if (j < n && s[j] == '\'')
		j += contraction(s, j, n);
	return j;
}

size_t
tokenizer_ascii_piece(enum tokenizer_kind kind, const char *s, size_t len,
    size_t pos)
{
	const unsigned char *u = (const unsigned char *)s;

	return kind == TOKENIZER_CL100K ? ascii_cl100k(u, len, pos) :
	    ascii_o200k(u, len, pos);
}

/*
 * The first non-ASCII character at or after s[from] that is not one of
 * punct_len()'s (len if none), and in *space whether it is one of
 * JavaScript's non-ASCII white spaces.
 *
 * Why tokenizer_ascii_piece() may split s[pos..cut): it matches as the
 * full pattern with each class cut down to its ASCII members and
 * punct_len()'s characters (which are in the same classes in both), so
 * on the subject cut short at cut it takes the paths the full pattern
 * takes, but where a path reaches cut: there the full one reads another
 * non-ASCII character X.  A match is taken only if it ends before cut (or
 * cut is the end of s).
 * Every greedy run of the patterns (letters, digits, punctuation,
 * spaces) that reaches cut either succeeds there (its match ends at
 * cut: not taken) or fails one character before it (a match starting
 * there cannot end before cut); contractions and the other fixed parts
 * are ASCII, and fail on X as on the end.  The one path that can fail at
 * cut and give way to a shorter match is a white-space run followed by
 * a line break, (\s*[\r\n]+), when X is a white space: then the ASCII
 * matcher is not used before that X.
 */
static size_t
ascii_cut(const char *s, size_t from, size_t len, bool *space)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = skip_ascii(u, from, len);
	uint32_t cp;

	while (i < len && punct_len(u, i, len) > 0)
		i = skip_ascii(u, i + 3, len);
	*space = i < len && utf8_decode(s + i, len - i, &cp) > 0 &&
	    (cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	    cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	    cp == 0x3000 || cp == 0xfeff);
	return i;
}

bool
tok_match(enum tokenizer_kind kind, const char *s, size_t len, size_t pos,
    size_t *start, size_t *end)
{
	struct compiled *c = &cache[kind];
	PCRE2_SIZE *ov = get_full(c, kind);
	size_t n, bad;
	int rc;

	rc = pcre2_match(c->re, (PCRE2_SPTR)s, len, pos, PCRE2_NO_UTF_CHECK,
	    c->md, c->mc);
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH && !c->jitted) {
		/* What the JIT code would have given. */
		(void)pcre2_jit_compile(c->re, PCRE2_JIT_COMPLETE);
		c->jitted = true;
		rc = pcre2_match(c->re, (PCRE2_SPTR)s, len, pos,
		    PCRE2_NO_UTF_CHECK, c->md, c->mc);
	}
	if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
		rc = pcre2_match(c->re, (PCRE2_SPTR)s, len, pos,
		    PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, c->md, c->mc);
	if (rc == PCRE2_ERROR_NOMATCH)
		return false;
	if (rc < 0) {
		/* A limit: take one code point and go on. */
		n = tok_utf8_seq((const unsigned char *)s + pos, len - pos,
		    &bad);
		*start = pos;
		*end = pos + (n ? n : 1);
	} else {
		*start = ov[0];
		*end = ov[1];
	}
	return true;
}

void
tok_split_tiktoken(enum tokenizer_kind kind, const char *s, size_t len,
    struct tok_sink *out)
{
	struct tok_merge m = {0};
	size_t pos = 0, start, end, n, bad, cut;
	bool space;

	cut = ascii_cut(s, 0, len, &space);
	while (pos < len) {
		if (cut < pos)
			cut = ascii_cut(s, pos, len, &space);
		if (cut > pos && !space &&
		    (end = tokenizer_ascii_piece(kind, s, cut, pos)) > pos &&
		    (end < cut || cut == len)) {
			tok_encode_piece(&m, kind,
			    (const unsigned char *)s + pos, end - pos, out);
			pos = end;
			continue;
		}
		if (!tok_match(kind, s, len, pos, &start, &end))
			break;	/* as matchAll: unmatched text is dropped */
		if (end == start) {
			/* No alternative matches the empty string; should
			 * one, step over a code point as JavaScript does. */
			n = tok_utf8_seq((const unsigned char *)s + end,
			    len - end, &bad);
			pos = end + (n ? n : 1);
			continue;
		}
		tok_encode_piece(&m, kind, (const unsigned char *)s + start,
		    end - start, out);
		pos = end;
	}
	tok_merge_free(&m);
}
