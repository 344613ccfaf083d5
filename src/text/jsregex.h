/*
 * jsregex: JavaScript regular expressions, as SillyTavern stores them,
 * run by PCRE2.  The one translator strata uses for every JS regex (regex
 * scripts; world-info regex keys).  jsregex_split() reads the
 * "/pattern/flags" string; jsregex_compile() translates the pattern to
 * PCRE2 syntax, compiles it once (UTF) and reports a pattern that
 * cannot be compiled where it was written; jsregex_match() JIT-compiles
 * it on its first match, when JIT is available (a script or key that
 * never runs costs no JIT compile), and runs it under match, depth and
 * heap limits.  A struct
 * jsregex owns its pcre2_code and match context; jsregex_free()
 * releases them (the owner of the struct calls it).  With STRATA_NO_JIT
 * set in the environment, regexes are interpreted, not JIT-compiled (for
 * valgrind).
 *
 * Translation (JS without the u flag unless said):
 *   .          [^\n\r\x{2028}\x{2029}] (JS line terminators), any
 *              character with s
 *   ^ $        \A and \z; with m, a lookbehind/lookahead for a JS line
 *              terminator (so CR LF holds two line ends, as in JS)
 *   \s \S      the JS set: ASCII space, \t\n\v\f\r, U+00A0, U+1680,
 *              U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000,
 *              U+FEFF (PCRE2's \s is ASCII only)
 *   \d \w \b   ASCII, as in JS (no PCRE2_UCP)
 *   \v \0 \cX \xHH \uHHHH  the code point; \uD83D\uDE00 pairs are
 *              joined; a lone surrogate never matches; \u{H...} with u
 *   \1 \k<n>   back-references; a reference to a group that did not
 *              take part matches the empty string (PCRE2_MATCH_UNSET_
 *              BACKREF); \N above the group count is a legacy octal
 *              escape (\8 \9: the digit)
 *   (?<n>...)  a plain numbered group; names are kept here for $<n>
 *   [^] []     any character / nothing
 *   \/ \a \e \p ...  identity escapes: the character itself (without
 *              u); \p{..} \P{..} with u are Unicode properties
 *   { }  ]     a lone brace or bracket is literal (without u)
 *   i m s u g  caseless, multiline, dotall, unicode; g is "replace all"
 *
 * Known differences: JS without u counts UTF-16 code units, strata code
 * points (an astral character is one character for ".", classes,
 * quantifiers and empty-match advance); a repeated group whose pass
 * matches "" ends the loop (JS tries its other alternatives); caseless
 * \p{Lu} and \p{Ll} are not widened to the other case as in JS with iu;
 * caseless matching uses Unicode simple folding
 * (JS without u never matches an ASCII letter to a non-ASCII one, e.g.
 * k and the Kelvin sign); PCRE2 10.42 wants a look-behind of a fixed
 * length per alternative: a pattern whose look-behind is not
 * (an unbounded "(?<![\"']\s*)", a "(?<=ab?)") is compiled again with
 * every look-behind emulated by a callout that runs its body as a regex
 * of its own and asks whether some match of it ends exactly where the
 * look-behind stands -- JS's answer for the assertion, under the same
 * limits; a group inside an emulated look-behind is never set, and a
 * back-reference from its body to a group outside it refers to nothing
 * there; quantifier bounds stop at 65535; the
 * limits below stop a runaway match with a diagnostic where JS would
 * hang.
 */
#ifndef JSREGEX_H
#define JSREGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"

struct buf;
struct run;

enum jsregex_flag {
	JSREGEX_G = 1 << 0,
	JSREGEX_I = 1 << 1,
	JSREGEX_M = 1 << 2,
	JSREGEX_S = 1 << 3,
	JSREGEX_U = 1 << 4,
	/* x X U A J: accepted by SillyTavern's split, refused by JS, so the
	 * regex never exists and its script does nothing. */
	JSREGEX_INERT = 1 << 5,
	JSREGEX_Y = 1 << 6,     /* sticky: world-info keys only; matches at
	                         * the start offset only */
};

/* SillyTavern's regexFromString split of s[0..len): the pattern is
 * s[off .. off + len). */
struct jsregex_parts {
	size_t off, len;        /* the pattern inside the string */
	unsigned flags;         /* enum jsregex_flag */
	bool none;              /* no regex at all (empty, only line ends) */
	bool not_flags;         /* "/.../letters" whose letters are no flag
	                         * set: the whole string is the pattern */
};
void jsregex_split(const char *s, size_t len, struct jsregex_parts *out);

/*
 * World info's parseRegexFromString: is key s[0..len) a regex key
 * ("/pattern/flags", flags from "gimsuy", no unescaped '/' inside)?  If
 * so, the pattern -- its first "\/" made "/", as SillyTavern does -- is
 * appended to pat and *flags set; a repeated flag makes JavaScript refuse
 * the regex, and the key is then plain text (false), as it is when the
 * pattern does not compile (the caller checks with jsregex_compile()).
 */
bool jsregex_split_key(const char *s, size_t len, struct buf *pat,
    unsigned *flags);

/* Where a pattern was written, for messages. */
struct jsregex_origin {
	const struct source *src;       /* may be NULL */
	struct span span;       /* the string's text in src */
	bool json;              /* span is a JSON string literal (quotes
	                         * included): offsets map through escapes */
	size_t base;            /* pattern offset inside the decoded string */
	bool whole;             /* point at the whole span (a pattern built
	                         * by macros: offsets do not map) */
	const char *what;       /* "findRegex of script 'X'" */
	bool warn;              /* a pattern that cannot run is a warning
	                         * (the caller leaves it out), not an
	                         * error */
};

