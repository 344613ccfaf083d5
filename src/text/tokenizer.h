/*
 * tokenizer: exact byte-pair-encoding token counts for OpenAI's cl100k_base
 * and o200k_base, giving the ids the npm package js-tiktoken 1.0.21 gives
 * for encode(text, [], []), that is, with special-token text such as
 * "<|endoftext|>" tokenized as ordinary text.  The rank tables are
 * compiled in (ranks/, tokgen.c); the split patterns are compiled by PCRE2
 * once per encoding, when a text first has a non-ASCII character other
 * than some punctuation (ASCII text is split by hand, see 5 below), and
 * kept until tokenizer_release() (which also empties the count cache).
 * That cache, a fixed-size table of the ids of recent pieces that are
 * not one token (kept by their bytes, see below), and the counts of texts
 * of 64 bytes or more already counted (by their bytes, at most 768 texts
 * and 8 MB, so a text a build counts twice is tokenized once) are this
 * module's only mutable state; none is thread-safe.
 * Callers own the strings they pass and every struct tokenizer_ids.
 *
 * Input is bytes.  Invalid UTF-8 is first replaced the way a WHATWG
 * TextDecoder (and so Node) replaces it, each maximal invalid subpart by
 * U+FFFD (EF BF BD), so the result is what js-tiktoken gives for the
 * string a JavaScript program would have read from those bytes.  NUL bytes
 * are ordinary characters.
 *
 * The split patterns, and how they were translated from JavaScript
 * (js-tiktoken compiles them with the flags "ug") to PCRE2 (UTF, UCP, JIT):
 *
 *   CONTRACTION = ('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M
 *                  |'ll|'lL|'Ll|'LL|'d|'D)                 (see 2)
 *   cl100k_base:
 *     CONTRACTION | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3}
 *     | ' '?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
 *   o200k_base:
 *     [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*
 *         [\p{Ll}\p{Lm}\p{Lo}\p{M}]+ CONTRACTION?
 *     | [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+
 *         [\p{Ll}\p{Lm}\p{Lo}\p{M}]* CONTRACTION?
 *     | \p{N}{1,3} | ' '?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+
 *     | \s+(?!\S) | \s+
 *
 *   1. \s is JavaScript's, not PCRE2's: every \s and \S is written out as
 *      the class [\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}
 *      \x{2029}\x{202f}\x{205f}\x{3000}\x{feff}] (or its negation).  PCRE2
 *      with UCP would leave out U+FEFF and add U+0085, as Python's and
 *      Rust's tiktoken do; (?!\S) becomes (?![^...]).
 *   2. The contractions are case-insensitive in OpenAI's Python/Rust
 *      patterns, (?i:'s|'t|'re|'ve|'m|'ll|'d), but js-tiktoken spells out
 *      the ASCII case variants ('s|'S|...|'LL), so "'ſ" (U+017F) is not a
 *      contraction here.  The same list is used, without PCRE2_CASELESS.
 *   3. \p{L}, \p{N}, \p{M}, \p{Lu}... read Unicode general categories in
 *      both engines, but of different Unicode versions: PCRE2 10.42 knows
 *      Unicode 14, Node 20.20 (whose V8 js-tiktoken runs on) Unicode 17.
 *      So each \p{X} is written [\p{X}...] with the code points that Node
 *      has in X and PCRE2 does not (about 14,000, in 170 ranges: CJK
 *      extensions H to J, Kawi, U+A7DC...), from tokenizer_unicode.h,
 *      which unicode-delta.sh generates.  A newer PCRE2 only makes these
 *      redundant.  A newer Node (Unicode 18+) would differ again, on
 *      letters assigned after 2025.
 *   4. Alternation, greedy repeats and lookahead behave the same in both
 *      (leftmost-first backtracking); no alternative matches the empty
 *      string, and JavaScript's u flag matches by code point, as PCRE2's
 *      UTF mode does.
 *   5. Text up to the next non-ASCII character is split without PCRE2,
 *      by tokenizer_ascii_piece(): a hand-written matcher of the same
 *      pattern, its classes cut to their ASCII members (\s is \t \n \v
 *      \f \r and space, \p{L} A-Z a-z, \p{N} 0-9, the o200k upper and
 *      lower classes A-Z and a-z), which tries the alternatives in order
 *      and gives back what the backtracking engines give back (the last
 *      white space before a non-space in \s+(?!\S), those after the last
 *      line break in \s*[\r\n]+).  The punctuation of U+2010-2027 and
 *      U+2030-205E (dashes, curly quotes, the ellipsis) is in none of
 *      these classes but [^\s\p{L}\p{N}] and its supersets, so the
 *      matcher takes it too, as it takes '!', and it does not end that
 *      text.  A match is taken only where the full pattern would give
 *      the same (tokenizer.c, ascii_cut()); elsewhere the full pattern
 *      splits.  The unit test compares the matcher with PCRE2 on the
 *      ASCII-cut pattern over random strings of ASCII and that
 *      punctuation.  The full pattern is interpreted for its first 200
 *      matches and JIT-compiled after that (or at once should the
 *      interpreter report an error): text with a few non-ASCII
 *      characters does not pay for its JIT compile.
 *
 * Pieces are merged by rank with a heap over a linked list of parts, so a
 * piece costs O(n log n), not O(n^2), and a long one (1 MB of one letter)
 * is merged in windows of 8 KB, in linear time (tokenizer_chunking()); the result
 * is the same as tiktoken's (lowest rank first, leftmost on ties).  The
 * result for a short piece is kept (1,024 slots per encoding, each piece
 * in the slot its hash picks, replacing what was there), so a repeated
 * word is merged once.  Should
 * PCRE2 report an error on a match (a limit hit on a pathological input),
 * the match is retried without JIT, and failing that one code point is
 * taken as a piece: the count then stays close but is no longer exact.
 *
 * Claude's tokenizer (TOKENIZER_CLAUDE, "claude") is the one SillyTavern
 * 1.15 counts claude-* models with: its src/tokenizers/claude.json, a
 * Hugging Face tokenizer (Anthropic's legacy vocabulary, 65,000 ids: ranks/
 * README.md) run by @agnai/web-tokenizers 0.1.3 (tokenizers 0.13.3 in
 * WebAssembly).  It gives that library's encode(text) ids:
 *
 *   1. The added tokens <EOT> <META> <META_START> <META_END> <SOS> (ids
 *      0-4) are found in the raw text first, leftmost (none is a prefix
 *      of another), each one token; the text between is tokenized alone.
 *   2. That text is normalized to NFKC with the tables of the Rust crate
 *      unicode-normalization-alignments 0.1.12 (Unicode 9.0), which
 *      nfkc-gen.py rebuilt from Python's and checked against the library
 *      entry by entry (ranks/nfkc.txt).
 *   3. It is split by GPT-2's pattern, 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+
 *      | ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+, as Oniguruma runs it
 *      (\s being Unicode's White_Space; both engines know Unicode 14).
 *   4. Each piece's bytes are merged by the vocabulary's merge rules, the
 *      lowest rule first, leftmost on ties; a piece is never looked up
 *      whole, and long pieces are not cut into windows (tokenizer_bpe.c).
 *
 * The SentencePiece models "llama" (Llama 2's), "mistral" (Mistral 7B's)
 * and "yi" (Yi's) are the ones SillyTavern 1.15 ships as
 * src/tokenizers/NAME.model and runs with @agnai/sentencepiece-js 1.1.1
 * (the sentencepiece library in WebAssembly); they give its
 * encodeIds(text) ids, no BOS id.  All three are BPE models with byte
 * fallback and identity normalization; llama and mistral put a dummy
 * prefix (U+2581) before a text, yi does not; every space becomes U+2581;
 * yi's user-defined pieces (digits, punctuation, runs of U+2581...) are
 * cut out first and never merge.  See tokenizer_sp.c.
 */
