/*
 * arena: bump allocation for everything a run builds.  Memory taken from an
 * arena is never freed one piece at a time; arena_free() releases all of it
 * at once.  Pointers into an arena stay valid until then, so pipeline data
 * may point at other pipeline data freely.  Allocation failure dies.
 */
#ifndef ARENA_H
#define ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head;
	size_t total;           /* bytes obtained from malloc, for benchmarks */
	void **adopted;         /* heap blocks handed over by arena_adopt() */
	size_t nadopted, capadopted;
};

void arena_init(struct arena *a);
void arena_free(struct arena *a);
/* Forget everything allocated, keeping one block for reuse: a loop that
 * builds and drops the same kind of data each time (strata batch) stays
 * at a flat footprint. */
void arena_clear(struct arena *a);
/* Zeroed, aligned for any object. */
void *arena_alloc(struct arena *a, size_t n);
void *arena_array(struct arena *a, size_t nmemb, size_t size);
/* Grow an array that lives in the arena: the old contents are copied, the
 * old block is simply abandoned. */
void *arena_grow(struct arena *a, void *old, size_t oldn, size_t newn,
    size_t size);
/* Take ownership of heap memory p (from xmalloc, e.g. buf_detach()):
 * it is freed with the arena.  Saves copying a big text into it. */
void *arena_adopt(struct arena *a, void *p);
/* NUL-terminated copies. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
