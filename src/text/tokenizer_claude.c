/*
 * tokenizer_claude: Claude's tokenizer as SillyTavern runs it (tokenizer.h,
 * "Claude's tokenizer"): the added tokens, NFKC, GPT-2's pieces, the
 * merge rules.
 */
#include "text/tokenizer_int.h"

#include <stdlib.h>
#include <string.h>

#include "text/tokenizer_nfkc.h"
#include "base/util.h"

/* Ids 0 to 4, in that order. */
static const char *const added[] = {
	"<EOT>", "<META>", "<META_START>", "<META_END>", "<SOS>",
};

/* Hangul syllables, by Unicode's algorithm (chapter 3.12). */
#define S_BASE	0xac00
#define L_BASE	0x1100
#define V_BASE	0x1161
#define T_BASE	0x11a7
#define L_COUNT	19
#define V_COUNT	21
#define T_COUNT	28
#define N_COUNT	(V_COUNT * T_COUNT)
#define S_COUNT	(L_COUNT * N_COUNT)

/* A growable array of code points. */
struct cps {
	uint32_t *v;
	size_t n, cap;
};

static void
cps_add(struct cps *c, uint32_t cp)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 256;
		c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
	}
	c->v[c->n++] = cp;
}

static unsigned
ccc(uint32_t cp)
{
	size_t lo = 0, hi = LEN(nfkc_ccc), mid;

	if (cp < 0x300)
		return 0;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (nfkc_ccc[mid].cp == cp)
			return nfkc_ccc[mid].ccc;
		if (nfkc_ccc[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Append cp's full compatibility decomposition (or cp) to out. */
static void
decompose(uint32_t cp, struct cps *out)
{
	size_t lo = 0, hi = LEN(nfkc_decomp), mid, k;
	uint32_t s;

	if (cp - S_BASE < S_COUNT) {
		s = cp - S_BASE;
		cps_add(out, L_BASE + s / N_COUNT);
		cps_add(out, V_BASE + s % N_COUNT / T_COUNT);
		if (s % T_COUNT)
			cps_add(out, T_BASE + s % T_COUNT);
		return;
	}
	if (cp >= 0xa0)
		while (lo < hi) {
			mid = (lo + hi) / 2;
			if (nfkc_decomp[mid].cp == cp) {
				for (k = 0; k < nfkc_decomp[mid].len; k++)
					cps_add(out, nfkc_pool[
					    nfkc_decomp[mid].off + k]);
				return;
			}
			if (nfkc_decomp[mid].cp < cp)
				lo = mid + 1;
			else
				hi = mid;
		}
	cps_add(out, cp);
}

/* The primary composite of a then b, or 0. */
static uint32_t
compose(uint32_t a, uint32_t b)
{
	size_t lo = 0, hi = LEN(nfkc_comp), mid;

	if (a - L_BASE < L_COUNT && b - V_BASE < V_COUNT)
		return S_BASE + ((a - L_BASE) * V_COUNT + (b - V_BASE)) *
		    T_COUNT;
	if (a - S_BASE < S_COUNT && (a - S_BASE) % T_COUNT == 0 &&
	    b - T_BASE - 1 < T_COUNT - 1)
		return a + (b - T_BASE);
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (nfkc_comp[mid].first == a && nfkc_comp[mid].second == b)
			return nfkc_comp[mid].composite;
		if (nfkc_comp[mid].first < a || (nfkc_comp[mid].first == a &&
		    nfkc_comp[mid].second < b))
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Append code point cp to out as UTF-8. */
static size_t
put_utf8(char *out, uint32_t cp)
{
	unsigned char *o = (unsigned char *)out;

	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (unsigned char)(0xf0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * NFKC of valid UTF-8 s[0..len) (it has a byte >= 0x80), in a new string
 * whose length goes to *outlen; the caller frees.  Decompose fully, put
 * each run of marks in canonical order (a stable sort by class), then
 * compose as Unicode's algorithm does: a character joins the last
 * starter when nothing between blocks it (no character of its class or
 * higher, and no starter).
 */
static char *
nfkc(const char *s, size_t len, size_t *outlen)
{
	struct cps d = {0};
	size_t i = 0, k, j, starter = 0, o = 0;
	unsigned last, cc;
	uint32_t cp, c;
	char *out;

	while (i < len) {
		k = utf8_decode(s + i, len - i, &cp);
		if (k == 0) {   /* not met: the text was cleaned */
			k = 1;
			cp = 0xfffd;
		}
		decompose(cp, &d);
		i += k;
	}
	for (i = 1; i < d.n; i++) {
		if ((cc = ccc(d.v[i])) == 0)
			continue;
		for (j = i, c = d.v[i]; j > 0 && ccc(d.v[j - 1]) > cc; j--)
			d.v[j] = d.v[j - 1];
		d.v[j] = c;
	}
	if (d.n > 0) {
		last = ccc(d.v[0]) ? 256 : 0;
		for (i = 1, k = 1; i < d.n; i++) {
			c = d.v[i];
			cc = ccc(c);
			if ((last < cc || last == 0) &&
			    (cp = compose(d.v[starter], c)) != 0) {
				d.v[starter] = cp;
				continue;
			}
			if (cc == 0)
				starter = k;
			last = cc;
			d.v[k++] = c;
		}
		d.n = k;
	}
	out = xmalloc(4 * d.n + 1);
	for (i = 0; i < d.n; i++)
		o += put_utf8(out + o, d.v[i]);
	out[o] = '\0';
	*outlen = o;
	free(d.v);
	return out;
}

/* Normalize s[0..len) (text between added tokens), split it and merge
 * each piece; text the pattern leaves between two pieces (none, with its
 * classes) would be a piece too, as Hugging Face's split keeps it. */
static void
segment(struct tok_merge *m, const char *s, size_t len, struct tok_sink *out)
{
	size_t i, pos = 0, start, end;
	char *norm = NULL;

	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	if (i < len)
		s = norm = nfkc(s, len, &len);
	while (pos < len) {
		if (!tok_match(TOKENIZER_CLAUDE, s, len, pos, &start, &end)) {
			start = end = len;
		}
		if (start > pos)
			tok_encode_piece(m, TOKENIZER_CLAUDE,
			    (const unsigned char *)s + pos, start - pos, out);
		if (end == start) {
			size_t bad, k;

			if (end == len)
				break;
			/* No alternative matches the empty string. */
			k = tok_utf8_seq((const unsigned char *)s + end,
			    len - end, &bad);
			end += k ? k : 1;
		}
		tok_encode_piece(m, TOKENIZER_CLAUDE,
		    (const unsigned char *)s + start, end - start, out);
		pos = end;
	}
	free(norm);
}

void
tok_claude(const char *s, size_t len, struct tok_sink *out)
{
	struct tok_merge m = {0};
	size_t pos = 0, at, k, n = 0;

	for (at = 0; at < len; at++) {
		if (s[at] != '<')
			continue;
		for (k = 0; k < LEN(added); k++)
			if ((n = strlen(added[k])) <= len - at &&
			    memcmp(s + at, added[k], n) == 0)
				break;
		if (k == LEN(added))
			continue;
		segment(&m, s + pos, at - pos, out);
		tok_emit(out, (uint32_t)k);
		pos = at + n;
		at = pos - 1;
	}
	segment(&m, s + pos, len - pos, out);
	tok_merge_free(&m);
}
