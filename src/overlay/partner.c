/* The sparse overlay's long shortcuts: per round, a random partial
 * matching of the ring whose pair lengths follow P(d) ~ d^-exponent.
 *
 * Round r rotates the ring by a random offset and cuts it into 2^l blocks
 * [floor(k N / 2^l), floor((k+1) N / 2^l)); the depth l of round r comes
 * from a Weyl sequence pushed through the depth distribution, so any
 * number of rounds visits the depths in proportion to their weights
 * (N/2^l)^(1-exponent). Inside a block of size S, positions are paired by a
 * keyed random permutation pi: i is matched with pi^-1(pi(i) xor 1) (none if
 * that falls outside the block, which happens to one node when S is odd).
 * A block of size S yields lengths spread over [1, S), so the mixture over
 * depths gives P(d) ~ d^-exponent.
 *
 * Every input of the computation is shared by the two ends of a pair (the
 * round, its rotation and depth, the block), so the partner is found from
 * either side in O(1) hashes. */
#include "overlay/rule.h"

#define K1 0x9E3779B97F4A7C15ull
#define K2 0xD1B54A32D192ED03ull

static inline uint64_t low_mask(int w) { return (UINT64_C(1) << w) - 1; }

/* Feistel round function, w output bits: multiplicative hashing of the
 * input xor the round key, output taken from the well-mixed high bits.
 * One multiplication on purpose: it runs 8 to 30 times per partner. */
static inline uint64_t round_fn(uint64_t round_key, uint64_t x, int w) {
  return ((x ^ round_key) * K1) >> (64 - w);
}

/* A keyed permutation of [0, 2^b), b >= 2: an unbalanced Feistel network
 * whose two halves swap widths every round. How many rounds: the matching
 * pairs i with pi^-1(pi(i) xor 1), and that flipped bit only stops
 * correlating i with its partner once round functions of w-bit halves
 * have each differed (probability 1 - 2^-w per round); with too few rounds
 * small blocks pair near positions more often than a random matching does
 * (measured: 36% instead of 25% lost in blocks of 8). */
static inline int feistel_rounds(int b) { return b <= 4 ? 16 : b <= 7 ? 10 : b <= 11 ? 7 : 4; }

static uint64_t feistel(uint64_t key, int b, uint64_t x) {
  const int rounds = feistel_rounds(b);
  int wh = b / 2, wl = b - wh;
  uint64_t hi = x >> wl, lo = x & low_mask(wl);
  uint64_t rk = key;
  for (int i = 0; i < rounds; i++, rk += K2) {
    uint64_t nlo = hi ^ round_fn(rk, lo, wh);
    hi = lo;
    lo = nlo;
    int t = wh;
    wh = wl;
    wl = t;
  }
  return (hi << wl) | lo;
}

static uint64_t feistel_inv(uint64_t key, int b, uint64_t x) {
  const int rounds = feistel_rounds(b);
  int wh = b / 2, wl = b - wh; /* the output layout: swapped after an odd round count */
  if (rounds & 1) {
    wl = b / 2;
    wh = b - wl;
  }
  uint64_t hi = x >> wl, lo = x & low_mask(wl);
  uint64_t rk = key + (uint64_t)(rounds - 1) * K2;
  for (int i = rounds - 1; i >= 0; i--, rk -= K2) {
    uint64_t plo = hi;
    uint64_t phi = lo ^ round_fn(rk, plo, wl);
    hi = phi;
    lo = plo;
    int t = wh;
    wh = wl;
    wl = t;
  }
  return (hi << wl) | lo;
}

/* Cycle-walking restricts the permutation of [0, 2^b) to [0, s). */
uint64_t bal__ov_perm(uint64_t key, int b, uint64_t s, uint64_t x) {
  do x = feistel(key, b, x);
  while (x >= s);
  return x;
}

static uint64_t perm_inv(uint64_t key, int b, uint64_t s, uint64_t x) {
  do x = feistel_inv(key, b, x);
  while (x >= s);
  return x;
}

int bal__ov_bits_for(uint64_t v) { return 64 - __builtin_clzll(v); } /* v >= 1 */

void bal__ov_block(const bal__ov_rule *r, int depth, uint64_t k, uint64_t *lo, uint64_t *hi) {
  const uint64_t n = (uint64_t)r->n;
  if (n <= (UINT64_C(1) << 31)) {
    *lo = (k * n) >> depth;
    *hi = ((k + 1) * n) >> depth;
  } else {
    *lo = (uint64_t)(((bal__u128)k * n) >> depth);
    *hi = (uint64_t)(((bal__u128)(k + 1) * n) >> depth);
  }
}

uint64_t bal__ov_block_key(const bal__ov_rule *r, int round, uint64_t lo) {
  return bal__ov_mix(r->seed ^ ((uint64_t)OV_TAG_PERM << 56) ^ ((uint64_t)round * K1) ^ (lo * K2));
}

void bal__ov_round_setup(const bal__ov_rule *r, int round, bal__ov_round *out) {
  uint64_t u = (r->weyl0 + (uint64_t)round * K1) >> 11;
  int l = 0;
  while (l < r->depth_max && u >= r->cum[l]) l++;
  uint64_t h = bal__ov_mix(r->seed ^ ((uint64_t)OV_TAG_ROT << 56) ^ ((uint64_t)round * K2));
  out->rot = (int64_t)(((bal__u128)h * (uint64_t)r->n) >> 64);
  out->depth = l;
}

int64_t bal__ov_partner(const bal__ov_rule *r, int round, int64_t u) {
  const int64_t n = r->n;
  bal__ov_round own;
  const bal__ov_round *rd = r->round_info;
  if (rd) {
    rd += round;
  } else {
    bal__ov_round_setup(r, round, &own);
    rd = &own;
  }
  const int64_t rot = rd->rot;
  const int l = rd->depth;
  int64_t x = u + rot;
  if (x >= n) x -= n;

  /* Block k of depth l holds x iff floor(k n / 2^l) <= x < floor((k+1) n / 2^l). */
  uint64_t k, lo, hi;
  if (n <= (INT64_C(1) << 31)) {
    /* k = ((x + 1) 2^l - 1) / n, by a floating-point estimate made exact by
     * the corrections (a hardware division costs as much as the rest). */
    k = (uint64_t)(((double)(((uint64_t)x + 1) << l) - 1) * r->inv_n);
    bal__ov_block(r, l, k, &lo, &hi);
    while (lo > (uint64_t)x) bal__ov_block(r, l, --k, &lo, &hi);
    while (hi <= (uint64_t)x) bal__ov_block(r, l, ++k, &lo, &hi);
  } else {
    k = (uint64_t)(((((bal__u128)x + 1) << l) - 1) / (uint64_t)n);
    bal__ov_block(r, l, k, &lo, &hi);
  }

  uint64_t s = hi - lo;
  int b = bal__ov_bits_for(s - 1);
  uint64_t key = bal__ov_block_key(r, round, lo);
  uint64_t j = bal__ov_perm(key, b, s, (uint64_t)x - lo) ^ 1;
  if (j >= s) return -1;
  int64_t v = (int64_t)(lo + perm_inv(key, b, s, j)) - rot;
  if (v < 0) v += n;
  return v;
}

int bal__ov_last_round_keeps(const bal__ov_rule *r, int64_t u, int64_t v) {
  if (r->last_keep >= OV_P_ONE) return 1;
  uint64_t a = (uint64_t)(u < v ? u : v), b = (uint64_t)(u < v ? v : u);
  return (bal__ov_hash(r->seed ^ ((uint64_t)OV_TAG_KEEP << 56), a, b) >> 11) < r->last_keep;
}
