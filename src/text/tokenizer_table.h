/*
 * tokenizer_table: the layout of one encoding's BPE ranks as compiled into
 * strata.  tokgen writes these tables at build time from
 * ranks/NAME.tiktoken; they are read-only data with static storage, owned
 * by nobody and never freed.  Only tokenizer*.c and tokgen.c include this
 * header: both must agree on tokenizer_table_hash().
 *
 * Token r's bytes are bytes[off[r] .. off[r + 1]).  slot[] is an open-
 * addressing hash table (linear probing, at most half full) from a token's
 * bytes to its rank: a slot holds (tag << TOKENIZER_RANK_BITS) | rank,
 * where tag is the hash's high bits, or TOKENIZER_SLOT_EMPTY.
 *
 * A vocabulary whose ids start above 0 (Claude's: 0..4 are its added
 * special tokens) has first > 0, and the ids below it have no bytes.  A
 * vocabulary of Hugging Face merge rules (Claude's) has nmerges > 0: rule
 * r joins token merge_left[r] and token merge_right[r] into token
 * merge_base + r, and merge_slot[] is an open-addressing hash table (at
 * most half full) of the rules by tokenizer_pair_hash(left, right),
 * holding r or TOKENIZER_SLOT_EMPTY.  Such a vocabulary merges pairs by
 * their rule, not by the rank of their bytes (tokenizer_bpe.c).
 */
#ifndef TOKENIZER_TABLE_H
#define TOKENIZER_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define TOKENIZER_RANK_BITS	18
#define TOKENIZER_RANK_MASK	((UINT32_C(1) << TOKENIZER_RANK_BITS) - 1)
#define TOKENIZER_SLOT_EMPTY	UINT32_C(0xffffffff)

struct tokenizer_table {
	const unsigned char *bytes;
	const uint32_t *off;		/* ntokens + 1 entries */
	const uint32_t *slot;		/* mask + 1 entries */
	uint32_t byte_rank[256];	/* the rank of each single byte */
	uint32_t ntokens;
	uint32_t mask;
	uint32_t maxlen;		/* the longest token, in bytes */
	uint32_t first;			/* the lowest id that has bytes */
	const uint32_t *merge_left, *merge_right, *merge_slot;
	uint32_t nmerges, merge_mask, merge_base;
};

extern const struct tokenizer_table tokenizer_table_cl100k;
extern const struct tokenizer_table tokenizer_table_o200k;
extern const struct tokenizer_table tokenizer_table_claude;

/* FNV-1a, then murmur3's finaliser so that the low bits (the slot index)
 * and the high bits (the tag) both mix every byte. */
static inline uint32_t
tokenizer_table_hash(const unsigned char *p, size_t n)
{
	uint32_t h = UINT32_C(2166136261);
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT32_C(16777619);
	h ^= h >> 16;
	h *= UINT32_C(0x85ebca6b);
	h ^= h >> 13;
	h *= UINT32_C(0xc2b2ae35);
	h ^= h >> 16;
	return h;
}

/* The slot of merge rule (left, right): murmur3's finaliser over both. */
static inline uint32_t
tokenizer_pair_hash(uint32_t left, uint32_t right)
{
	uint32_t h = left * UINT32_C(0x9e3779b1) ^ right;

	h ^= h >> 16;
	h *= UINT32_C(0x85ebca6b);
	h ^= h >> 13;
	h *= UINT32_C(0xc2b2ae35);
	h ^= h >> 16;
	return h;
}

#endif
