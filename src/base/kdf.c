#include "base/kdf.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

void
kdf_pbkdf2_sha256(const void *pw, size_t pwlen, const void *salt,
    size_t saltlen, uint32_t c, unsigned char *out, size_t outlen)
{
	struct hmac_sha256 base, h;
	unsigned char u[32], t[32], be[4];
	uint32_t i = 0, j;
	size_t k, take;

	hmac_sha256_init(&base, pw, pwlen);
	while (outlen) {
		i++;
		be[0] = (unsigned char)(i >> 24), be[1] = (unsigned char)(i >> 16);
		be[2] = (unsigned char)(i >> 8), be[3] = (unsigned char)i;
		h = base;
		hmac_sha256_update(&h, salt, saltlen);
		hmac_sha256_update(&h, be, 4);
		hmac_sha256_final(&h, u);
		memcpy(t, u, 32);
		for (j = 1; j < c; j++) {
			h = base;
			hmac_sha256_update(&h, u, 32);
			hmac_sha256_final(&h, u);
			for (k = 0; k < 32; k++)
				t[k] ^= u[k];
		}
		take = outlen < 32 ? outlen : 32;
		memcpy(out, t, take);
		out += take, outlen -= take;
	}
}

#define ROL32(v, n) (((v) << (n)) | ((v) >> (32 - (n))))

/* Salsa20/8 core on b[16] in place (RFC 7914 section 3). */
static void
salsa20_8(uint32_t b[16])
{
	uint32_t x[16];
	int i;

	memcpy(x, b, sizeof(x));
	for (i = 0; i < 8; i += 2) {
		x[4] ^= ROL32(x[0] + x[12], 7);
		x[8] ^= ROL32(x[4] + x[0], 9);
		x[12] ^= ROL32(x[8] + x[4], 13);
		x[0] ^= ROL32(x[12] + x[8], 18);
		x[9] ^= ROL32(x[5] + x[1], 7);
		x[13] ^= ROL32(x[9] + x[5], 9);
		x[1] ^= ROL32(x[13] + x[9], 13);
		x[5] ^= ROL32(x[1] + x[13], 18);
		x[14] ^= ROL32(x[10] + x[6], 7);
		x[2] ^= ROL32(x[14] + x[10], 9);
		x[6] ^= ROL32(x[2] + x[14], 13);
		x[10] ^= ROL32(x[6] + x[2], 18);
		x[3] ^= ROL32(x[15] + x[11], 7);
		x[7] ^= ROL32(x[3] + x[15], 9);
		x[11] ^= ROL32(x[7] + x[3], 13);
		x[15] ^= ROL32(x[11] + x[7], 18);
		x[1] ^= ROL32(x[0] + x[3], 7);
		x[2] ^= ROL32(x[1] + x[0], 9);
		x[3] ^= ROL32(x[2] + x[1], 13);
		x[0] ^= ROL32(x[3] + x[2], 18);
		x[6] ^= ROL32(x[5] + x[4], 7);
		x[7] ^= ROL32(x[6] + x[5], 9);
		x[4] ^= ROL32(x[7] + x[6], 13);
		x[5] ^= ROL32(x[4] + x[7], 18);
		x[11] ^= ROL32(x[10] + x[9], 7);
		x[8] ^= ROL32(x[11] + x[10], 9);
		x[9] ^= ROL32(x[8] + x[11], 13);
		x[10] ^= ROL32(x[9] + x[8], 18);
		x[12] ^= ROL32(x[15] + x[14], 7);
		x[13] ^= ROL32(x[12] + x[15], 9);
		x[14] ^= ROL32(x[13] + x[12], 13);
		x[15] ^= ROL32(x[14] + x[13], 18);
	}
	for (i = 0; i < 16; i++)
		b[i] += x[i];
}

/* BlockMix (RFC 7914 section 4): b is 2r 64-byte blocks, y as large. */
static void
blockmix(uint32_t *b, uint32_t *y, uint32_t r)
{
	uint32_t x[16];
	size_t i, k;

	memcpy(x, b + (2 * r - 1) * 16, sizeof(x));
	for (i = 0; i < 2 * (size_t)r; i++) {
		for (k = 0; k < 16; k++)
			x[k] ^= b[i * 16 + k];
		salsa20_8(x);
		/* even blocks first, then odd ones */
		memcpy(y + ((i % 2) * r + i / 2) * 16, x, sizeof(x));
	}
	memcpy(b, y, (size_t)128 * r);
}

/* ROMix (RFC 7914 section 5) on one 128*r-byte block, in place. */
static void
romix(unsigned char *blk, uint32_t r, uint64_t N, uint32_t *v, uint32_t *x,
    uint32_t *y)
{
	size_t words = (size_t)32 * r, k;
	uint64_t i, j;

	for (k = 0; k < words; k++)
		x[k] = (uint32_t)blk[4 * k] | (uint32_t)blk[4 * k + 1] << 8 |
		    (uint32_t)blk[4 * k + 2] << 16 |
		    (uint32_t)blk[4 * k + 3] << 24;
	for (i = 0; i < N; i++) {
		memcpy(v + i * words, x, words * 4);
		blockmix(x, y, r);
	}
	for (i = 0; i < N; i++) {
		/* Integerify: the first word of the last 64-byte block */
		j = (x[(2 * r - 1) * 16] |
		    (uint64_t)x[(2 * r - 1) * 16 + 1] << 32) & (N - 1);
		for (k = 0; k < words; k++)
			x[k] ^= v[j * words + k];
		blockmix(x, y, r);
	}
	for (k = 0; k < words; k++) {
		blk[4 * k] = (unsigned char)x[k];
		blk[4 * k + 1] = (unsigned char)(x[k] >> 8);
		blk[4 * k + 2] = (unsigned char)(x[k] >> 16);
		blk[4 * k + 3] = (unsigned char)(x[k] >> 24);
	}
}

bool
kdf_scrypt(const void *pw, size_t pwlen, const void *salt, size_t saltlen,
    uint64_t N, uint32_t r, uint32_t p, unsigned char *out, size_t outlen)
{
	size_t blen, words;
	unsigned char *b;
	uint32_t *v, *x, i;

	if (N < 2 || (N & (N - 1)) || r == 0 || p == 0 ||
	    (uint64_t)r * p >= (1u << 30) ||
	    N > (uint64_t)SIZE_MAX / 128 / r)
		return false;
	blen = (size_t)128 * r;
	words = (size_t)32 * r;
	if (p > SIZE_MAX / blen)
		return false;
	b = malloc(blen * p);
	v = malloc((size_t)N * blen);
	x = malloc(2 * blen);
	if (!b || !v || !x) {
		free(b), free(v), free(x);
		return false;
	}
	kdf_pbkdf2_sha256(pw, pwlen, salt, saltlen, 1, b, blen * p);
	for (i = 0; i < p; i++)
		romix(b + (size_t)i * blen, r, N, v, x, x + words);
	kdf_pbkdf2_sha256(pw, pwlen, b, blen * p, 1, out, outlen);
	free(b), free(v), free(x);
	return true;
}
