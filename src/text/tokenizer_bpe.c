/*
 * tokenizer_bpe: merge one piece's bytes into tokens, lowest rank first
 * and leftmost on ties, with a heap (tokenizer.h says why and how), for
 * both kinds of vocabulary tokenizer_table.h describes: by the rank of the
 * joined bytes (tiktoken's encodings), or by the merge rule of the pair
 * of tokens (Hugging Face's BPE, Claude's).
 */
#include "text/tokenizer_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define NONE	TOK_NONE

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
} memos[TOKENIZER__COUNT][MEMO_SLOTS];
/* A slot holds 1 + the index of its piece in memos[kind], which fill in
 * order: a build touches the pages of the pieces it keeps, not pages
 * all over the 56 KB table (each faulted twice: a read of the zero page,
 * then its copy on write). */
static uint16_t memo_slot[TOKENIZER__COUNT][MEMO_SLOTS];       /* 0: none */
static uint16_t memo_n[TOKENIZER__COUNT];

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

void
tok_emit(struct tok_sink *out, uint32_t id)
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
heap_add(struct tok_merge *m, uint64_t key)
{
	if (m->hlen == m->hcap) {
		m->hcap = m->hcap ? 2 * m->hcap : 64;
		m->heap = xreallocarray(m->heap, m->hcap, sizeof(*m->heap));
	}
	m->heap[m->hlen++] = key;
}

static void
heap_push(struct tok_merge *m, uint64_t key)
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
sift_down(struct tok_merge *m, size_t i, uint64_t key)
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
heap_pop(struct tok_merge *m)
{
	uint64_t top = m->heap[0], last = m->heap[--m->hlen];

	if (m->hlen > 0)
		sift_down(m, 0, last);
	return top;
}

/* The rule that joins tokens a and b, or NONE. */
static uint32_t
rule_of(const struct tokenizer_table *t, uint32_t a, uint32_t b)
{
	uint32_t i, r;

	for (i = tokenizer_pair_hash(a, b) & t->merge_mask;
	    (r = t->merge_slot[i]) != TOKENIZER_SLOT_EMPTY;
	    i = (i + 1) & t->merge_mask)
		if (t->merge_left[r] == a && t->merge_right[r] == b)
			return r;
	return NONE;
}

/* The rank of joining part i (whose token is m->tok[i]) with the part
 * that follows it, p[j..pair_end), or NONE. */
static uint32_t
pair_rank(struct tok_merge *m, const struct tokenizer_table *t,
    const unsigned char *p, uint32_t i, uint32_t j, uint32_t pair_end)
{
	if (t->nmerges)
		return rule_of(t, m->tok[i], m->tok[j]);
	return rank_of(t, p + i, pair_end - i);
}

/* Look up the pair that part i starts, p[i..pair_end), and queue it. */
static void
queue_pair(struct tok_merge *m, const struct tokenizer_table *t,
    const unsigned char *p, uint32_t i, uint32_t pair_end)
{
	m->pair[i] = pair_rank(m, t, p, i, m->next[i], pair_end);
	if (m->pair[i] != NONE)
		heap_push(m, (uint64_t)m->pair[i] << 32 | i);
}

/* Merge p[0..n), n >= 2, lowest rank first and leftmost on ties, as
 * tiktoken does, but with a heap: O(n log n).  The tokens are then
 * m->tok[i] for i = 0, m->next[0], ... while i < n. */
static void
merge_piece(struct tok_merge *m, const struct tokenizer_table *t,
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
		if ((m->pair[i] = pair_rank(m, t, p, i, i + 1, i + 2)) != NONE)
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
		m->tok[i] = r + t->merge_base;
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
window_merge(struct tok_merge *m, const struct tokenizer_table *t,
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
join_valid(struct tok_merge *m, const struct tokenizer_table *t, uint32_t a,
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
encode_long(struct tok_merge *m, const struct tokenizer_table *t,
    const unsigned char *p, size_t n, struct tok_sink *out)
{
	struct window a = {0}, b = {0}, last = {0}, tmp;
	struct tok_merge mj = {0};
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
			tok_emit(out, a.tok[i]);
		pos += a.end[k - 1];
		tmp = a, a = b, b = tmp;
	}
	if (ok)
		for (i = 0; i < a.n; i++)
			tok_emit(out, a.tok[i]);
	else {
		out->count = count0;
		if (out->ids)
			out->ids->len = len0;
	}
	free(a.tok), free(a.end), free(b.tok), free(b.end);
	free(last.tok), free(last.end);
	tok_merge_free(&mj);
	return ok;
}

/* The tokens of the piece p[0..n): one, or those merge_piece() gives,
 * or those memo (the encoding's table) kept for these bytes. */
static void
encode_piece(struct tok_merge *m, const struct tokenizer_table *t,
    enum tokenizer_kind kind, const unsigned char *p, size_t n,
    struct tok_sink *out)
{
	uint16_t *slot;
	struct memo *e = NULL;
	uint32_t r, h, i, k;

	if (n == 0)
		return;
	if (n == 1) {
		tok_emit(out, t->byte_rank[p[0]]);
		return;
	}
	if (n <= t->maxlen || n <= MEMO_LEN) {
		h = tokenizer_table_hash(p, n);
		/* A piece that is a token is that token, by rank; by merge
		 * rules it is what the rules make of it. */
		if (n <= t->maxlen && !t->nmerges &&
		    (r = rank_hashed(t, p, n, h)) != NONE) {
			tok_emit(out, r);
			return;
		}
		if (n <= MEMO_LEN) {
			slot = &memo_slot[kind][h & (MEMO_SLOTS - 1)];
			if (!*slot)     /* at most one piece per slot */
				*slot = ++memo_n[kind];
			e = &memos[kind][*slot - 1];
			if (e->len == n && memcmp(e->bytes, p, n) == 0) {
				for (k = 0; k < e->nids; k++)
					tok_emit(out, e->ids[k]);
				return;
			}
		}
	}
	/* The windows' argument is made for merging by rank. */
	if (chunk_window && n > 2 * chunk_window && !t->nmerges &&
	    encode_long(m, t, p, n, out))
		return;
	if (n >= UINT32_MAX)
		die("tokenizer: a piece of %zu bytes is too long", n);
	merge_piece(m, t, p, (uint32_t)n);
	if (e)
		e->len = 0;	/* its ids are overwritten below */
	for (i = 0, k = 0; i < n; i = m->next[i], k++) {
		tok_emit(out, m->tok[i]);
		if (e && k < MEMO_IDS)
			e->ids[k] = m->tok[i];
	}
	if (e && k <= MEMO_IDS) {
		e->len = (unsigned char)n;
		e->nids = (unsigned char)k;
		memcpy(e->bytes, p, n);
	}
}


void
tok_encode_piece(struct tok_merge *m, enum tokenizer_kind kind,
    const unsigned char *p, size_t n, struct tok_sink *out)
{
	encode_piece(m, tok_encodings[kind].table, kind, p, n, out);
}

void
tok_merge_free(struct tok_merge *m)
{
	free(m->next);
	free(m->prev);
	free(m->tok);
	free(m->pair);
	free(m->heap);
	memset(m, 0, sizeof(*m));
}
