/*
 * macro_lex: the one lexer of "{{...}}" tokens, shared by strata's
 * template language (template.c) and SillyTavern's legacy macro engine
 * (tavern/macro.c).  It only finds and splits tokens; what a name means
 * is the registry's (text/macros.h) and the engines' business.
 *
 *   {{name}}  {{ name }}          MLEX_BARE
 *   {{name::a::b}}                MLEX_COLONS  (the newer syntax)
 *   {{name:a}}                    MLEX_COLON   (legacy, tavern assets)
 *   {{name a}}                    MLEX_SPACE   (legacy, and {{if x}})
 *   {{// comment}}                MLEX_COMMENT (may hold '}' and lines)
 *   anything else in braces       MLEX_OTHER   (the engines decide)
 *   \{\{  \}\}                    escapes: mlex_escape()
 *
 * A token ends at the first "}}" after its "{{", as both engines read
 * it; t->brace tells whether a lone '}' came before that (SillyTavern's
 * regular expressions reject such a token), t->nested whether a "{{"
 * did (an inner token: mlex_match() finds the "}}" that closes the
 * outer one, counting pairs, so a caller can expand inner first).
 *
 * Every search is cached in struct mlex, so scanning a text of length n
 * from left to right costs O(n) however its braces are arranged.  The
 * struct borrows the text; mlex_match()'s table lives in the arena given
 * to mlex_init(), so nothing needs freeing.
 */
#ifndef MACRO_LEX_H
#define MACRO_LEX_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

enum mlex_form {
	MLEX_BARE,
	MLEX_COLONS,
	MLEX_COLON,
	MLEX_SPACE,
	MLEX_COMMENT,
	MLEX_OTHER,
};

struct mlex_tok {
	size_t at, end;         /* s[at..end): "{{" ... "}}" */
	size_t in0, in1;        /* the inside, blanks trimmed at both ends */
	size_t n0, n1;          /* the name (n0 == n1: none) */
	size_t a0;              /* the arguments: s[a0..in1) (after "::",
	                         * ':' or the blanks) */
	enum mlex_form form;
	bool brace;             /* a '}' inside */
	bool nested;            /* a "{{" inside */
};

struct mlex {
	const char *s;
	size_t len;
	struct arena *arena;
	/* The first "}}" (the first '}', the first "{{") at or after any
	 * position in [cfrom, cat] is at cat (len: none); the same for
	 * bfrom/bat and ofrom/oat. */
	size_t cfrom, cat, bfrom, bat, ofrom, oat;
	bool ccached, bcached, ocached;
	/* mlex_match(): every "{{" and the "}}" that closes it, by
	 * position of the "{{" (built on first use). */
	size_t *opens, *closes, nopens;
	bool matched;
};

void mlex_init(struct mlex *l, const char *s, size_t len, struct arena *a);

/* Is c a byte of a name (first: may it start one)?  Letters, '_', any
 * byte of a multi-byte character; then digits, '.' and '-' too. */
bool mlex_name_char(char c, bool first);

/* The first "{{" at or after from, or len when there is none. */
size_t mlex_open(struct mlex *l, size_t from);

/* The token whose "{{" is at s[i]: false when s[i] is not "{{" or no
 * "}}" follows. */
bool mlex_at(struct mlex *l, size_t i, struct mlex_tok *t);

/* The next token at or after from whose inside holds no '}' (the
 * leftmost one, as SillyTavern's /{{[^}]*}}/g expressions find them);
 * false when there is none. */
bool mlex_next(struct mlex *l, size_t from, struct mlex_tok *t);

/* The end (after "}}") of the token at s[i], counting nested pairs: 0
 * when unclosed. */
size_t mlex_match(struct mlex *l, size_t i);

/* Does every '{' of s[0..n) open a "{{...}}" that closes with no '{'
 * inside (so that nothing joined to s can open or finish a macro in
 * it)?  each, when not NULL, is given every inside in turn and may say
 * no for the whole. */
bool mlex_closed(const char *s, size_t n,
    bool (*each)(void *ctx, const char *in, size_t len), void *ctx);

/* An escape at s[i] ("\{\{" or "\}\}"): its length (4), else 0. */
size_t mlex_escape(const char *s, size_t len, size_t i);

/* The arguments of t as [off, end) pairs into s: for MLEX_COLONS its
 * "::"-separated pieces, at most max (the last holds the rest), and how
 * many were filled; for the other forms the one text after the name (1);
 * for a bare name none (0). */
struct mlex_arg {
	size_t off, end;
};
size_t mlex_args(const struct mlex *l, const struct mlex_tok *t,
    struct mlex_arg *out, size_t max);

#endif
