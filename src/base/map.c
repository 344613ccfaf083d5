#include "base/map.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/util.h"
#include "base/vec.h"

void
map_init(struct map *m, struct arena *arena)
{
	memset(m, 0, sizeof(*m));
	m->arena = arena;
}

void
map_free(struct map *m)
{
	if (!m->arena) {
		free(m->items);
		free(m->slots);
	}
	map_init(m, m->arena);
}

static uint32_t *
slot_of(const struct map *m, const char *key, size_t len, uint64_t h)
{
	size_t mask = m->nslots - 1, i = (size_t)h & mask;

	for (;; i = (i + 1) & mask) {
		uint32_t s = m->slots[i];
		const struct map_item *it;

		if (s == 0)
			return &m->slots[i];
		it = &m->items[s - 1];
		if (it->hash == h && it->len == len &&
		    memcmp(it->key, key, len) == 0)
			return &m->slots[i];
	}
}

/* Keep the load factor at or under one half. */
static void
rehash(struct map *m)
{
	size_t i, n = m->nslots ? m->nslots * 2 : 16;

	if (n > UINT32_MAX)
		die("map of %zu keys is too large", m->n);
	if (m->arena) {
		m->slots = arena_array(m->arena, n, sizeof(*m->slots));
	} else {
		free(m->slots);
		m->slots = xcalloc(n, sizeof(*m->slots));
	}
	m->nslots = n;
	for (i = 0; i < m->n; i++)
		*slot_of(m, m->items[i].key, m->items[i].len,
		    m->items[i].hash) = (uint32_t)(i + 1);
}

struct map_item *
map_find(const struct map *m, const char *key, size_t len)
{
	uint32_t s;

	if (m->n == 0)
		return NULL;
	s = *slot_of(m, key, len, hash_keyed(key, len));
	return s ? &m->items[s - 1] : NULL;
}

void *
map_get(const struct map *m, const char *key, size_t len)
{
	struct map_item *it = map_find(m, key, len);

	return it ? it->value : NULL;
}

struct map_item *
map_intern(struct map *m, const char *key, size_t len, bool *added)
{
	uint64_t h = hash_keyed(key, len);
	uint32_t *slot;
	struct map_item *it;

	if ((m->n + 1) * 2 > m->nslots)
		rehash(m);
	slot = slot_of(m, key, len, h);
	if (added)
		*added = *slot == 0;
	if (*slot)
		return &m->items[*slot - 1];
	if (m->n == m->cap) {
		if (m->arena)
			m->items = avec_grow(m->arena, m->items, &m->cap,
			    m->n, m->n + 1, sizeof(*m->items));
		else
			m->items = vec_grow(m->items, &m->cap, m->n + 1,
			    sizeof(*m->items));
	}
	it = &m->items[m->n++];
	it->key = key;
	it->len = len;
	it->hash = h;
	it->value = NULL;
	*slot = (uint32_t)m->n;
	return it;
}

struct map_item *
map_put(struct map *m, const char *key, size_t len, void *value)
{
	struct map_item *it = map_intern(m, key, len, NULL);

	it->value = value;
	return it;
}
