/*
 * tokenizer: split with the encoding's pattern (PCRE2), then merge each
 * piece's bytes by rank.  See tokenizer.h for what is matched and why.
 */
#include "text/tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "text/tokenizer_table.h"
#include "text/tokenizer_unicode.h"
#include "base/hash.h"
#include "base/util.h"

#define NONE	UINT32_MAX

/* JavaScript's \s: WhiteSpace and LineTerminator, ECMA-262 12.2 and 12.3
 * (Zs has not changed since Unicode 6.3).  \x{0b}, not \v, which PCRE2
 * reads as "any vertical space". */
#define WS "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}" \
	"\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
#define CONTRACTION "(?:'s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE" \
	"|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)"
#define SPACES "|[" WS "]*[\\r\\n]+|[" WS "]+(?![^" WS "])|[" WS "]+"
/* Each \p{X} with the code points JavaScript has in X and PCRE2 does not
 * yet (tokenizer_unicode.h). */
#define LN "\\p{L}\\p{N}" UNI_L UNI_N
#define LETTERS "[\\p{L}" UNI_L "]"
#define DIGITS "[\\p{N}" UNI_N "]"
#define UPPER "[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}" \
	UNI_Lu UNI_Lt UNI_Lm UNI_Lo UNI_M "]"
#define LOWER "[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}" UNI_Ll UNI_Lm UNI_Lo UNI_M "]"

