/* Victim selection among a node's neighbours. */
#include "overlay/handle.h"

#include <math.h>

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

/* Weight of neighbour i: latency^-bias, ring distance standing in for a
 * missing latency table. */
static double weight(const bal_overlay *ov, int64_t node, const int64_t *l, int i,
                     const double *latency, double bias) {
  double c = latency ? latency[i] : (double)bal__ov_ring_dist(ov->rule.n, node, l[i]);
  return bias == 0 ? 1.0 : pow(c, -bias);
}

int bal_overlay_victim_biased(const bal_overlay *ov, int64_t node, const double *latency,
                              double bias, uint64_t *state, int64_t *victim) {
  if (!state || !victim || !isfinite(bias) || bias < 0) return BAL_EINVAL;
  const int64_t *l;
  int k;
  int rc = held(ov, node, &l, &k);
  if (rc != BAL_OK) return rc;
  double total = 0;
  for (int i = 0; i < k; i++) {
    if (latency && !(isfinite(latency[i]) && latency[i] > 0)) return BAL_EINVAL;
    total += weight(ov, node, l, i, latency, bias);
  }
  if (!(total > 0) || !isfinite(total)) return BAL_EINVAL;
  double pick = uniform01(state) * total;
  int i = 0;
  for (; i < k - 1; i++) {
    pick -= weight(ov, node, l, i, latency, bias);
    if (pick < 0) break;
  }
  *victim = l[i];
  return BAL_OK;
}
