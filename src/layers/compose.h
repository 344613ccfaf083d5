/*
 * compose: joins entries into one text in one of the four join styles
 * (DESIGN.md): plain (a blank line between entries), markdown ("## key"
 * headings), sections ("**Title**", "---" between) and tagged
 * ("<key>...</key>").  A base entry (the prefix, history system text)
 * gets no heading in any style.  It borrows the entries and writes into
 * the caller's buffer.
 */
#ifndef COMPOSE_H
#define COMPOSE_H

#include <stddef.h>

#include "prompt/entry.h"

struct buf;

/* Append entries v[0..n) (already ordered) to out in the given style;
 * if starts is not NULL, starts[i] is where v[i]'s text begins in out. */
void compose_entries(struct buf *out, enum style style, struct entry **v,
    size_t n, size_t *starts);

#endif
