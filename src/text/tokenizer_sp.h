/*
 * tokenizer_sp: SentencePiece byte-pair-encoding models (Llama 2's,
 * Mistral's, Yi's: ranks/NAME.model) as compiled into strata, and how a text
 * is encoded with one, as the sentencepiece library (in SillyTavern 1.15:
 * @agnai/sentencepiece-js 1.1.1, its C++ code in WebAssembly) encodes it
 * with EncodeAsIds(): no BOS or EOS id.
 *
 * spgen writes each struct tokenizer_sp at build time from the model's
 * protocol-buffer file; the tables are read-only data with static storage,
 * owned by nobody and never freed, so nothing is decoded when strata
 * starts or when it first counts.  Only tokenizer*.c and spgen.c include
 * this header.
 *
 * Piece i's bytes are bytes[off[i] .. off[i + 1]), its score score[i],
 * its type type[i] (SP_NORMAL ...: the model's own numbers).  slot[] is
 * an open-addressing hash table (tokenizer_table_hash(), linear probing,
 * at most half full) of the pieces the library merges into and looks up
 * (its pieces_ map: the normal and the user-defined ones), holding the
 * id or TOKENIZER_SLOT_EMPTY.  user_first[] marks the bytes a
 * user-defined piece begins with and user_lens bit k - 1 the byte lengths
 * k (1..64) user-defined pieces have.
 *
 * spgen refuses a model that needs what this encoder does not do: a
 * model type other than BPE, a normalization rule or charsmap other
 * than the identity, remove_extra_whitespaces, treat_whitespace_as_suffix,
 * unused pieces, a byte piece missing, a user-defined piece longer than
 * 64 bytes.
 */
#ifndef TOKENIZER_SP_H
#define TOKENIZER_SP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	SP_NORMAL = 1,
	SP_UNKNOWN = 2,
	SP_CONTROL = 3,
	SP_USER_DEFINED = 4,
	SP_UNUSED = 5,
	SP_BYTE = 6
};

struct tokenizer_sp {
	const unsigned char *bytes;
	const uint32_t *off;            /* npieces + 1 entries */
	const float *score;
	const unsigned char *type;
	const uint32_t *slot;           /* mask + 1 entries */
	uint32_t npieces, mask, maxlen;
	uint32_t unk_id;
	uint32_t byte_id[256];          /* the id of <0xXX> */
	unsigned char user_first[32];   /* a bit per first byte */
	uint64_t user_lens;
	bool add_dummy_prefix, escape_whitespaces, byte_fallback;
};

extern const struct tokenizer_sp tokenizer_sp_llama;
extern const struct tokenizer_sp tokenizer_sp_mistral;
extern const struct tokenizer_sp tokenizer_sp_yi;

struct tok_sink;

/* Encode valid UTF-8 s[0..len) with model m into out.  dummy: add the
 * model's dummy prefix (a text of its own); false for text that continues
 * one (tokenizer_count_more()). */
void tok_sp(const struct tokenizer_sp *m, const char *s, size_t len,
    bool dummy, struct tok_sink *out);

#endif
