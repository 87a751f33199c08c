/* Victim selection among a node's neighbours. */
#include "overlay/handle.h"

#include <math.h>

#include "core/check.h"

static double uniform01(uint64_t *state) {
  return (double)(bal__splitmix64(state) >> 11) * 0x1.0p-53;
}

static int held(const bal_overlay *ov, int64_t node, const int64_t **l, int *k) {
  int rc = bal_overlay_neighbors(ov, node, l, k);
  if (rc != BAL_OK) return rc;
  return *k > 0 ? BAL_OK : BAL_ERANGE;
}

int bal_overlay_victim_uniform(const bal_overlay *ov, int64_t node, uint64_t *state,
                               int64_t *victim) {
  if (!state || !victim) return BAL_EINVAL;
  const int64_t *l;
  int k;
  int rc = held(ov, node, &l, &k);
  if (rc != BAL_OK) return rc;
  *victim = l[((bal__u128)bal__splitmix64(state) * (uint64_t)k) >> 64];
  return BAL_OK;
}

/* Cost of neighbour i: its latency, or the ring distance when no latency
 * table is given. */
static double cost(const bal_overlay *ov, int64_t node, const int64_t *l, int i,
                   const double *latency) {
  return latency ? latency[i] : (double)bal__ov_ring_dist(ov->rule.n, node, l[i]);
}

/* Weight of neighbour i: (cost / least cost)^-bias, computed in the log
 * domain. Relative to the least cost, so the cheapest neighbours weigh
 * exactly 1 and the total is >= 1: no overflow for any finite bias and
 * cost (1000^-200 would underflow to 0 and 2^1100 overflow as plain
 * powers), while neighbours whose weight underflows drop out and leave the
 * draw to the cheapest ones. Equal costs weigh 1 each: a uniform draw. */
static double weight(double c, double log_least, double bias) {
  if (bias == 0) return 1.0;
  return exp(-bias * (log(c) - log_least));
}

int bal_overlay_victim_biased(const bal_overlay *ov, int64_t node, const double *latency,
                              double bias, uint64_t *state, int64_t *victim) {
  if (!state || !victim || !bal__finite_nonneg(bias)) return BAL_EINVAL;
  const int64_t *l;
  int k;
  int rc = held(ov, node, &l, &k);
  if (rc != BAL_OK) return rc;
  double least = INFINITY;
  for (int i = 0; i < k; i++) {
    double c = cost(ov, node, l, i, latency);
    if (!bal__finite_pos(c)) return BAL_EINVAL;
    if (c < least) least = c;
  }
  double log_least = log(least), total = 0;
  for (int i = 0; i < k; i++) total += weight(cost(ov, node, l, i, latency), log_least, bias);
  double pick = uniform01(state) * total;
  int i = 0;
  for (; i < k - 1; i++) {
    pick -= weight(cost(ov, node, l, i, latency), log_least, bias);
    if (pick < 0) break;
  }
  /* Rounding can leave pick >= 0 past the last positive weight; never end
   * on a neighbour that weighs nothing. */
  while (i > 0 && weight(cost(ov, node, l, i, latency), log_least, bias) == 0) i--;
  *victim = l[i];
  return BAL_OK;
}
