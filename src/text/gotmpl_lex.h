/*
 * gotmpl_lex: the tokens of a Go template and the parser state the lexer
 * fills, shared by gotmpl_lex.c (text into tokens, by Go's lexer: trim
 * markers, comments, literals, keywords) and gotmpl_parse.c (tokens into
 * the tree).  Private to those two.
 *
 * Ownership: the token array is the run's arena's, like every string a
 * token's error message holds; tokens point into the source by offset.
 */
#ifndef GOTMPL_LEX_H
#define GOTMPL_LEX_H

#include "text/gotmpl_int.h"

enum tok {
	T_EOF,
	T_TEXT,
	T_LEFT,
	T_RIGHT,
	T_SPACE,
	T_ASSIGN,
	T_DECLARE,
	T_PIPE,
	T_LPAREN,
	T_RPAREN,
	T_COMMA,
	T_PUNCT,                /* another printable ASCII character */
	T_STRING,
	T_RAWSTRING,
	T_CHAR,
	T_NUMBER,
	T_BOOL,
	T_NIL,
	T_DOT,
	T_FIELD,
	T_VARIABLE,
	T_IDENT,
	/* keywords */
	T_BLOCK,
	T_BREAK,
	T_CONTINUE,
	T_DEFINE,
	T_ELSE,
	T_END,
	T_IF,
	T_RANGE,
	T_TEMPLATE,
	T_WITH,
	T_ERROR,                /* a lexer error: msg */
};

struct token {
	enum tok t;
	uint32_t off, len;
	const char *msg;        /* T_ERROR */
};

struct parser {
	struct gotmpl *set;
	struct run *run;
	const struct source *src;
	const char *s;
	size_t n;
	struct token *tok;
	size_t ntok, cap, i;
	const char **vars;
	size_t nvars, capvars;
	int rangedepth;
	int depth;              /* nested lists and parentheses */
	uint32_t action;        /* offset of the open action's {{ */
	uint32_t markoff;       /* the last {{end}} or {{else}} */
	const char *name;       /* the tree being parsed */
	bool failed;
};

/* Lex all of p->s into p->tok, ending with T_EOF.  A lexing error
 * becomes a T_ERROR token, which the parser reports when it reaches it,
 * as Go's does. */
void gt_lex(struct parser *p);

/* The parser's error at off (the first only: later ones follow from
 * it); p->failed says there was one. */
void gt_perror(struct parser *p, uint32_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* strconv.Unquote of a quoted token's text s into out. */
bool gt_unquote(struct parser *p, const char *s, size_t n, struct buf *out);
/* A number token's value into a, by Go's rules (ints, floats, hex,
 * octal, binary, underscores, character constants); false: reported. */
bool gt_number(struct parser *p, const struct token *t, struct gt_arg *a);

#endif
