/*
 * hash: the hash functions strata uses, each defined once.
 *
 * hash_fnv1a64() is the fingerprint of output (-f json, debug): stable
 * across runs and machines, and documented in strata(1).  Never use it to
 * index a table of untrusted keys: colliding keys are trivial to make.
 *
 * hash_keyed() indexes tables (map.h, the config tree): SipHash-1-3 under
 * a key drawn once per process from the system's entropy, so keys cannot
 * be crafted to collide.  Nothing strata prints may depend on its values
 * (tables iterate in insertion order).  The key is the one piece of
 * process-wide state besides the program name; it is written once, on
 * first use, and only read after that.  Set STRATA_HASH_SEED to a number
 * to fix it (for reproducing a performance report).
 *
 * sha256*() and hmac_sha256() are FIPS 180-4 SHA-256 and RFC 2104 HMAC
 * over it, for the template functions that print digests (sha256sum)
 * and for kdf.h.  A struct sha256 lives wherever its caller puts it and
 * owns nothing.
 */
#ifndef HASH_H
#define HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV_INIT UINT64_C(0xcbf29ce484222325)

/* FNV-1a 64 of s[0..n), continuing from h (HASH_FNV_INIT to start). */
uint64_t hash_fnv1a64(uint64_t h, const void *s, size_t n);
/* SipHash-1-3 of s[0..n) under the process key. */
uint64_t hash_keyed(const void *s, size_t n);

struct sha256 {
	uint32_t h[8];
	uint64_t len;           /* bytes fed so far */
	unsigned char blk[64];
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *s, size_t n);
void sha256_final(struct sha256 *c, unsigned char out[32]);
/* SHA-256 of s[0..n) at once. */
void sha256(const void *s, size_t n, unsigned char out[32]);

/* HMAC-SHA256 as a running state: init with the key, feed, finish. */
struct hmac_sha256 {
	struct sha256 in;
	unsigned char opad[64];
};

void hmac_sha256_init(struct hmac_sha256 *c, const void *key, size_t klen);
void hmac_sha256_update(struct hmac_sha256 *c, const void *s, size_t n);
void hmac_sha256_final(struct hmac_sha256 *c, unsigned char out[32]);
/* HMAC-SHA256 of msg under key, at once. */
void hmac_sha256(const void *key, size_t klen, const void *msg, size_t n,
    unsigned char out[32]);

#endif
