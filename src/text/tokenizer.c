/*
 * tokenizer: the encodings and the public functions (tokenizer.h); the
 * work is done in tokenizer_split.c (pieces), tokenizer_bpe.c (merging),
 * tokenizer_claude.c (Claude's tokenizer) and tokenizer_sp.c
 * (SentencePiece models).
 */
#include "text/tokenizer_int.h"
#include "text/tokenizer_sp.h"

#include <stdlib.h>
#include <string.h>

#include "text/tokenizer_unicode.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/util.h"

/* JavaScript's \s: WhiteSpace and LineTerminator, ECMA-262 12.2 and 12.3
 * (Zs has not changed since Unicode 6.3).  \x{0b}, not \v, which PCRE2
 * reads as "any vertical space". */
#define WS "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}" \
	"\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"
/* Unicode's White_Space, Oniguruma's \s. */
#define OWS "\\t\\n\\x{0b}\\f\\r \\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}" \
	"\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}"
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
const struct tok_encoding tok_encodings[TOKENIZER__COUNT] = {
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
	[TOKENIZER_CLAUDE] = {
		/* GPT-2's pattern, which the byte-level pre-tokenizer of
		 * Hugging Face's tokenizers 0.13 uses, run by Oniguruma
		 * 6.9.8: its \s is Unicode's White_Space (OWS), and its
		 * \p{L} and \p{N} are of Unicode 14, as PCRE2 10.42's. */
		"claude",
		"'s|'t|'re|'ve|'m|'ll|'d"
		"| ?\\p{L}+| ?\\p{N}+| ?[^" OWS "\\p{L}\\p{N}]+"
		"|[" OWS "]+(?![^" OWS "])|[" OWS "]+",
		&tokenizer_table_claude,
		{ NULL },
	},
	/* SentencePiece models: no split pattern, their own tables. */
	[TOKENIZER_LLAMA] = { "llama", NULL, NULL, { NULL } },
	[TOKENIZER_MISTRAL] = { "mistral", NULL, NULL, { NULL } },
	[TOKENIZER_YI] = { "yi", NULL, NULL, { NULL } },
};
static const struct tokenizer_sp *const sp_models[TOKENIZER__COUNT] = {
	[TOKENIZER_LLAMA] = &tokenizer_sp_llama,
	[TOKENIZER_MISTRAL] = &tokenizer_sp_mistral,
	[TOKENIZER_YI] = &tokenizer_sp_yi,
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif


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

/* The slots hold 1 + an index into counted[], which grows as texts come:
 * a build touches one page of slots and as many of texts as it keeps,
 * not the 40 KB a table of the texts themselves would spread over. */
static uint16_t counted_slot[COUNTED_SLOTS];    /* 0: empty */
static struct counted {
	char *text;
	size_t len, count;
	uint64_t hash;
	enum tokenizer_kind kind;
} *counted;
static size_t counted_n, counted_cap, counted_bytes;

void
tokenizer_release(void)
{
	size_t i;

	for (i = 0; i < counted_n; i++)
		free(counted[i].text);
	free(counted);
	counted = NULL;
	if (counted_n)
		memset(counted_slot, 0, sizeof(counted_slot));
	counted_n = counted_cap = counted_bytes = 0;
	tok_split_release();
}

bool
tokenizer_by_name(const char *name, enum tokenizer_kind *kind)
{
	size_t i;

	for (i = 0; i < LEN(tok_encodings); i++)
		if (strcmp(tok_encodings[i].name, name) == 0) {
			*kind = (enum tokenizer_kind)i;
			return true;
		}
	return false;
}

const char *
tokenizer_name(enum tokenizer_kind kind)
{
	return tok_encodings[kind].name;
}

bool
tokenizer_is_sp(enum tokenizer_kind kind)
{
	return sp_models[kind] != NULL;
}

enum tokenizer_kind
tokenizer_for_model(const char *model)
{
	/* getTokenizerModel()'s tests after "o1" itself, in its order; a
	 * tokenizer strata lacks counts as its default, cl100k_base. */
	static const struct {
		const char *sub;
		enum tokenizer_kind kind;
	} by_name[] = {
		{ "o1-preview", TOKENIZER_O200K }, { "o1-mini", TOKENIZER_O200K },
		{ "o3-mini", TOKENIZER_O200K }, { "gpt-5", TOKENIZER_O200K },
		{ "o3", TOKENIZER_O200K }, { "o4-mini", TOKENIZER_O200K },
		{ "gpt-4o", TOKENIZER_O200K },
		{ "chatgpt-4o-latest", TOKENIZER_O200K },
		{ "gpt-4.1", TOKENIZER_O200K }, { "gpt-4.5", TOKENIZER_O200K },
		{ "gpt-4", TOKENIZER_CL100K },
		{ "gpt-3.5-turbo", TOKENIZER_CL100K },
		{ "claude", TOKENIZER_CLAUDE },
		{ "llama3", TOKENIZER_CL100K },         /* Llama 3's */
		{ "llama-3", TOKENIZER_CL100K },
		{ "llama", TOKENIZER_LLAMA },
		{ "mistral", TOKENIZER_MISTRAL },
		{ "yi", TOKENIZER_YI },
		/* deepseek, gemma, gemini, learnlm, jamba, qwen2, command-r,
		 * command-a, nemo and the rest: cl100k_base. */
	};
	size_t i;

	if (!model)
		return TOKENIZER_CL100K;
	if (strcmp(model, "o1") == 0)
		return TOKENIZER_O200K;
	for (i = 0; i < LEN(by_name); i++)
		if (strstr(model, by_name[i].sub))
			return by_name[i].kind;
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

/* The tokens of s[0..len), after replacing invalid UTF-8 (tokenizer.h). */
static void
tokenize(enum tokenizer_kind kind, const char *s, size_t len, bool first,
    struct tok_sink *out)
{
	char *clean;

	if ((clean = tok_utf8_clean(s, len, &len)) != NULL)
		s = clean;
	if (sp_models[kind])
		tok_sp(sp_models[kind], s, len, first, out);
	else if (kind == TOKENIZER_CLAUDE)
		tok_claude(s, len, out);
	else
		tok_split_tiktoken(kind, s, len, out);
	free(clean);
}

size_t
tokenizer_count(enum tokenizer_kind kind, const char *s, size_t len)
{
	struct tok_sink out = { NULL, 0 };
	struct counted *c;
	uint16_t *slot = NULL;
	uint64_t h = 0;
	size_t i;

	if (len >= COUNTED_MIN) {
		h = hash_keyed(s, len);
		for (i = h & (COUNTED_SLOTS - 1); counted_slot[i];
		    i = (i + 1) & (COUNTED_SLOTS - 1)) {
			c = &counted[counted_slot[i] - 1];
			if (c->hash == h && c->len == len && c->kind == kind &&
			    memcmp(c->text, s, len) == 0)
				return c->count;
		}
		if (counted_n < COUNTED_SLOTS / 4 * 3 &&
		    len <= COUNTED_BYTES - counted_bytes)
			slot = &counted_slot[i];
	}
	tokenize(kind, s, len, true, &out);
	if (slot) {
		if (counted_n == counted_cap) {
			counted_cap = counted_cap ? counted_cap * 2 : 64;
			counted = xreallocarray(counted, counted_cap,
			    sizeof(*counted));
		}
		c = &counted[counted_n++];
		c->text = xmalloc(len);
		memcpy(c->text, s, len);
		c->len = len;
		c->count = out.count;
		c->hash = h;
		c->kind = kind;
		*slot = (uint16_t)counted_n;
		counted_bytes += len;
	}
	return out.count;
}

size_t
tokenizer_count_more(enum tokenizer_kind kind, const char *s, size_t len)
{
	struct tok_sink out = { NULL, 0 };

	if (!sp_models[kind])
		return tokenizer_count(kind, s, len);
	tokenize(kind, s, len, false, &out);
	return out.count;
}

void
tokenizer_encode(enum tokenizer_kind kind, const char *s, size_t len,
    struct tokenizer_ids *ids)
{
	struct tok_sink out = { ids, 0 };

	tokenize(kind, s, len, true, &out);
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
	const struct tokenizer_table *t = tok_encodings[kind].table;

	if (!t || id >= t->ntokens || id < t->first)
		return NULL;
	*len = t->off[id + 1] - t->off[id];
	return (const char *)t->bytes + t->off[id];
}

static bool
has_special(enum tokenizer_kind kind, const char *s)
{
	const char *const *sp;

	for (sp = tok_encodings[kind].special; *sp; sp++)
		if (strstr(s, *sp))
			return true;
	return false;
}

/*
 * SillyTavern's server counts for Claude the prompt its
 * convertClaudePrompt(messages, false, '', false, false, '', false) makes
 * of the messages: the first becomes a user message; the message before
 * the first assistant one after it, if a user one other than the first,
 * gets the prefix "\n\nFirst message: "; then each is its role's prefix
 * ("\n\nHuman: ", "\n\nAssistant: ", for system "\n\nA: " or
 * "\n\nH: " by the example names, else "\n\n"; another role none),
 * "NAME: " when it has a name and is not a system message, and its
 * content.
 */
static size_t
count_claude_chat(const struct tokenizer_message *msgs, size_t n)
{
	struct buf b = BUF_INIT;
	const char *role, *prefix;
	size_t i, fai = 0, count;

	for (i = 1; i < n; i++)
		if (strcmp(msgs[i].role, "assistant") == 0) {
			fai = i;
			break;
		}
	for (i = 0; i < n; i++) {
		role = i == 0 ? "user" : msgs[i].role;
		if (fai > 1 && i == fai - 1 && strcmp(role, "user") == 0)
			role = "FixHumMsg";
		if (strcmp(role, "assistant") == 0)
			prefix = "\n\nAssistant: ";
		else if (strcmp(role, "user") == 0)
			prefix = "\n\nHuman: ";
		else if (strcmp(role, "FixHumMsg") == 0)
			prefix = "\n\nFirst message: ";
		else if (strcmp(role, "system") != 0)
			prefix = "";
		else if (msgs[i].name &&
		    strcmp(msgs[i].name, "example_assistant") == 0)
			prefix = "\n\nA: ";
		else if (msgs[i].name &&
		    strcmp(msgs[i].name, "example_user") == 0)
			prefix = "\n\nH: ";
		else
			prefix = "\n\n";
		buf_puts(&b, prefix);
		if (msgs[i].name && *msgs[i].name &&
		    strcmp(role, "system") != 0) {
			buf_puts(&b, msgs[i].name);
			buf_puts(&b, ": ");
		}
		buf_puts(&b, msgs[i].content);
	}
	count = tokenizer_count(TOKENIZER_CLAUDE, b.data ? b.data : "", b.len);
	buf_free(&b);
	return count;
}

/*
 * SillyTavern's server counts for a SentencePiece model the values of
 * every message, in their keys' order (role, content, name), joined by
 * two line breaks (countSentencepieceArrayTokens()).
 */
static size_t
count_sp_chat(enum tokenizer_kind kind,
    const struct tokenizer_message *msgs, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i, count;

	for (i = 0; i < n; i++) {
		if (i > 0)
			buf_puts(&b, "\n\n");
		buf_puts(&b, msgs[i].role);
		buf_puts(&b, "\n\n");
		buf_puts(&b, msgs[i].content);
		if (msgs[i].name) {
			buf_puts(&b, "\n\n");
			buf_puts(&b, msgs[i].name);
		}
	}
	count = tokenizer_count(kind, b.data ? b.data : "", b.len);
	buf_free(&b);
	return count;
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

	if (kind == TOKENIZER_CLAUDE)
		return count_claude_chat(msgs, n);
	if (sp_models[kind])
		return count_sp_chat(kind, msgs, n);

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
