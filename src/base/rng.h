/*
 * rng: deterministic pseudo-random numbers.  Nothing here reads the clock
 * or the environment: the same seed always gives the same sequence, so
 * outputs that involve chance (world-info probability, inclusion-group
 * draws) stay byte-stable in tests.
 *
 * struct rng is SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit state
 * advanced by a Weyl constant and mixed.  rng_double() takes the top 53
 * bits, so it returns a double in [0, 1) like JavaScript's Math.random().
 *
 * For SillyTavern's {{pick}} macro the module also carries the two
 * algorithms SillyTavern uses there, for byte parity: cyrb53 (a 53-bit
 * string hash over UTF-16 code units) and the ARC4 generator of the
 * `seedrandom` npm package, seeded with a string.  The state structs are
 * plain values owned by the caller; nothing is allocated.
 */
#ifndef RNG_H
#define RNG_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t state;
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1), 53 random bits. */
double rng_double(struct rng *r);

/*
 * cyrb53(str, seed) as published (public domain) and used by SillyTavern's
 * getStringHash(): s[0..n) is UTF-8 and is hashed as the UTF-16 code units
 * JavaScript would see (invalid bytes count as U+FFFD).  The result is
 * below 2^53.
 */
uint64_t rng_cyrb53(const char *s, size_t n, uint32_t seed);

/* seedrandom's ARC4-based generator: `new Math.seedrandom(seed)`. */
struct rng_arc4 {
	uint8_t s[256];
	uint8_t i, j;
};
/* Seed with the string seed[0..n) (UTF-8, mixed as UTF-16 code units as
 * seedrandom's mixkey() does). */
void rng_arc4_seed(struct rng_arc4 *a, const char *seed, size_t n);
/* The next double in [0, 1), exactly as seedrandom's prng() computes it. */
double rng_arc4_double(struct rng_arc4 *a);

#endif
