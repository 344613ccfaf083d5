/*
 * tokenizer_int: what the tokenizer's files share, and only they
 * (tokenizer.h is the interface).  tokenizer.c has the encodings and the
 * public functions; tokenizer_split.c cuts text into pieces (the split
 * patterns, by hand on ASCII text and by PCRE2 elsewhere);
 * tokenizer_bpe.c merges a piece's bytes into tokens; tokenizer_claude.c
 * is Claude's tokenizer (special tokens, NFKC, the byte-level pieces).
 * The mutable state (compiled patterns, kept pieces, counted texts) is
 * each file's own, as tokenizer.h says; none is thread-safe.
 */
#ifndef TOKENIZER_INT_H
#define TOKENIZER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/tokenizer.h"
#include "text/tokenizer_table.h"

#define TOK_NONE	UINT32_MAX

/* One encoding: its name, its split pattern (PCRE2, UTF and UCP), its
 * vocabulary, and the special tokens whose text its count_chat() treats
 * as SillyTavern's tiktoken does (NULL-terminated; none for Claude). */
struct tok_encoding {
	const char *name;
	const char *pattern;
	const struct tokenizer_table *table;
	const char *special[6];
};

extern const struct tok_encoding tok_encodings[TOKENIZER__COUNT];

/* Where tokens go: appended to ids when it is not NULL, always counted. */
struct tok_sink {
	struct tokenizer_ids *ids;
	size_t count;
};

void tok_emit(struct tok_sink *out, uint32_t id);

/* Scratch for merging pieces, reused from piece to piece; start it as
 * {0} and free it with tok_merge_free(). */
struct tok_merge {
	uint32_t *next, *prev, *tok, *pair;
	uint64_t *heap;
	size_t cap, hlen, hcap;
};

void tok_merge_free(struct tok_merge *m);

/* The tokens of the piece p[0..n) of encoding kind into out. */
void tok_encode_piece(struct tok_merge *m, enum tokenizer_kind kind,
    const unsigned char *p, size_t n, struct tok_sink *out);

/* The length of the valid UTF-8 sequence at s[0..n), n > 0, or 0 with
 * *bad set to the length of the maximal invalid subpart that a WHATWG
 * decoder replaces by one U+FFFD. */
size_t tok_utf8_seq(const unsigned char *s, size_t n, size_t *bad);
/* NULL when s[0..len) is valid UTF-8, else a copy with each invalid
 * subpart replaced by U+FFFD, its length in *outlen; the caller frees. */
char *tok_utf8_clean(const char *s, size_t len, size_t *outlen);

/* The next piece of s[0..len) at or after pos by kind's full pattern:
 * true and [*start, *end), or false where the pattern matches nowhere.
 * On a PCRE2 error (a limit) one code point at pos is the piece. */
bool tok_match(enum tokenizer_kind kind, const char *s, size_t len,
    size_t pos, size_t *start, size_t *end);

/* Split valid UTF-8 s[0..len) as kind (cl100k or o200k) does and merge
 * each piece into out. */
void tok_split_tiktoken(enum tokenizer_kind kind, const char *s, size_t len,
    struct tok_sink *out);
/* Free the compiled patterns. */
void tok_split_release(void);

/* Claude's tokenizer on valid UTF-8 s[0..len), into out. */
void tok_claude(const char *s, size_t len, struct tok_sink *out);

#endif
