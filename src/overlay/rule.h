/* Private: the rule that decides which edges an overlay has. Everything here
 * is a pure function of (nodes, degree, exponent, seed), so any rank can
 * compute any node's neighbour list on its own; a whole-graph build
 * (build.c) gives the same lists, computed in bulk.
 *
 * Shape of the graph, by size (target = min(degree, N - 1)):
 *  - OV_COMPLETE: target == N - 1, every pair linked.
 *  - OV_RING:     target <= 2, the ring alone.
 *  - OV_DENSE:    small or dense graphs; each non-ring pair {u,v} at ring
 *                 distance d is linked iff a hash of the pair falls below
 *                 min(1, c * d^-exponent), c solved so the expected degree
 *                 is the target. O(N) per neighbour list.
 *  - OV_SPARSE:   everything else. The same saturated law as OV_DENSE:
 *                 where c d^-exponent >= 1, i.e. up to ring distance
 *                 `near`, every pair is linked; longer shortcuts come from
 *                 `rounds` random partial matchings, one partner per node
 *                 per round, so both ends of an edge find it in O(1) (see
 *                 partner.c). The last round keeps each of its pairs with a
 *                 fraction chosen by calibration (calibrate.c) so the
 *                 average degree meets the target. O(rounds) hashes per
 *                 neighbour list. */
#ifndef BALLAST_OVERLAY_RULE_H
#define BALLAST_OVERLAY_RULE_H

#include <stdint.h>

#include "core/rng.h"

typedef enum bal__ov_kind { OV_RING, OV_COMPLETE, OV_DENSE, OV_SPARSE } bal__ov_kind;

/* Probabilities are compared against the top 53 bits of a hash. */
#define OV_P_ONE (UINT64_C(1) << 53)

/* What a matching round shares across the ring: rotation and block depth. */
typedef struct bal__ov_round {
  int64_t rot;
  int depth;
} bal__ov_round;

typedef struct bal__ov_rule {
  int64_t n;
  int degree;      /* as requested */
  int target;      /* min(degree, n - 1) */
  double exponent; /* in use */
  uint64_t seed;
  bal__ov_kind kind;
  int max_degree; /* bound on any node's list length */
  /* OV_SPARSE */
  int near;     /* every pair at ring distance <= near is linked */
  double inv_n; /* 1.0 / n */
  int rounds;
  uint64_t last_keep;        /* pair of the last round kept iff hash53 < last_keep */
  int depth_max;             /* deepest level of the block tiling */
  uint64_t cum[64];          /* depth l is used for Weyl value u53 iff cum[l-1] <= u53 < cum[l] */
  uint64_t weyl0;            /* start of the Weyl sequence of depths */
  bal__ov_round *round_info; /* per round (set up by calibration) */
  /* OV_DENSE: keep[d] for ring distance d in [0, n/2] */
  uint64_t *keep;
} bal__ov_rule;

/* Node counts up to this many always use OV_DENSE. */
#define OV_DENSE_MAX_N 1024

/* Set up the rule (validates nothing: callers check the arguments).
 * Returns BAL_OK or BAL_ENOMEM. */
int bal__ov_rule_init(bal__ov_rule *r, int64_t n, int degree, double exponent, uint64_t seed);
void bal__ov_rule_free(bal__ov_rule *r);

/* Write u's sorted, duplicate-free neighbour list into buf (capacity
 * r->max_degree) and return its length. */
int bal__ov_rule_neighbors(const bal__ov_rule *r, int64_t u, int64_t *buf);

/* Sort v[0..k) (values in [0, n)) and drop duplicates; returns the new
 * length (sort.c). */
int bal__ov_sort_unique(int64_t *v, int k, int64_t n);

/* The same neighbours, possibly unsorted and with repeats. */
int bal__ov_rule_neighbors_raw(const bal__ov_rule *r, int64_t u, int64_t *buf);

/* OV_SPARSE: u's partner in matching `round`, or -1 if u has none there.
 * Symmetric: partner(partner(u)) == u. Ring links and the last round's
 * keep test are not applied here. */
int64_t bal__ov_partner(const bal__ov_rule *r, int round, int64_t u);

/* OV_SPARSE: the rotation and block depth of matching `round`. */
void bal__ov_round_setup(const bal__ov_rule *r, int round, bal__ov_round *out);

/* OV_SPARSE building blocks of bal__ov_partner(), for the whole-graph build:
 * block k of a depth-`depth` tiling is [lo, hi); its permutation key; the
 * permutation of [0, s) itself (b = bal__ov_bits_for(s - 1)). Positions are
 * node + rotation (mod N). */
void bal__ov_block(const bal__ov_rule *r, int depth, uint64_t k, uint64_t *lo, uint64_t *hi);
uint64_t bal__ov_block_key(const bal__ov_rule *r, int round, uint64_t lo);
uint64_t bal__ov_perm(uint64_t key, int b, uint64_t s, uint64_t x);
int bal__ov_bits_for(uint64_t v);

/* Whole graph (build.c): off[0..N] and adj receive every node's sorted
 * list, exactly as bal__ov_rule_neighbors() gives it. BAL_OK or BAL_ENOMEM. */
int bal__ov_build_whole(const bal__ov_rule *r, int64_t **off, int64_t **adj);

/* OV_SPARSE: is the pair {u, v} of the last round kept? */
int bal__ov_last_round_keeps(const bal__ov_rule *r, int64_t u, int64_t v);

/* OV_SPARSE: choose `near` from the saturated law c d^-exponent. */
int bal__ov_choose_near(const bal__ov_rule *r);

/* OV_SPARSE: choose rounds and last_keep (needs near and the tiling). */
int bal__ov_calibrate_sparse(bal__ov_rule *r);

/* OV_DENSE: fill r->keep (allocates it). */
int bal__ov_calibrate_dense(bal__ov_rule *r);

/* Ring distance between two nodes of an n-ring. */
static inline int64_t bal__ov_ring_dist(int64_t n, int64_t a, int64_t b) {
  int64_t d = a > b ? a - b : b - a;
  return d < n - d ? d : n - d;
}

/* Hashing: one SplitMix64 step (core/rng.h) over a linear mix of the
 * inputs; fast and well spread, all the overlay needs. */
static inline uint64_t bal__ov_mix(uint64_t z) { return bal__splitmix64(&z); }
static inline uint64_t bal__ov_hash(uint64_t key, uint64_t a, uint64_t b) {
  return bal__ov_mix(key ^ bal__ov_mix(a * 0x9E3779B97F4A7C15ull + b * 0xD1B54A32D192ED03ull + 1));
}
/* Probability in [0, 1] to a threshold for (hash >> 11) < threshold. */
static inline uint64_t bal__ov_threshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return OV_P_ONE;
  return (uint64_t)(p * (double)OV_P_ONE);
}

/* Domain-separation tags. */
enum { OV_TAG_ROT = 1, OV_TAG_TILE = 2, OV_TAG_PERM = 3, OV_TAG_KEEP = 4, OV_TAG_PAIR = 5 };

#endif
