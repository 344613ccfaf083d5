#include "base/vec.h"

#include <stdint.h>

#include "base/arena.h"
#include "base/util.h"

static size_t
next_cap(size_t cap, size_t need, size_t size)
{
	size_t c = cap ? cap : 8;

	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			die("array of %zu elements is too large", need);
		c *= 2;
	}
	return c;
}

void *
vec_grow(void *v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return v;
	*cap = next_cap(*cap, need, size);
	return xreallocarray(v, *cap, size);
}

void *
avec_grow(struct arena *a, void *v, size_t *cap, size_t n, size_t need,
    size_t size)
{
	size_t c;

	if (need <= *cap)
		return v;
	c = next_cap(*cap, need, size);
	v = arena_grow(a, v, n, c, size);
	*cap = c;
	return v;
}
