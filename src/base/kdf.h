/*
 * kdf: key derivation over hash.h's HMAC-SHA256: PBKDF2 (RFC 8018) and
 * scrypt (RFC 7914), for the template function derivePassword.
 *
 * Ownership: the caller owns every buffer passed in; kdf_scrypt()
 * allocates its 128*r*N + 256*r bytes of working memory itself and frees
 * them before it returns (32 MiB for N = 32768, r = 8).
 */
#ifndef KDF_H
#define KDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PBKDF2-HMAC-SHA256 of pw under salt, c iterations, outlen bytes. */
void kdf_pbkdf2_sha256(const void *pw, size_t pwlen, const void *salt,
    size_t saltlen, uint32_t c, unsigned char *out, size_t outlen);

/* scrypt(pw, salt, N, r, p) into out[0..outlen).  N must be a power of
 * two above 1 and r, p at least 1 with 128*r*N within reach: false
 * (and nothing written) when they are not or the memory is refused. */
bool kdf_scrypt(const void *pw, size_t pwlen, const void *salt,
    size_t saltlen, uint64_t N, uint32_t r, uint32_t p, unsigned char *out,
    size_t outlen);

#endif
