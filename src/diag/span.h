/*
 * span: a byte range inside one source, the location every token, node
 * and diagnostic carries.  Line and column are computed from it only
 * when a message is printed (source.h).  Plain values; nothing is owned.
 */
#ifndef SPAN_H
#define SPAN_H

#include <stddef.h>
#include <stdint.h>

struct span {
	uint32_t off, len;
};

static inline struct span
span_make(size_t off, size_t len)
{
	struct span s = { (uint32_t)off, (uint32_t)len };
	return s;
}

#endif
