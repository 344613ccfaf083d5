/*
 * tokenizer_sp: SentencePiece BPE encoding (tokenizer_sp.h), what the
 * sentencepiece library's Normalizer::Normalize(), bpe::Model::Encode()
 * and SentencePieceProcessor::Encode() do for the models spgen accepts:
 *
 *   1. Normalize (identity rules): an empty text stays empty; otherwise
 *      the dummy prefix U+2581 is put first when the model asks for it,
 *      and each space becomes U+2581 when it escapes white space.
 *   2. Cut the result into symbols: at each position the longest
 *      user-defined piece that begins there is one symbol, frozen (it
 *      never merges); else one UTF-8 character.
 *   3. Merge: of the adjacent pairs of unfrozen symbols whose bytes
 *      together are a piece of the model (normal or user-defined), the
 *      one whose piece has the highest score, the leftmost on ties, is
 *      joined into one symbol, until no pair is a piece.
 *   4. Each symbol is its piece's id; a symbol that is no piece is the
 *      unknown id, or with byte fallback one byte piece per byte.
 */
#include "text/tokenizer_int.h"
#include "text/tokenizer_sp.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define NONE	UINT32_MAX

/* "\xe2\x96\x81", U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's space. */
static const char SPACE[] = "\xe2\x96\x81";

struct pair {
	float score;
	uint32_t left, right, size;
};

struct sym {
	uint32_t start, len, prev, next;
	bool freeze;
};

static uint32_t
lookup(const struct tokenizer_sp *m, const unsigned char *p, size_t n)
{
	uint32_t h, id;
	size_t i;

	if (n > m->maxlen)
		return NONE;
	h = tokenizer_table_hash(p, n);
	for (i = h & m->mask; (id = m->slot[i]) != TOKENIZER_SLOT_EMPTY;
	    i = (i + 1) & m->mask)
		if (m->off[id + 1] - m->off[id] == n &&
		    memcmp(m->bytes + m->off[id], p, n) == 0)
			return id;
	return NONE;
}

/* The length of the longest user-defined piece at p[0..n), or 0. */
static size_t
user_piece(const struct tokenizer_sp *m, const unsigned char *p, size_t n)
{
	size_t k;
	uint32_t id;

	if (!(m->user_first[p[0] >> 3] & (1 << (p[0] & 7))))
		return 0;
	for (k = n < 64 ? n : 64; k > 0; k--)
		if ((m->user_lens >> (k - 1) & 1) &&
		    (id = lookup(m, p, k)) != NONE &&
		    m->type[id] == SP_USER_DEFINED)
			return k;
	return 0;
}

static bool
before(const struct pair *a, const struct pair *b)
{
	return a->score > b->score ||
	    (a->score == b->score && a->left < b->left);
}

struct heap {
	struct pair *v;
	size_t n, cap;
};

static void
heap_push(struct heap *h, struct pair x)
{
	size_t i, up;

	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = xreallocarray(h->v, h->cap, sizeof(*h->v));
	}
	for (i = h->n++; i > 0; i = up) {
		up = (i - 1) / 2;
		if (!before(&x, &h->v[up]))
			break;
		h->v[i] = h->v[up];
	}
	h->v[i] = x;
}

static struct pair
heap_pop(struct heap *h)
{
	struct pair top = h->v[0], x = h->v[--h->n];
	size_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!before(&h->v[c], &x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = x;
	return top;
}

/* The pair (left, right) onto the agenda when its bytes are a piece. */
static void
maybe_pair(const struct tokenizer_sp *m, const unsigned char *text,
    const struct sym *sy, uint32_t left, uint32_t right, struct heap *h)
{
	struct pair x;
	uint32_t id;

	if (left == NONE || right == NONE || sy[left].freeze ||
	    sy[right].freeze)
		return;
	x.size = sy[left].len + sy[right].len;
	if ((id = lookup(m, text + sy[left].start, x.size)) == NONE)
		return;
	x.score = m->score[id];
	x.left = left;
	x.right = right;
	heap_push(h, x);
}

void
tok_sp(const struct tokenizer_sp *m, const char *s, size_t len, bool dummy,
    struct tok_sink *out)
{
	static const unsigned char onechar[16] = {
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4
	};
	unsigned char *text;
	struct sym *sy;
	struct heap h = { NULL, 0, 0 };
	size_t n = 0, i, k, nsym = 0;
	uint32_t id, l, r;

	if (len == 0)
		return;
	text = xmalloc(3 * len + 3);
	if (dummy && m->add_dummy_prefix) {
		memcpy(text, SPACE, 3);
		n = 3;
	}
	for (i = 0; i < len; i++)
		if (s[i] == ' ' && m->escape_whitespaces) {
			memcpy(text + n, SPACE, 3);
			n += 3;
		} else
			text[n++] = (unsigned char)s[i];

	sy = xreallocarray(NULL, n, sizeof(*sy));
	for (i = 0; i < n; i += k) {
		bool freeze = false;

		if ((k = user_piece(m, text + i, n - i)) > 0)
			freeze = true;
		else if ((k = onechar[text[i] >> 4]) > n - i)
			k = n - i;
		sy[nsym].start = (uint32_t)i;
		sy[nsym].len = (uint32_t)k;
		sy[nsym].freeze = freeze;
		sy[nsym].prev = nsym == 0 ? NONE : (uint32_t)nsym - 1;
		sy[nsym].next = i + k < n ? (uint32_t)nsym + 1 : NONE;
		nsym++;
	}
	for (i = 1; i < nsym; i++)
		maybe_pair(m, text, sy, (uint32_t)i - 1, (uint32_t)i, &h);
	while (h.n > 0) {
		struct pair top = heap_pop(&h);

		l = top.left;
		r = top.right;
		/* A pair one of whose symbols has changed since is stale. */
		if (sy[l].len == 0 || sy[r].len == 0 ||
		    sy[l].len + sy[r].len != top.size)
			continue;
		sy[l].len += sy[r].len;
		sy[l].next = sy[r].next;
		if (sy[r].next != NONE)
			sy[sy[r].next].prev = l;
		sy[r].len = 0;
		maybe_pair(m, text, sy, sy[l].prev, l, &h);
		maybe_pair(m, text, sy, l, sy[l].next, &h);
	}
	for (l = nsym ? 0 : NONE; l != NONE; l = sy[l].next) {
		id = lookup(m, text + sy[l].start, sy[l].len);
		if (id == NONE)
			id = m->unk_id;
		if (id == m->unk_id && m->byte_fallback)
			for (i = 0; i < sy[l].len; i++)
				tok_emit(out, m->byte_id[text[sy[l].start + i]]);
		else
			tok_emit(out, id);
	}
	free(h.v);
	free(sy);
	free(text);
}
