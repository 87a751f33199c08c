/* Cuts of a chain near reference cuts within a tolerance.
 *
 * bal_rebalance_cuts() gives the best bottleneck B and, among the cuts with
 * exactly that bottleneck, those nearest the reference. A small change of
 * the weights moves the best cuts everywhere along the chain, though, and
 * an incremental step would rather leave a part a little heavier than move
 * every boundary: so with a tolerance the bound is B' = (1 + tol) B, and
 * each cut in turn takes the reference position clamped to what B' allows:
 * no further than part k-1 can reach from its start, no earlier than the
 * parts after it need to cover the rest of the chain (a greedy pass from
 * the end). A cut that respects the second bound always leaves room for the
 * first, so the two never cross. O(n + p log n). */
#include <math.h>
#include <stdlib.h>

#include <ballast/rebalance_plan.h>

#include "partition_internal.h"

/* Largest j in [at, n] with pre[j] <= limit (pre[at] <= limit). */
static int64_t reach(const double *pre, int64_t at, int64_t n, double limit) {
  int64_t a = at, b = n;
  while (a < b) {
    int64_t mid = a + (b - a + 1) / 2;
    if (pre[mid] <= limit)
      a = mid;
    else
      b = mid - 1;
  }
  return a;
}

/* Smallest j in [0, end] with pre[end] - pre[j] <= cap. */
static int64_t earliest(const double *pre, int64_t end, double cap) {
  double limit = pre[end] - cap;
  int64_t a = 0, b = end;
  while (a < b) {
    int64_t mid = a + (b - a) / 2;
    if (pre[mid] >= limit)
      b = mid;
    else
      a = mid + 1;
  }
  return a;
}

int bal__part_cut1d(int64_t n, const double *w, int p, const int64_t *ref, double tol,
                    int64_t *cuts) {
  double best;
  int rc = bal_rebalance_cuts(n, w, p, NULL, ref, cuts, &best);
  if (rc != BAL_OK || !ref || !(tol > 0.0) || p < 2) return rc;
  double *pre = malloc((size_t)(n + 1) * sizeof *pre);
  int64_t *lo = malloc((size_t)(p + 1) * sizeof *lo);
  int64_t *c = malloc((size_t)(p + 1) * sizeof *c);
  if (!pre || !lo || !c) {
    free(pre);
    free(lo);
    free(c);
    return BAL_ENOMEM;
  }
  pre[0] = 0.0;
  for (int64_t j = 0; j < n; j++) pre[j + 1] = pre[j] + bal__part_w(w, j);
  double cap = best * (1.0 + tol);
  lo[p] = n;
  for (int k = p - 1; k >= 1; k--) lo[k] = earliest(pre, lo[k + 1], cap);
  c[0] = 0;
  for (int k = 1; k < p; k++) {
    int64_t hi = reach(pre, c[k - 1], n, pre[c[k - 1]] + cap);
    int64_t low = lo[k] > c[k - 1] ? lo[k] : c[k - 1];
    if (low > hi) low = hi; /* only by rounding */
    c[k] = ref[k] < low ? low : (ref[k] > hi ? hi : ref[k]);
  }
  c[p] = n;
  /* Keep the result only if rounding did not break the bound. */
  double worst = 0.0;
  for (int k = 0; k < p; k++) worst = fmax(worst, pre[c[k + 1]] - pre[c[k]]);
  if (worst <= cap)
    for (int k = 0; k <= p; k++) cuts[k] = c[k];
  free(pre);
  free(lo);
  free(c);
  return BAL_OK;
}
