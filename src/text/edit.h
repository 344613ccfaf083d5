/*
 * edit: builds a new text from an old one (struct etext, prompt/entry.h)
 * by copying ranges of it and inserting new bytes, and keeps the origin
 * runs right as it goes: copied bytes keep theirs (an exact run stays
 * exact, cut to the range), inserted bytes get the span they stand for.
 * Every pass of the rewrite stage writes its output with it.  Ranges are
 * copied in increasing order, so a whole edit is linear in the sizes.
 * The result lives in the run's arena; edit_end() frees the rest.
 */
#ifndef EDIT_H
#define EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/vec.h"
#include "prompt/entry.h"

struct run;
struct source;

struct edit {
	struct run *run;
	const struct etext *in;
	struct buf b;
	VEC(struct seg) segs;   /* in the run's arena */
	size_t cur;             /* in->segs index the copy has reached */
};

void edit_begin(struct edit *ed, struct run *run, const struct etext *in);
/* Append in's bytes [from, to); from must not be below an earlier to. */
void edit_copy(struct edit *ed, size_t from, size_t to);
/* Append s[0..len) standing for in's bytes [at, at + n). */
void edit_insert(struct edit *ed, const char *s, size_t len, size_t at,
    size_t n);
/* Finish into *out (bytes NUL-terminated). */
void edit_end(struct edit *ed, struct etext *out);

/* src's whole text as an etext: one exact run (in the run's arena). */
void etext_of_source(struct run *run, const struct source *src,
    struct etext *out);

#endif
