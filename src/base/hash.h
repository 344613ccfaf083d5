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

#endif
