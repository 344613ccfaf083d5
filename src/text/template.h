/*
 * template: {{NAME}} placeholders in profile files (persona, format,
 * skills, injections, the prefix).  Values come from [vars] and -v, the
 * command line winning.  An unknown placeholder is an error at its span,
 * unless the profile keeps unknown placeholders as they are.  This is the
 * seed of the one template engine later macros will share.  The vars
 * table and its arrays live in the run's arena.
 */
#ifndef TEMPLATE_H
#define TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/source.h"

struct buf;
struct node;
struct run;

struct tvar {
	const char *name;
	const char *value;      /* NUL-terminated text */
	size_t len;
	const struct source *src;       /* where it was defined */
	struct span span;
	bool used;
};

struct tvars {
	struct tvar *items;
	size_t n, cap;
	bool keep_unknown;
};

/* Add or override a variable. */
void template_var(struct run *run, struct tvars *v, const char *name,
    const char *value, size_t len, const struct source *src,
    struct span span);
/* Every scalar of a [vars] table (numbers and booleans as their text). */
void template_vars_from(struct run *run, struct tvars *v,
    const struct node *table);

/*
 * Expand text[0..len) into out.  When exact is true the text is the
 * bytes of src starting at offset off, and errors point at the
 * placeholder; otherwise (a string with escapes) errors point at the
 * span (off, whole) of src.
 */
bool template_expand(struct run *run, struct tvars *v, const char *text,
    size_t len, const struct source *src, uint32_t off, bool exact,
    struct span whole, struct buf *out);

#endif
