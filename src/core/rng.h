/* Private: small, fast, seedable pseudo-random generators (not for crypto).
 * Hand-written rather than taken from a library: the whole thing is a dozen
 * lines, must be identical on every platform for reproducible seeds, and
 * libc's rand_r/random are neither. */
#ifndef BALLAST_CORE_RNG_H
#define BALLAST_CORE_RNG_H

#include <stdint.h>

/* SplitMix64 step: good 64-bit mixing; used to seed and to hash. */
static inline uint64_t bal__splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* xoshiro256** generator state. */
typedef struct bal__rng {
  uint64_t s[4];
} bal__rng;

static inline void bal__rng_seed(bal__rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = bal__splitmix64(&seed);
}

static inline uint64_t bal__rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t bal__rng_next(bal__rng *r) {
  uint64_t *s = r->s;
  uint64_t result = bal__rotl64(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = bal__rotl64(s[3], 45);
  return result;
}

/* Uniform integer in [0, n), n > 0 (Lemire's multiply-shift, tiny bias ok). */
__extension__ typedef unsigned __int128 bal__u128;
static inline uint64_t bal__rng_below(bal__rng *r, uint64_t n) {
  return (uint64_t)(((bal__u128)bal__rng_next(r) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double bal__rng_uniform(bal__rng *r) {
  return (double)(bal__rng_next(r) >> 11) * 0x1.0p-53;
}

#endif
