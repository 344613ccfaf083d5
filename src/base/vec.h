/*
 * vec: growable arrays, the one doubling loop.  VEC(T) declares an
 * anonymous struct {T *v; size_t n, cap;}; a zeroed one is empty.
 * vec_push() grows it on the heap (vec_free() releases it; the vector's
 * owner calls it); avec_push() grows it in an arena (nothing to free:
 * the old block is abandoned, so growth costs at most twice the final
 * size).  Elements move when the array grows: keep indices, not
 * pointers, across a push.
 */
#ifndef VEC_H
#define VEC_H

#include <stddef.h>

struct arena;

#define VEC(T) struct { T *v; size_t n, cap; }

/* Room for at least need elements; returns the (maybe moved) array. */
void *vec_grow(void *v, size_t *cap, size_t need, size_t size);
void *avec_grow(struct arena *a, void *v, size_t *cap, size_t n,
    size_t need, size_t size);

#define vec_reserve(vec, need) \
	((vec)->v = vec_grow((vec)->v, &(vec)->cap, (need), \
	    sizeof(*(vec)->v)))
#define vec_push(vec, x) do { \
	if ((vec)->n == (vec)->cap) \
		vec_reserve((vec), (vec)->n + 1); \
	(vec)->v[(vec)->n++] = (x); \
} while (0)
#define vec_free(vec) do { \
	free((vec)->v); \
	(vec)->v = NULL; \
	(vec)->n = (vec)->cap = 0; \
} while (0)

#define avec_push(arena, vec, x) do { \
	if ((vec)->n == (vec)->cap) \
		(vec)->v = avec_grow((arena), (vec)->v, &(vec)->cap, \
		    (vec)->n, (vec)->n + 1, sizeof(*(vec)->v)); \
	(vec)->v[(vec)->n++] = (x); \
} while (0)

#endif
