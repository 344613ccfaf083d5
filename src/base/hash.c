#include "base/hash.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t
hash_fnv1a64(uint64_t h, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static uint64_t key0, key1;
static int keyed;

static void
init_key(void)
{
	uint64_t k[2] = { 0, 0 };
	const char *fixed = getenv("STRATA_HASH_SEED");

	if (fixed && *fixed) {
		k[0] = strtoull(fixed, NULL, 0);
		k[1] = k[0] ^ UINT64_C(0x9e3779b97f4a7c15);
	} else if (getrandom(k, sizeof(k), GRND_NONBLOCK) != sizeof(k)) {
		/* No entropy yet (early boot): still unpredictable enough
		 * to spoil a precomputed set of colliding keys. */
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec * UINT64_C(0x9e3779b97f4a7c15) ^
		    (uint64_t)getpid();
		k[1] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&ts;
	}
	key0 = k[0];
	key1 = k[1];
	keyed = 1;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

static uint64_t
load64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

uint64_t
hash_keyed(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t v0, v1, v2, v3, m, b = (uint64_t)n << 56;
	size_t i, tail = n & 7;

	if (!keyed)
		init_key();
	v0 = key0 ^ UINT64_C(0x736f6d6570736575);
	v1 = key1 ^ UINT64_C(0x646f72616e646f6d);
	v2 = key0 ^ UINT64_C(0x6c7967656e657261);
	v3 = key1 ^ UINT64_C(0x7465646279746573);
	for (i = 0; i + 8 <= n; i += 8) {
		m = load64(p + i);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	switch (tail) {
	case 7: b |= (uint64_t)p[i + 6] << 48; FALLTHROUGH;
	case 6: b |= (uint64_t)p[i + 5] << 40; FALLTHROUGH;
	case 5: b |= (uint64_t)p[i + 4] << 32; FALLTHROUGH;
	case 4: b |= (uint64_t)p[i + 3] << 24; FALLTHROUGH;
	case 3: b |= (uint64_t)p[i + 2] << 16; FALLTHROUGH;
	case 2: b |= (uint64_t)p[i + 1] << 8; FALLTHROUGH;
	case 1: b |= (uint64_t)p[i]; FALLTHROUGH;
	default: break;
	}
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
