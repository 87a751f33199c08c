/* Cuts of a chain near reference cuts within a tolerance.
 *
 * bal_rebalance_cuts() gives the best bottleneck B and, among the cuts with
 * exactly that bottleneck, those nearest the reference. A small change of
 * the weights moves the best cuts all along the chain, though, and an
 * incremental step would rather leave a part a little heavier than move
 * every boundary: so with a tolerance the bound is B' = (1 + tol) B, and of
 * two candidates within it the one that moves fewer items wins (the items
 * that cross cut k are |c_k - ref_k|):
 * - clamped: each cut in turn takes its reference position clamped to what
 *   B' allows: no further than part k-1 can reach from its start, no
 *   earlier than the parts after it need to cover the rest of the chain (a
 *   greedy pass from the end). A cut that respects the second bound always
 *   leaves room for the first, so the two never cross. Good when a few
 *   cuts must move; but a cut pushed to its lower bound forces every later
 *   part to be full, moving every later cut.
 *   The same clamping from the other end of the chain is a third
 *   candidate: whether the left or the right neighbour of a part that grew
 *   has room depends on the field.
 * - blended: the cuts part of the way from the reference to the best cuts,
 *   c = ref + t (best - ref), with the smallest t (bisection) within B'.
 *   Moves every cut a little, never more than the best cuts do.
 * O(n + p log n). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_plan.h>

#include "partition_internal.h"

/* Largest j in [at, n] with pre[j] <= limit (pre[at] <= limit). */
static int64_t reach(const double *pre, int64_t at, int64_t n, double limit) {
  return bal__part_first(pre, at + 1, n + 1, limit, true) - 1;
}

/* Smallest j in [0, end] with pre[end] - pre[j] <= cap. */
static int64_t earliest(const double *pre, int64_t end, double cap) {
  return bal__part_first(pre, 0, end, pre[end] - cap, false);
}

/* Items crossing the cuts between c and ref. */
static int64_t distance(int p, const int64_t *c, const int64_t *ref) {
  int64_t d = 0;
  for (int k = 1; k < p; k++) d += c[k] > ref[k] ? c[k] - ref[k] : ref[k] - c[k];
  return d;
}

static double heaviest(const double *pre, int p, const int64_t *c) {
  double worst = 0.0;
  for (int k = 0; k < p; k++) worst = fmax(worst, pre[c[k + 1]] - pre[c[k]]);
  return worst;
}

static void clamped(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                    int64_t *lo, int64_t *c) {
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
}

static void blended(int p, const int64_t *ref, const int64_t *best, double t, int64_t *c) {
  for (int k = 0; k <= p; k++)
    c[k] = ref[k] + (int64_t)llround(t * (double)(best[k] - ref[k]));
}

int bal__part_cut1d(int64_t n, const double *w, int p, const int64_t *ref, double tol,
                    int64_t *cuts) {
  double best;
  int rc = bal_rebalance_cuts(n, w, p, NULL, ref, cuts, &best);
  if (rc != BAL_OK || !ref || !(tol > 0.0) || p < 2) return rc;
  double *pre = malloc((size_t)(n + 1) * sizeof *pre);
  int64_t *lo = malloc((size_t)(p + 1) * sizeof *lo);
  int64_t *a = malloc((size_t)(p + 1) * sizeof *a);
  int64_t *b = malloc((size_t)(p + 1) * sizeof *b);
  if (!pre || !lo || !a || !b) {
    rc = BAL_ENOMEM;
    goto out;
  }
  pre[0] = 0.0;
  for (int64_t j = 0; j < n; j++) pre[j + 1] = pre[j] + bal__part_w(w, j);
  double cap = best * (1.0 + tol);
  /* blended: t = 1 (the best cuts) always fits */
  double fit = 1.0, fail = 0.0;
  blended(p, ref, cuts, 0.0, b);
  if (heaviest(pre, p, b) <= cap) {
    fit = 0.0;
  } else {
    for (int s = 0; s < 30; s++) {
      double mid = fail + (fit - fail) / 2.0;
      blended(p, ref, cuts, mid, b);
      if (heaviest(pre, p, b) <= cap)
        fit = mid;
      else
        fail = mid;
    }
  }
  blended(p, ref, cuts, fit, b);
  if (!(heaviest(pre, p, b) <= cap)) memcpy(b, cuts, (size_t)(p + 1) * sizeof *b);
  memcpy(cuts, b, (size_t)(p + 1) * sizeof *cuts);
  clamped(pre, n, p, ref, cap, lo, a);
  if (heaviest(pre, p, a) <= cap && distance(p, a, ref) < distance(p, cuts, ref))
    memcpy(cuts, a, (size_t)(p + 1) * sizeof *cuts);
  /* clamped from the other end: the chain reversed (pre and ref mirrored) */
  for (int64_t j = 0; j <= n / 2; j++) {
    double x = pre[n] - pre[j], y = pre[n] - pre[n - j];
    pre[j] = y;
    pre[n - j] = x;
  }
  for (int k = 0; k <= p; k++) b[k] = n - ref[p - k];
  clamped(pre, n, p, b, cap, lo, a);
  for (int k = 0; k <= p; k++) b[k] = n - a[p - k];
  if (heaviest(pre, p, a) <= cap && distance(p, b, ref) < distance(p, cuts, ref))
    memcpy(cuts, b, (size_t)(p + 1) * sizeof *cuts);
out:
  free(pre);
  free(lo);
  free(a);
  free(b);
  return rc;
}