/* Default limits; a caller may lower them (tests) per regex. */
#define JSREGEX_MATCH_LIMIT 10000000u
#define JSREGEX_DEPTH_LIMIT 100000u
#define JSREGEX_HEAP_LIMIT 65536u       /* KiB */

struct jsregex_behind;

/*
 * The literal every match begins with (jsregex_prefix.c), found in the
 * pattern's source, JavaScript's or PCRE2's: jsregex_prefix() fills p
 * and says whether there is one; jsregex_prefix_find() gives the first
 * offset >= from of s[0..len) where a match can begin, or SIZE_MAX when
 * none can.  A search started there gives the same match, offsets and
 * limit errors as one started at from (a caller that counts steps
 * across start positions, as automatic callouts do, must not skip).
 */
struct jsregex_prefix {
	char lit[16];           /* lower-cased when caseless */
	size_t len;
	bool caseless;
	bool digit;             /* an ASCII digit follows the literal */
	bool sk;                /* caseless with s or k: U+017F and U+212A
	                         * match those too */
};
bool jsregex_prefix(const char *pat, size_t len, bool caseless,
    bool sticky, struct jsregex_prefix *p);
size_t jsregex_prefix_find(const struct jsregex_prefix *p, const char *s,
    size_t len, size_t from);
/*
 * For a translated pattern (PCRE2 syntax, compiled with opts) whose
 * top-level alternatives are some anchored at the start (\A) and some
 * not, where PCRE2's interpreter tries every position: the bytes the
 * other alternatives can begin with, from PCRE2's own start bitmap of
 * them alone.  A match then begins at offset 0 or at such a byte; the
 * caller runs the whole regex anchored at each of those.  False when it
 * does not apply.
 */
bool jsregex_start_bytes(const char *pat, size_t len, uint32_t opts,
    uint8_t bits[32]);

struct jsregex {
	void *code;             /* pcre2_code_8, owned */
	void *mctx;             /* pcre2_match_context_8, owned */
	void *jitstack;         /* pcre2_jit_stack_8, owned, may be NULL */
	bool jit_pending;       /* JIT-compile on the first match */
	unsigned flags;
	uint32_t ngroups;
	char *namebuf;          /* owned: the names' bytes */
	const char **names;     /* [ngroups + 1]: group names or NULL;
	                         * owned (one heap block) */
	bool has_names;
	/* Look-behinds PCRE2 10.42 cannot run (not of a fixed length),
	 * emulated by callouts: owned, one per callout number 1..n. */
	struct jsregex_behind *behind;
	size_t nbehind;
	/* The bytes one jsregex_match() call moved over (strata(1),
	 * SECURITY).  PCRE2's match limit counts backtracking, not the
	 * characters a repeat consumes in one go, so a look-ahead such as
	 * (?=(a+)+$) could scan to the end from every start: quadratic and
	 * uncounted.  In a pattern with a look-around, automatic callouts
	 * see where each item starts; the
	 * forward moves are added up, a byte moved over and a callout each
	 * costing a step of the match limit, and a call that spends more
	 * than its limit stops as over the limit. */
	uint64_t scan, scan_limit;
	size_t scan_start, scan_at;
	/* Where a match can begin (see jsregex_prefix()): unused with
	 * automatic callouts or emulated look-behinds. */
	struct jsregex_prefix prefix;
	bool has_prefix;
	/* Or the bytes a match can begin with besides offset 0 (see
	 * jsregex_start_bytes()). */
	uint8_t starts[32];
	bool has_starts;
};

/*
 * Translate pat[0..len) (flags: enum jsregex_flag) and compile it into
 * *re.  On failure report it at `at` and return false; *re is then
 * empty (jsregex_free() is still safe).
 */
bool jsregex_compile(struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct jsregex *re);
/* Only the translation (tests, debugging): PCRE2 syntax appended to
 * out. */
bool jsregex_translate(struct run *run, const struct jsregex_origin *at,
    const char *pat, size_t len, unsigned flags, struct buf *out);
void jsregex_free(struct jsregex *re);
void jsregex_set_limits(struct jsregex *re, uint32_t match, uint32_t depth);

enum jsregex_result {
	JSREGEX_MATCH,
	JSREGEX_NOMATCH,
	JSREGEX_LIMIT,          /* a match, depth or heap limit was hit */
	JSREGEX_FAIL,           /* any other PCRE2 error */
};

/*
 * Match re against subject[0..len) from byte start.  ov receives
 * 2 * (ngroups + 1) offsets (unset groups: SIZE_MAX).  md is a match
 * data block from jsregex_match_data() big enough for re.  The subject
 * must be valid UTF-8 (check it once with jsregex_valid(): PCRE2 is told
 * not to) and start must be at a character.
 */
enum jsregex_result jsregex_match(struct jsregex *re, void *md,
    const char *subject, size_t len, size_t start, size_t *ov);
/* A pcre2_match_data for up to ngroups groups; free with
 * jsregex_match_data_free(). */
void *jsregex_match_data(uint32_t ngroups);
/* Is s[0..len) valid UTF-8 (no surrogates, nothing past U+10FFFF)? */
bool jsregex_valid(const char *s, size_t len);
void jsregex_match_data_free(void *md);

/* SillyTavern's sanitizeRegexMacro: a macro value made literal for a
 * regex (substituteRegex 2), appended to out. */
void jsregex_escape_value(const char *s, size_t len, struct buf *out);

#endif