#ifndef TOKENIZER_H
#define TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tokenizer_kind {
	TOKENIZER_CL100K,
	TOKENIZER_O200K,
	TOKENIZER_CLAUDE,       /* see "Claude's tokenizer" above */
	TOKENIZER_LLAMA,        /* SentencePiece models, see above */
	TOKENIZER_MISTRAL,
	TOKENIZER_YI,
	TOKENIZER__COUNT
};

/* A growable array of token ids.  Start it as TOKENIZER_IDS_INIT;
 * tokenizer_encode() appends; the owner calls tokenizer_ids_free(). */
struct tokenizer_ids {
	uint32_t *v;
	size_t len, cap;
};

#define TOKENIZER_IDS_INIT {0}

/* One chat message.  name may be NULL (no name key); role and content
 * must not be NULL.  All three are NUL-terminated and borrowed. */
struct tokenizer_message {
	const char *role;
	const char *name;
	const char *content;
};

/* The encoding called name ("cl100k_base", "o200k_base", "claude",
 * "llama", "mistral", "yi"): true
 * and *kind set, or false. */
bool tokenizer_by_name(const char *name, enum tokenizer_kind *kind);
const char *tokenizer_name(enum tokenizer_kind kind);

/* The encoding SillyTavern 1.15's server (getTokenizerModel() of
 * src/endpoints/tokenizers.js) picks for a model name, by substring and in
 * its order: "o1" itself, o1-preview, o1-mini, o3-mini, o3, o4-mini,
 * gpt-5, gpt-4o, chatgpt-4o-latest, gpt-4.1 and gpt-4.5 are o200k_base;
 * then gpt-4 and gpt-3.5-turbo are cl100k_base; then a name with "claude"
 * is Claude's; then llama3 or llama-3 (Llama 3's tokenizer, which strata
 * lacks: cl100k_base), llama (Llama 2's), mistral, yi, then deepseek,
 * gemma, gemini, learnlm, jamba, qwen2, command-r, command-a and nemo
 * (tokenizers strata lacks: cl100k_base); NULL and every other name are
 * cl100k_base (SillyTavern's default, gpt-3.5-turbo).  The old completion
 * models SillyTavern names (text-davinci-003...) have encodings strata
 * lacks: cl100k_base too. */
