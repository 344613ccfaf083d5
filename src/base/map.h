/*
 * map: a hash map from byte-string keys to pointers, the one index
 * strata builds over names (variables, keys, tools, -c names).  Lookups
 * and inserts are O(1) expected, with keyed hashing (hash.h) so crafted
 * keys cannot make them slow.  Items keep insertion order, and iteration
 * (map.items[0..n)) is in that order, so nothing printed depends on hash
 * values.
 *
 * Ownership: the map borrows its keys (they must outlive it) and stores
 * values as given.  A map made with map_init(m, arena) lives in that
 * arena and needs no freeing; with a NULL arena it is on the heap and its
 * owner calls map_free().
 */
#ifndef MAP_H
#define MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

struct map_item {
	const char *key;        /* borrowed */
	size_t len;
	uint64_t hash;
	void *value;
};

struct map {
	struct arena *arena;    /* borrowed; NULL: heap */
	struct map_item *items; /* insertion order */
	size_t n, cap;
	uint32_t *slots;        /* item index + 1; 0 is empty */
	size_t nslots;          /* a power of two, or 0 */
};

void map_init(struct map *m, struct arena *arena);
void map_free(struct map *m);
/* The value stored under key, or NULL. */
void *map_get(const struct map *m, const char *key, size_t len);
/* The item of key, or NULL. */
struct map_item *map_find(const struct map *m, const char *key,
    size_t len);
/* Store value under key: replaces the value of an existing key in place
 * (keeping its position); returns the item. */
struct map_item *map_put(struct map *m, const char *key, size_t len,
    void *value);
/* The item of key, added with a NULL value if it was missing; *added
 * says which (may be NULL). */
struct map_item *map_intern(struct map *m, const char *key, size_t len,
    bool *added);

#endif
