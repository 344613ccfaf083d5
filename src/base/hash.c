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
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One load (GCC does not merge the loop below into one). */
	memcpy(&v, p, 8);
#else
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
#endif
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

/* SHA-256 (FIPS 180-4). */

#define ROR32(v, n) (((v) >> (n)) | ((v) << (32 - (n))))

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static void
sha256_block(uint32_t h[8], const unsigned char *blk)
{
	uint32_t w[64], v[8], t1, t2;
	size_t j;

	for (j = 0; j < 16; j++)
		w[j] = (uint32_t)blk[4 * j] << 24 |
		    (uint32_t)blk[4 * j + 1] << 16 |
		    (uint32_t)blk[4 * j + 2] << 8 | blk[4 * j + 3];
	for (j = 16; j < 64; j++)
		w[j] = w[j - 16] + (ROR32(w[j - 15], 7) ^
		    ROR32(w[j - 15], 18) ^ (w[j - 15] >> 3)) + w[j - 7] +
		    (ROR32(w[j - 2], 17) ^ ROR32(w[j - 2], 19) ^
		    (w[j - 2] >> 10));
	memcpy(v, h, sizeof(v));
	for (j = 0; j < 64; j++) {
		t1 = v[7] + (ROR32(v[4], 6) ^ ROR32(v[4], 11) ^
		    ROR32(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
		    sha256_k[j] + w[j];
		t2 = (ROR32(v[0], 2) ^ ROR32(v[0], 13) ^ ROR32(v[0], 22)) +
		    ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof(*v));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (j = 0; j < 8; j++)
		h[j] += v[j];
}

void
sha256_init(struct sha256 *c)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(c->h, iv, sizeof(iv));
	c->len = 0;
}

void
sha256_update(struct sha256 *c, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t have = (size_t)(c->len % 64), take;

	c->len += n;
	while (n) {
		take = 64 - have < n ? 64 - have : n;
		memcpy(c->blk + have, p, take);
		have += take, p += take, n -= take;
		if (have == 64) {
			sha256_block(c->h, c->blk);
			have = 0;
		}
	}
}

void
sha256_final(struct sha256 *c, unsigned char out[32])
{
	uint64_t bits = c->len * 8;
	size_t have = (size_t)(c->len % 64), i;

	c->blk[have++] = 0x80;
	if (have > 56) {
		memset(c->blk + have, 0, 64 - have);
		sha256_block(c->h, c->blk);
		have = 0;
	}
	memset(c->blk + have, 0, 56 - have);
	for (i = 0; i < 8; i++)
		c->blk[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_block(c->h, c->blk);
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
}

void
sha256(const void *s, size_t n, unsigned char out[32])
{
	struct sha256 c;

	sha256_init(&c);
	sha256_update(&c, s, n);
	sha256_final(&c, out);
}

/* HMAC-SHA256 (RFC 2104): keys longer than a block are hashed first. */

void
hmac_sha256_init(struct hmac_sha256 *c, const void *key, size_t klen)
{
	unsigned char k[64] = { 0 }, ipad[64];
	size_t i;

	if (klen > 64)
		sha256(key, klen, k);
	else if (klen)
		memcpy(k, key, klen);
	for (i = 0; i < 64; i++) {
		ipad[i] = k[i] ^ 0x36;
		c->opad[i] = k[i] ^ 0x5c;
	}
	sha256_init(&c->in);
	sha256_update(&c->in, ipad, 64);
}

void
hmac_sha256_update(struct hmac_sha256 *c, const void *s, size_t n)
{
	sha256_update(&c->in, s, n);
}

void
hmac_sha256_final(struct hmac_sha256 *c, unsigned char out[32])
{
	struct sha256 o;
	unsigned char d[32];

	sha256_final(&c->in, d);
	sha256_init(&o);
	sha256_update(&o, c->opad, 64);
	sha256_update(&o, d, 32);
	sha256_final(&o, out);
}

void
hmac_sha256(const void *key, size_t klen, const void *msg, size_t n,
    unsigned char out[32])
{
	struct hmac_sha256 c;

	hmac_sha256_init(&c, key, klen);
	hmac_sha256_update(&c, msg, n);
	hmac_sha256_final(&c, out);
}
