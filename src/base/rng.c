#include "base/rng.h"

#include "base/util.h"

void
rng_seed(struct rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

double
rng_double(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * Walk s[0..n) as UTF-16 code units: each call stores up to two units in
 * u and returns how many bytes it consumed.
 */
static size_t
utf16_units(const char *s, size_t n, uint16_t u[2], int *nu)
{
	uint32_t cp;
	size_t k = utf8_decode(s, n, &cp);

	if (k == 0) {
		cp = 0xFFFD;
		k = 1;
	}
	if (cp >= 0x10000) {
		cp -= 0x10000;
		u[0] = (uint16_t)(0xD800 + (cp >> 10));
		u[1] = (uint16_t)(0xDC00 + (cp & 0x3FF));
		*nu = 2;
	} else {
		u[0] = (uint16_t)cp;
		*nu = 1;
	}
	return k;
}

uint64_t
rng_cyrb53(const char *s, size_t n, uint32_t seed)
{
	uint32_t h1 = 0xdeadbeefu ^ seed, h2 = 0x41c6ce57u ^ seed;
	size_t i = 0;
	uint16_t u[2];
	int nu, k;

	while (i < n) {
		i += utf16_units(s + i, n - i, u, &nu);
		for (k = 0; k < nu; k++) {
			h1 = (h1 ^ u[k]) * 2654435761u;
			h2 = (h2 ^ u[k]) * 1597334677u;
		}
	}
	h1 = (h1 ^ (h1 >> 16)) * 2246822507u;
	h1 ^= (h2 ^ (h2 >> 13)) * 3266489909u;
	h2 = (h2 ^ (h2 >> 16)) * 2246822507u;
	h2 ^= (h1 ^ (h1 >> 13)) * 3266489909u;
	return 4294967296u * (uint64_t)(2097151u & h2) + h1;
}

/* ARC4 output: count bytes as one big-endian number (count <= 6). */
static double
arc4_g(struct rng_arc4 *a, int count)
{
	double r = 0;
	uint8_t t;

	while (count--) {
		a->i = (uint8_t)(a->i + 1);
		t = a->s[a->i];
		a->j = (uint8_t)(a->j + t);
		a->s[a->i] = a->s[a->j];
		a->s[a->j] = t;
		r = r * 256 + a->s[(uint8_t)(a->s[a->i] + a->s[a->j])];
	}
	return r;
}

void
rng_arc4_seed(struct rng_arc4 *a, const char *seed, size_t n)
{
	/* mixkey(): key[j & 255] = 255 & ((smear ^= key[j & 255] * 19) +
	 * charCode(j)), over the seed's UTF-16 code units. */
	uint32_t key[256] = {0}, smear = 0;
	size_t i = 0, j = 0, keylen;
	uint16_t u[2];
	int nu, k;
	uint8_t t, jj = 0;

	while (i < n) {
		i += utf16_units(seed + i, n - i, u, &nu);
		for (k = 0; k < nu; k++, j++) {
			smear ^= key[j & 255] * 19;
			key[j & 255] = 255 & (smear + u[k]);
		}
	}
	keylen = j < 256 ? j : 256;
	if (keylen == 0) {
		/* seedrandom: key = [keylen++], i.e. one zero byte. */
		keylen = 1;
	}
	for (i = 0; i < 256; i++)
		a->s[i] = (uint8_t)i;
	for (i = 0; i < 256; i++) {
		t = a->s[i];
		jj = (uint8_t)(jj + key[i % keylen] + t);
		a->s[i] = a->s[jj];
		a->s[jj] = t;
	}
	a->i = a->j = 0;
	arc4_g(a, 256);         /* discard the first 256 outputs (RC4-drop) */
}

double
rng_arc4_double(struct rng_arc4 *a)
{
	const double significance = 4503599627370496.0;  /* 2^52 */
	const double overflow = 9007199254740992.0;      /* 2^53 */
	double n = arc4_g(a, 6), d = 281474976710656.0; /* 256^6 */
	double x = 0;

	while (n < significance) {
		n = (n + x) * 256;
		d *= 256;
		x = arc4_g(a, 1);
	}
	while (n >= overflow) {
		n /= 2;
		d /= 2;
		/* x >>>= 1 */
		x = (double)((uint32_t)x >> 1);
	}
	return (n + x) / d;
}