enum tokenizer_kind tokenizer_for_model(const char *model);
/* Is model an OpenAI model name whose encoding strata has (Claude's
 * tokenizer is SillyTavern's, not the API's, so a claude name is not
 * known here): one that
 * begins with gpt-3.5, gpt-4, gpt-5, chatgpt-, o1, o3 or o4 (each of the
 * last three alone or followed by '-'), after an optional "openai/"?  NULL and every other name (a
 * Claude, Gemini or local model) are not: their counts are estimates. */
bool tokenizer_model_known(const char *model);

size_t tokenizer_count(enum tokenizer_kind kind, const char *s, size_t len);
/* The tokens s[0..len) adds when it continues a text after a line break:
 * tokenizer_count() without the SentencePiece models' dummy prefix. */
size_t tokenizer_count_more(enum tokenizer_kind kind, const char *s,
    size_t len);
/* Is kind a SentencePiece model (llama, mistral, yi)? */
bool tokenizer_is_sp(enum tokenizer_kind kind);
/* strata's estimate for models whose tokenizer it does not have
 * (Claude, Gemini, open models): a CJK character (and a Hangul syllable,
 * a full-width form) counts as one token, the other characters as one
 * per four, rounded up.  TOKENIZER_ESTIMATE says so in words. */
size_t tokenizer_estimate(const char *s, size_t len);
/* Is code point c one the estimate counts as a token of its own? */
bool tokenizer_wide(uint32_t c);
#define TOKENIZER_ESTIMATE "a CJK character counts as one token, other " \
	"text as one per four characters"

/* Append the ids of s[0..len) to out. */
void tokenizer_encode(enum tokenizer_kind kind, const char *s, size_t len,
    struct tokenizer_ids *out);
void tokenizer_ids_free(struct tokenizer_ids *ids);

/* The bytes of token id (not NUL-terminated) and their number in *len, or
 * NULL when id is not an ordinary token of the encoding (and for every id
 * of a SentencePiece model, whose pieces are not the text's bytes). */
const char *tokenizer_token(enum tokenizer_kind kind, uint32_t id,
    size_t *len);

/*
 * The prompt tokens of a Chat Completions request as SillyTavern's server
 * counts them for OpenAI models (POST /api/tokenizers/openai/count, after
 * OpenAI's cookbook num_tokens_from_messages): the encoding is
 * tokenizer_for_model(model); each message costs 3 tokens, plus its role's
 * and content's tokens, plus its name's tokens + 1 when it has a name; the
 * reply priming adds 3 once.  For a model name containing
 * "gpt-3.5-turbo-0301" a message costs 4, a name -1, and 9 more are added
 * at the end, as SillyTavern does.  (The cookbook's reasons: a message is
 * <|start|>{role/name}\n{content}<|end|>\n, and with a name 0301 drops the
 * role; the reply is primed with <|start|>assistant<|message|>.  The 9 is
 * SillyTavern's own, for what 0301 began adding in October 2023.)
 *
 * For a SentencePiece model (tokenizer_is_sp()) SillyTavern counts
 * instead the values of every message (role, content, name, in that
 * order) joined by two line breaks, as one text.
 *
 * SillyTavern encodes with tiktoken's default, which throws on text that
 * contains one of the encoding's special tokens ("<|endoftext|>",
 * "<|endofprompt|>", and for cl100k_base "<|fim_prefix|>",
 * "<|fim_middle|>", "<|fim_suffix|>"), and its loop catches the error per
 * message: that field and the message's later fields (in the order role,
 * content, name) are then not counted, while the fields before it and the
 * 3 are.  This function reproduces that, so budgets agree with
 * SillyTavern's; tokenizer_count() counts such text as ordinary text.
 */
size_t tokenizer_count_chat(const char *model,
    const struct tokenizer_message *msgs, size_t n);

/* The end of the piece that the split pattern of kind, its classes cut to
 * ASCII, matches at s[pos] in s[0..len), pos < len, text of ASCII and the
 * punctuation of U+2010-2027 and U+2030-205E (see 5 above); pos itself
 * at any other character.  How tokenizer_count() splits such text.
 * Exported for the unit test, which checks it against PCRE2; callers
 * want tokenizer_count(). */
size_t tokenizer_ascii_piece(enum tokenizer_kind kind, const char *s,
    size_t len, size_t pos);

/* Pieces longer than 2 x window bytes are merged in windows of that
 * many bytes (linear time, fixed scratch memory, the same tokens; see
 * tokenizer.c); 0 merges every piece whole.  The default is 8192; the
 * unit test sets small windows to compare both ways. */
void tokenizer_chunking(size_t window);

/* Free the compiled split patterns (for leak checkers at exit); the next
 * call compiles them again. */
void tokenizer_release(void);

#endif