/* The patterns run past C's 4095-byte minimum; GCC and Clang take them. */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
#endif
static const struct encoding {
	const char *name;
	const char *pattern;
	const struct tokenizer_table *table;
	const char *special[6];
} encodings[] = {
	[TOKENIZER_CL100K] = {
		"cl100k_base",
		CONTRACTION
		"|[^\\r\\n" LN "]?" LETTERS "+"
		"|" DIGITS "{1,3}"
		"| ?[^" WS LN "]+[\\r\\n]*"
		SPACES,
		&tokenizer_table_cl100k,
		{ "<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>",
		  "<|fim_suffix|>", "<|endofprompt|>", NULL },
	},
	[TOKENIZER_O200K] = {
		"o200k_base",
		"[^\\r\\n" LN "]?" UPPER "*" LOWER "+" CONTRACTION "?"
		"|[^\\r\\n" LN "]?" UPPER "+" LOWER "*" CONTRACTION "?"
		"|" DIGITS "{1,3}"
		"| ?[^" WS LN "]+[\\r\\n/]*"
		SPACES,
		&tokenizer_table_o200k,
		{ "<|endoftext|>", "<|endofprompt|>", NULL },
	},
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The compiled split patterns, filled when a text first has a non-ASCII
 * character the hand matcher does not take (ascii_cut()) and emptied by
 * tokenizer_release(). */
static struct compiled {
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mc;
	size_t nfull;           /* matches of re so far */
	bool jitted;            /* re JIT-compiled */
} cache[LEN(encodings)];

/*
 * The ids of pieces that are not one token, kept by their bytes: real
 * text repeats its words, and merging a piece by rank costs thousands of
 * instructions where finding it here costs a hash and a compare.  One
 * table per encoding, direct-mapped (a piece replaces whatever held its
 * slot), so its memory is fixed: MEMO_SLOTS slots of MEMO_LEN bytes and
 * MEMO_IDS ids each.  Longer pieces, and pieces of more tokens, are not
 * kept.  Like cache[], it is mutable state, filled by use; unlike it,
 * it owns no memory.
 */
#define MEMO_LEN	22
#define MEMO_IDS	8
#define MEMO_SLOTS	1024

static struct memo {
	unsigned char len;      /* 0: empty; a kept piece has 2 or more */
	unsigned char nids;
	unsigned char bytes[MEMO_LEN];
	uint32_t ids[MEMO_IDS];
} memos[LEN(encodings)][MEMO_SLOTS];

/*
 * The counts of texts of COUNTED_MIN bytes or more, by their bytes (and
 * encoding), so that a text a build counts again (a world-info entry for
 * its budget and then in its message, a card field in the prompt and the
 * debug view) is tokenized once.  Open addressing on SipHash; each slot
 * owns a copy of its text, compared in full on a hit.  At most
 * COUNTED_SLOTS * 3 / 4 texts and COUNTED_BYTES bytes are kept; beyond
 * that texts are counted without being kept.  Freed by
 * tokenizer_release().  Shorter texts cost less to count than to hash.
 */
#define COUNTED_MIN	64
#define COUNTED_SLOTS	1024
#define COUNTED_BYTES	((size_t)8 << 20)

static struct counted {
	char *text;             /* NULL: empty slot */
	size_t len, count;
	uint64_t hash;
	enum tokenizer_kind kind;
} counted[COUNTED_SLOTS];
static size_t counted_n, counted_bytes;

/* The full pattern is JIT-compiled (which costs about as much as a
 * thousand interpreted matches) at this many matches, or at once when
 * the interpreter reports an error. */
#define FULL_JIT_AFTER 200

/* Where tokens go: appended to ids when it is not NULL, always counted. */
struct sink {
	struct tokenizer_ids *ids;
	size_t count;
};

/* Scratch for merging one piece of n bytes.  Parts are named by the
 * offset of their first byte; part i ends where next[i] starts (n for the
 * last).  pair[i] is the rank of part i joined with next[i], or NONE.  The
 * heap holds (rank << 32 | i) for every pair when it was formed; an entry
 * whose rank is no longer pair[i] is stale and skipped. */
struct merge {
	uint32_t *next, *prev, *tok, *pair;
	uint64_t *heap;
	size_t cap, hlen, hcap;
};

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
	c->re = pcre2_compile((PCRE2_SPTR)encodings[kind].pattern,
	    PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &erroff,
	    NULL);
	if (!c->re) {
		pcre2_get_error_message(err, msg, sizeof(msg));
		die("tokenizer: the %s pattern, at %zu: %s",
		    encodings[kind].name, (size_t)erroff, (char *)msg);
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
tokenizer_release(void)
{
	size_t i;

	for (i = 0; i < COUNTED_SLOTS; i++) {
		free(counted[i].text);
		counted[i].text = NULL;
	}
	counted_n = counted_bytes = 0;
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

bool
tokenizer_by_name(const char *name, enum tokenizer_kind *kind)
{
	size_t i;

	for (i = 0; i < LEN(encodings); i++)
		if (strcmp(encodings[i].name, name) == 0) {
			*kind = (enum tokenizer_kind)i;
			return true;
		}
	return false;
}

const char *
tokenizer_name(enum tokenizer_kind kind)
{
	return encodings[kind].name;
}

enum tokenizer_kind
tokenizer_for_model(const char *model)
{
	static const char *const o200k[] = {
		"o1-preview", "o1-mini", "o3-mini", "gpt-5", "o3", "o4-mini",
		"gpt-4o", "chatgpt-4o-latest", "gpt-4.1", "gpt-4.5",
	};
	size_t i;

	if (!model)
		return TOKENIZER_CL100K;
	if (strcmp(model, "o1") == 0)
		return TOKENIZER_O200K;
	for (i = 0; i < LEN(o200k); i++)
		if (strstr(model, o200k[i]))
			return TOKENIZER_O200K;
	return TOKENIZER_CL100K;
}

bool
tokenizer_model_known(const char *model)
{
	static const char *const family[] = {
		"gpt-3.5", "gpt-4", "gpt-5", "chatgpt-",
	};
	static const char *const reasoning[] = { "o1", "o3", "o4" };
	size_t i, n;

	if (!model)
		return false;
	if (strncmp(model, "openai/", 7) == 0)  /* a router's prefix */
		model += 7;
	for (i = 0; i < LEN(family); i++)
		if (strncmp(model, family[i], strlen(family[i])) == 0)
			return true;
	for (i = 0; i < LEN(reasoning); i++) {
		n = strlen(reasoning[i]);
		if (strncmp(model, reasoning[i], n) == 0 &&
		    (model[n] == '\0' || model[n] == '-'))
			return true;
	}
	return false;
}

/* The rank of the token whose bytes are p[0..n), 2 <= n <= t->maxlen,
 * whose tokenizer_table_hash() is h, or NONE. */
static uint32_t
rank_hashed(const struct tokenizer_table *t, const unsigned char *p,
    size_t n, uint32_t h)
{
	uint32_t tag, s, r, i;

	tag = h >> TOKENIZER_RANK_BITS;
	for (i = h & t->mask; (s = t->slot[i]) != TOKENIZER_SLOT_EMPTY;
	    i = (i + 1) & t->mask) {
		if (s >> TOKENIZER_RANK_BITS != tag)
			continue;
		r = s & TOKENIZER_RANK_MASK;
		if (t->off[r + 1] - t->off[r] == n &&
		    memcmp(t->bytes + t->off[r], p, n) == 0)
			return r;
	}
	return NONE;
}

/* The rank of the token whose bytes are p[0..n), or NONE. */
static uint32_t
rank_of(const struct tokenizer_table *t, const unsigned char *p, size_t n)
{
	if (n > t->maxlen)
		return NONE;
	if (n == 1)
		return t->byte_rank[p[0]];
	return rank_hashed(t, p, n, tokenizer_table_hash(p, n));
}

static void
emit(struct sink *out, uint32_t id)
{
	struct tokenizer_ids *ids = out->ids;

	out->count++;
	if (!ids)
		return;
	if (ids->len == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 64;
		ids->v = xreallocarray(ids->v, ids->cap, sizeof(*ids->v));
	}
	ids->v[ids->len++] = id;
}

static void
heap_add(struct merge *m, uint64_t key)
{
	if (m->hlen == m->hcap) {
		m->hcap = m->hcap ? 2 * m->hcap : 64;
		m->heap = xreallocarray(m->heap, m->hcap, sizeof(*m->heap));
	}
	m->heap[m->hlen++] = key;
}

static void
heap_push(struct merge *m, uint64_t key)
{
	size_t i, up;

	heap_add(m, key);
	for (i = m->hlen - 1; i > 0; i = up) {
		up = (i - 1) / 2;
		if (m->heap[up] <= key)
			break;
		m->heap[i] = m->heap[up];
	}
	m->heap[i] = key;
}

/* Put key at i, or below it, restoring the heap order under i. */
static void
sift_down(struct merge *m, size_t i, uint64_t key)
{
	size_t c;

	while ((c = 2 * i + 1) < m->hlen) {
		if (c + 1 < m->hlen && m->heap[c + 1] < m->heap[c])
			c++;
		if (key <= m->heap[c])
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	m->heap[i] = key;
}

static uint64_t
heap_pop(struct merge *m)
{
	uint64_t top = m->heap[0], last = m->heap[--m->hlen];

	if (m->hlen > 0)
		sift_down(m, 0, last);
	return top;
}

/* Look up the pair that part i starts, p[i..pair_end), and queue it. */
static void
queue_pair(struct merge *m, const struct tokenizer_table *t,
    const unsigned char *p, uint32_t i, uint32_t pair_end)
{
	m->pair[i] = rank_of(t, p + i, pair_end - i);
	if (m->pair[i] != NONE)
		heap_push(m, (uint64_t)m->pair[i] << 32 | i);
}

/* Merge p[0..n), n >= 2, lowest rank first and leftmost on ties, as
 * tiktoken does, but with a heap: O(n log n).  The tokens are then
 * m->tok[i] for i = 0, m->next[0], ... while i < n. */
static void
merge_piece(struct merge *m, const struct tokenizer_table *t,
    const unsigned char *p, uint32_t n)
{
	uint32_t i, j, k, r;
	uint64_t key;

	if (n > m->cap) {
		m->cap = n;
		m->next = xreallocarray(m->next, n, sizeof(*m->next));
		m->prev = xreallocarray(m->prev, n, sizeof(*m->prev));
		m->tok = xreallocarray(m->tok, n, sizeof(*m->tok));
		m->pair = xreallocarray(m->pair, n, sizeof(*m->pair));
	}
	m->hlen = 0;
	for (i = 0; i < n; i++) {
		m->next[i] = i + 1;
		m->prev[i] = i - 1;
		m->tok[i] = t->byte_rank[p[i]];
		m->pair[i] = NONE;
	}
	/* The first pairs go in unordered, then make a heap in O(n). */
	for (i = 0; i + 1 < n; i++)
		if ((m->pair[i] = rank_of(t, p + i, 2)) != NONE)
			heap_add(m, (uint64_t)m->pair[i] << 32 | i);
	for (i = (uint32_t)(m->hlen / 2); i-- > 0;)
		sift_down(m, i, m->heap[i]);
	while (m->hlen > 0) {
		key = heap_pop(m);
		r = (uint32_t)(key >> 32);
		i = (uint32_t)key;
		if (m->pair[i] != r)
			continue;
		j = m->next[i];
		k = m->next[j];
		m->tok[i] = r;
		m->next[i] = k;
		m->pair[j] = NONE;
		if (k < n) {
			m->prev[k] = i;
			queue_pair(m, t, p, i, m->next[k]);
		} else {
			m->pair[i] = NONE;
		}
		if (i > 0)
			queue_pair(m, t, p, m->prev[i], k);
	}
}

/*
 * Long pieces (a megabyte of one letter, a run of CJK, base64 without a
 * slash) are merged in windows, so that their cost is linear and their
 * scratch memory fixed, with the result merge_piece() gives on the whole
 * piece.  Why that is exact (the facts are those of BPE in general, as
 * github.com/github/rust-gems/crates/bpe explains them): call a token
 * sequence valid when merging its bytes gives it back.  (a) A run of
 * tokens taken from a valid sequence is valid: merging never joined
 * anything across its ends.  (b) Valid A and valid B whose join (the
 * last token of A, the first of B) is itself valid join into a valid
 * A B.  (c) A text has exactly one valid sequence.  So: merge the window
 * W = p[pos..pos+window), keep its tokens up to the last one that ends
 * in W's first half (valid by (a)), merge the next window from there and
 * check the join by merging the two tokens' bytes; a valid join extends
 * the valid sequence (b), and the last window ends the piece, so by (c)
 * the tokens are merge_piece()'s.  A join that is not valid moves the
 * cut one token back and tries again; should none of the tokens in the
 * last 2 x maxlen bytes before it give a valid join (no input met in
 * the tests does that), the piece is merged whole, as before.
 * chunk_window is 0 (never) or at least 64; tokenizer_chunking() sets it
 * for the tests.
 */
#define CHUNK_WINDOW	8192
static size_t chunk_window = CHUNK_WINDOW;

void
tokenizer_chunking(size_t window)
{
	chunk_window = window == 0 ? 0 : window < 64 ? 64 : window;
}

/* The tokens of one window, each with the offset (from the window's
 * start) where it ends. */
struct window {
	uint32_t *tok, *end;
	size_t n, cap;
	const unsigned char *src;	/* last: the bytes merged, len of them */
	size_t len;
};

static void
window_grow(struct window *w, size_t n)
{
	if (n > w->cap) {
		w->cap = n;
		w->tok = xreallocarray(w->tok, n, sizeof(*w->tok));
		w->end = xreallocarray(w->end, n, sizeof(*w->end));
	}
}

/* The tokens of p[0..n) into w; last holds the window merged before
 * (its bytes at last->src), which a piece of one repeated pattern (a
 * megabyte of "x") gives again and again: then it is copied, not
 * merged. */
static void
window_merge(struct merge *m, const struct tokenizer_table *t,
    const unsigned char *p, size_t n, struct window *w, struct window *last)
{
	uint32_t i;

	window_grow(w, n);
	if (last->src && last->len == n && memcmp(last->src, p, n) == 0) {
		memcpy(w->tok, last->tok, last->n * sizeof(*w->tok));
		memcpy(w->end, last->end, last->n * sizeof(*w->end));
		w->n = last->n;
		return;
	}
	w->n = 0;
	if (n == 1) {
		w->tok[0] = t->byte_rank[p[0]];
		w->end[0] = 1;
		w->n = 1;
		return;
	}
	merge_piece(m, t, p, (uint32_t)n);
	for (i = 0; i < n; i = m->next[i]) {
		w->tok[w->n] = m->tok[i];
		w->end[w->n++] = m->next[i];
	}
	window_grow(last, n);
	memcpy(last->tok, w->tok, w->n * sizeof(*w->tok));
	memcpy(last->end, w->end, w->n * sizeof(*w->end));
	last->n = w->n;
	last->src = p;
	last->len = n;
}

/* Whether tokens a then b are what merging their bytes gives. */
static bool
join_valid(struct merge *m, const struct tokenizer_table *t, uint32_t a,
    uint32_t b)
{
	unsigned char buf[2 * 256];
	size_t la = t->off[a + 1] - t->off[a], lb = t->off[b + 1] - t->off[b];
	uint32_t j;

	if (la + lb > sizeof(buf))
		return false;
	memcpy(buf, t->bytes + t->off[a], la);
	memcpy(buf + la, t->bytes + t->off[b], lb);
	merge_piece(m, t, buf, (uint32_t)(la + lb));
	j = m->next[0];
	return m->tok[0] == a && j == la && m->tok[j] == b &&
	    m->next[j] == la + lb;
}

/* p[0..n), n > 2 x chunk_window, window by window into out; false (out
 * as it was) if a cut found no valid join. */
static bool
encode_long(struct merge *m, const struct tokenizer_table *t,
    const unsigned char *p, size_t n, struct sink *out)
{
	struct window a = {0}, b = {0}, last = {0}, tmp;
	struct merge mj = {0};
	size_t count0 = out->count, len0 = out->ids ? out->ids->len : 0;
	size_t pos = 0, k, cut, lo, i;
	bool ok = true;

	window_merge(m, t, p, chunk_window, &a, &last);
	while (pos + chunk_window < n) {
		/* The last token of a that ends in its first half, at or
		 * before which a cut may go, back to 2 x maxlen bytes. */
		for (k = a.n; k > 1 && a.end[k - 1] > chunk_window / 2; k--)
			;
		lo = a.end[k - 1] > 2 * (size_t)t->maxlen + 1 ?
		    a.end[k - 1] - 2 * (size_t)t->maxlen - 1 : 1;
		for (; k > 0 && a.end[k - 1] >= lo; k--) {
			cut = pos + a.end[k - 1];
			window_merge(m, t, p + cut, n - cut < chunk_window ?
			    n - cut : chunk_window, &b, &last);
			if (join_valid(&mj, t, a.tok[k - 1], b.tok[0]))
				break;
		}
		if (k == 0 || a.end[k - 1] < lo) {
			ok = false;
			break;
		}
		for (i = 0; i < k; i++)
			emit(out, a.tok[i]);
		pos += a.end[k - 1];
		tmp = a, a = b, b = tmp;
	}
	if (ok)
		for (i = 0; i < a.n; i++)
			emit(out, a.tok[i]);
	else {
		out->count = count0;
		if (out->ids)
			out->ids->len = len0;
	}
	free(a.tok), free(a.end), free(b.tok), free(b.end);
	free(last.tok), free(last.end);
	free(mj.next), free(mj.prev), free(mj.tok), free(mj.pair);
	free(mj.heap);
	return ok;
}

/* The tokens of the piece p[0..n): one, or those merge_piece() gives,
 * or those memo (the encoding's table) kept for these bytes. */
static void
encode_piece(struct merge *m, const struct tokenizer_table *t,
    struct memo *memo, const unsigned char *p, size_t n, struct sink *out)
{
	struct memo *e = NULL;
	uint32_t r, h, i, k;

	if (n == 0)
		return;
	if (n == 1) {
		emit(out, t->byte_rank[p[0]]);
		return;
	}
	if (n <= t->maxlen || n <= MEMO_LEN) {
		h = tokenizer_table_hash(p, n);
		if (n <= t->maxlen &&
		    (r = rank_hashed(t, p, n, h)) != NONE) {
			emit(out, r);
			return;
		}
		if (n <= MEMO_LEN) {
			e = &memo[h & (MEMO_SLOTS - 1)];
			if (e->len == n && memcmp(e->bytes, p, n) == 0) {
				for (k = 0; k < e->nids; k++)
					emit(out, e->ids[k]);
				return;
			}
		}
	}
	if (chunk_window && n > 2 * chunk_window &&
	    encode_long(m, t, p, n, out))
		return;
	if (n >= UINT32_MAX)
		die("tokenizer: a piece of %zu bytes is too long", n);
	merge_piece(m, t, p, (uint32_t)n);
	if (e)
		e->len = 0;	/* its ids are overwritten below */
	for (i = 0, k = 0; i < n; i = m->next[i], k++) {
		emit(out, m->tok[i]);
		if (e && k < MEMO_IDS)
			e->ids[k] = m->tok[i];
	}
	if (e && k <= MEMO_IDS) {
		e->len = (unsigned char)n;
		e->nids = (unsigned char)k;
		memcpy(e->bytes, p, n);
	}
}

/* The length of the valid UTF-8 sequence at s[0..n), n > 0, or 0 with
 * *bad set to the length of the maximal invalid subpart that a WHATWG
 * decoder replaces by one U+FFFD. */
static size_t
utf8_seq(const unsigned char *s, size_t n, size_t *bad)
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

/* NULL when s[0..len) is valid UTF-8, else a copy with each invalid
 * subpart replaced by U+FFFD, its length in *outlen; the caller frees. */
static char *
utf8_clean(const char *s, size_t len, size_t *outlen)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n, bad, o;
	char *out;

	while ((i = skip_ascii(u, i, len)) < len) {
		if ((n = utf8_seq(u + i, len - i, &bad)) == 0)
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
		if ((n = utf8_seq(u + i, len - i, &bad)) > 0) {
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

static void
tokenize(enum tokenizer_kind kind, const char *s, size_t len,
    struct sink *out)
{
	const struct tokenizer_table *t = encodings[kind].table;
	struct compiled *c = &cache[kind];
	struct merge m = {0};
	PCRE2_SIZE *ov;
	size_t pos = 0, start, end, n, bad, cut;
	bool space;
	char *clean;
	int rc;

	if ((clean = utf8_clean(s, len, &len)) != NULL)
		s = clean;
	cut = ascii_cut(s, 0, len, &space);
	while (pos < len) {
		if (cut < pos)
			cut = ascii_cut(s, pos, len, &space);
		if (cut > pos && !space &&
		    (end = tokenizer_ascii_piece(kind, s, cut, pos)) > pos &&
		    (end < cut || cut == len)) {
			encode_piece(&m, t, memos[kind],
			    (const unsigned char *)s + pos, end - pos, out);
			pos = end;
			continue;
		}
		ov = get_full(c, kind);
		rc = pcre2_match(c->re, (PCRE2_SPTR)s, len, pos,
		    PCRE2_NO_UTF_CHECK, c->md, c->mc);
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
			break;	/* as matchAll: unmatched text is dropped */
		if (rc < 0) {
			/* A limit: take one code point and go on. */
			start = pos;
			n = utf8_seq((const unsigned char *)s + pos,
			    len - pos, &bad);
			end = pos + (n ? n : 1);
		} else {
			start = ov[0];
			end = ov[1];
		}
		if (end == start) {
			/* No alternative matches the empty string; should
			 * one, step over a code point as JavaScript does. */
			n = utf8_seq((const unsigned char *)s + end,
			    len - end, &bad);
			pos = end + (n ? n : 1);
			continue;
		}
		encode_piece(&m, t, memos[kind],
		    (const unsigned char *)s + start, end - start, out);
		pos = end;
	}
	free(m.next);
	free(m.prev);
	free(m.tok);
	free(m.pair);
	free(m.heap);
	free(clean);
}

size_t
tokenizer_count(enum tokenizer_kind kind, const char *s, size_t len)
{
	struct sink out = { NULL, 0 };
	struct counted *c = NULL;
	uint64_t h = 0;
	size_t i;

	if (len >= COUNTED_MIN) {
		h = hash_keyed(s, len);
		for (i = h & (COUNTED_SLOTS - 1); counted[i].text;
		    i = (i + 1) & (COUNTED_SLOTS - 1))
			if (counted[i].hash == h && counted[i].len == len &&
			    counted[i].kind == kind &&
			    memcmp(counted[i].text, s, len) == 0)
				return counted[i].count;
		if (counted_n < COUNTED_SLOTS / 4 * 3 &&
		    len <= COUNTED_BYTES - counted_bytes)
			c = &counted[i];
	}
	tokenize(kind, s, len, &out);
	if (c) {
		c->text = xmalloc(len);
		memcpy(c->text, s, len);
		c->len = len;
		c->count = out.count;
		c->hash = h;
		c->kind = kind;
		counted_n++;
		counted_bytes += len;
	}
	return out.count;
}

void
tokenizer_encode(enum tokenizer_kind kind, const char *s, size_t len,
    struct tokenizer_ids *ids)
{
	struct sink out = { ids, 0 };

	tokenize(kind, s, len, &out);
}

void
tokenizer_ids_free(struct tokenizer_ids *ids)
{
	free(ids->v);
	ids->v = NULL;
	ids->len = ids->cap = 0;
}

const char *
tokenizer_token(enum tokenizer_kind kind, uint32_t id, size_t *len)
{
	const struct tokenizer_table *t = encodings[kind].table;

	if (id >= t->ntokens)
		return NULL;
	*len = t->off[id + 1] - t->off[id];
	return (const char *)t->bytes + t->off[id];
}

static bool
has_special(enum tokenizer_kind kind, const char *s)
{
	const char *const *sp;

	for (sp = encodings[kind].special; *sp; sp++)
		if (strstr(s, *sp))
			return true;
	return false;
}

size_t
tokenizer_count_chat(const char *model,
    const struct tokenizer_message *msgs, size_t n)
{
	enum tokenizer_kind kind = tokenizer_for_model(model);
	bool turbo0301 = model && strstr(model, "gpt-3.5-turbo-0301");
	long per_message = turbo0301 ? 4 : 3, per_name = turbo0301 ? -1 : 1;
	long total = 3;
	size_t i;

	for (i = 0; i < n; i++) {
		total += per_message;
		if (has_special(kind, msgs[i].role))
			continue;
		total += (long)tokenizer_count(kind, msgs[i].role,
		    strlen(msgs[i].role));
		if (has_special(kind, msgs[i].content))
			continue;
		total += (long)tokenizer_count(kind, msgs[i].content,
		    strlen(msgs[i].content));
		if (!msgs[i].name || has_special(kind, msgs[i].name))
			continue;
		total += (long)tokenizer_count(kind, msgs[i].name,
		    strlen(msgs[i].name)) + per_name;
	}
	if (turbo0301)
		total += 9;
	return total > 0 ? (size_t)total : 0;
}

/* Scripts written without spaces, where a character is about a token. */
bool
tokenizer_wide(uint32_t c)
{
	return (c >= 0x2e80 && c <= 0x9fff) ||  /* radicals .. CJK ideographs */
	    (c >= 0xac00 && c <= 0xd7af) ||     /* Hangul syllables */
	    (c >= 0xf900 && c <= 0xfaff) ||     /* compatibility ideographs */
	    (c >= 0xff00 && c <= 0xffef) ||     /* full-width forms */
	    (c >= 0x20000 && c <= 0x3ffff);     /* extension planes */
}

size_t
tokenizer_estimate(const char *s, size_t len)
{
	size_t i = 0, k, wide = 0, other = 0;
	uint32_t c;

	while (i < len) {
		k = utf8_decode(s + i, len - i, &c);
		if (k == 0) {
			k = 1;
			c = 0xfffd;
		}
		if (tokenizer_wide(c))
			wide++;
		else
			other++;
		i += k;
	}
	return wide + (other + 3) / 4;
}
