/* Unit tests: base/map, base/vec and base/hash. */
#include "base/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/hash.h"
#include "base/util.h"
#include "base/vec.h"
#include "check.h"

static void
test_fnv(void)
{
	/* The published FNV-1a 64 test values. */
	CHECK(hash_fnv1a64(HASH_FNV_INIT, "", 0) ==
	    UINT64_C(0xcbf29ce484222325));
	CHECK(hash_fnv1a64(HASH_FNV_INIT, "a", 1) ==
	    UINT64_C(0xaf63dc4c8601ec8c));
	CHECK(hash_fnv1a64(HASH_FNV_INIT, "foobar", 6) ==
	    UINT64_C(0x85944171f73967e8));
	/* Continuing is the same as hashing the concatenation. */
	CHECK(hash_fnv1a64(hash_fnv1a64(HASH_FNV_INIT, "foo", 3), "bar", 3)
	    == hash_fnv1a64(HASH_FNV_INIT, "foobar", 6));
}

static void
test_keyed(void)
{
	char buf[64];
	size_t i;

	/* Stable within a process, sensitive to every byte and length. */
	CHECK(hash_keyed("abc", 3) == hash_keyed("abc", 3));
	CHECK(hash_keyed("abc", 3) != hash_keyed("abd", 3));
	CHECK(hash_keyed("abc", 3) != hash_keyed("abc\0", 4));
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)i;
	for (i = 1; i < sizeof(buf); i++)
		CHECK(hash_keyed(buf, i) != hash_keyed(buf, i - 1));
}

static void
test_map_basic(struct arena *a)
{
	struct map m;
	struct map_item *it;
	bool added;
	int one = 1, two = 2, three = 3;

	map_init(&m, a);
	CHECK(map_get(&m, "x", 1) == NULL);
	map_put(&m, "b", 1, &one);
	map_put(&m, "a", 1, &two);
	CHECK(map_get(&m, "b", 1) == &one);
	CHECK(map_get(&m, "a", 1) == &two);
	CHECK(map_get(&m, "c", 1) == NULL);
	/* Replacing keeps the position. */
	map_put(&m, "b", 1, &three);
	CHECK(m.n == 2);
	CHECK_STR(m.items[0].key, "b");
	CHECK(m.items[0].value == &three);
	it = map_intern(&m, "a", 1, &added);
	CHECK(!added && it->value == &two);
	it = map_intern(&m, "z", 1, &added);
	CHECK(added && it->value == NULL && m.n == 3);
	/* Keys are bytes: NUL inside and the empty key are keys. */
	map_put(&m, "a\0b", 3, &one);
	map_put(&m, "", 0, &two);
	CHECK(map_get(&m, "a\0b", 3) == &one);
	CHECK(map_get(&m, "a", 1) == &two);
	CHECK(map_get(&m, "", 0) == &two);
	map_free(&m);
}

static void
test_map_many(struct arena *a, bool heap)
{
	struct map m;
	enum { N = 200000 };
	char **keys = xcalloc(N, sizeof(*keys));
	size_t i, bad = 0;

	map_init(&m, heap ? NULL : a);
	for (i = 0; i < N; i++) {
		keys[i] = arena_printf(a, "key-%zu", i);
		map_put(&m, keys[i], strlen(keys[i]), keys[i]);
	}
	CHECK(m.n == N);
	for (i = 0; i < N; i++)
		if (map_get(&m, keys[i], strlen(keys[i])) != keys[i])
			bad++;
	CHECK(bad == 0);
	/* Insertion order is iteration order. */
	for (i = 0, bad = 0; i < N; i++)
		if (m.items[i].key != keys[i])
			bad++;
	CHECK(bad == 0);
	CHECK(map_get(&m, "key-200000", 10) == NULL);
	map_free(&m);
	free(keys);
}

static void
test_vec(struct arena *a)
{
	VEC(int) h = {0};
	VEC(const char *) s = {0};
	int i, bad = 0;

	for (i = 0; i < 100000; i++)
		vec_push(&h, i);
	CHECK(h.n == 100000 && h.cap >= h.n);
	for (i = 0; i < 100000; i++)
		if (h.v[i] != i)
			bad++;
	CHECK(bad == 0);
	vec_free(&h);
	CHECK(h.v == NULL && h.n == 0);
	for (i = 0; i < 1000; i++)
		avec_push(a, &s, "x");
	CHECK(s.n == 1000 && s.v[999][0] == 'x');
}

int
main(void)
{
	struct arena a;

	arena_init(&a);
	test_fnv();
	test_keyed();
	test_map_basic(&a);
	test_map_basic(NULL);
	test_map_many(&a, false);
	test_map_many(&a, true);
	test_vec(&a);
	arena_free(&a);
	return check_done("map");
}
