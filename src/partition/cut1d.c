/* Cuts of a chain near reference cuts within a tolerance.
 *
 * bal_rebalance_cuts() gives the best bottleneck B and, among the cuts with
 * exactly that bottleneck, those nearest the reference. A small change of
 * the weights moves the best cuts all along the chain, though, and an
 * incremental step would rather leave a part a little heavier than move
 * every boundary: so with a tolerance the bound is B' = (1 + tol) B, and of
 * the candidates within it the one that moves the fewest items wins,
 * counted as the caller will count them (chain_moves.c: after REMAP's
 * relabelling when the caller relabels). Counting |c_k - ref_k| instead
 * ranked the candidates as if labels followed the chain; when weight moves
 * from one end of the curve to the other, every cut between moves by
 * about a part under that count, and the relabelled fresh partition moved
 * up to three times fewer items than the chosen step. The candidates:
 * - fresh: the cuts of a partition without reference (the caller's, as
 *   the curve strings move them to coarse blocks: cut_align.c; else the
 *   proportional cuts among the best): with it among the candidates a step
 *   never moves more than a fresh partition would.
 * - clamped: each cut in turn takes its target clamped to what B' allows:
 *   no further than part k-1 can reach from its start, no earlier than the
 *   parts after it need to cover the rest of the chain (a greedy pass from
 *   the end). A cut that respects the second bound always leaves room for
 *   the first, so the two never cross. The targets are the reference cuts,
 *   or the reference cut nearest each fresh cut (where a relabelled fresh
 *   partition would keep a part whole; "snapped"). Each also clamped from
 *   the other end of the chain: whether the left or the right neighbour of
 *   a part that grew has room depends on the field.
 * - blended: the cuts part of the way from the reference to the best cuts,
 *   c = ref + t (best - ref), with the smallest t (bisection) within B'.
 * - nearest: of the cuttings within B', the one with the least sum of
 *   |c_k - ref_k|, exactly (cut_band.c): no cut of it lies further from
 *   its reference than the least sum of the candidates above, so a band of
 *   that half-width holds it, and its search is cheap when they moved
 *   little; past 16 MiB the band is narrower and the search exact only
 *   within it. Where a part's excess must travel along the chain to parts
 *   with room, the rules above move more cuts than needed.
 * - dp: a few positions per cut that keep pieces whole under shifted
 *   labels (cut_dp.c), seeded with the best so far.
 * O(n + p log n), plus the band's bounded O(p D) (cut_band.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_plan.h>

#include "partition_internal.h"

/* Rounds of cut_dp.c, each with the best cuts so far among its positions */
#define DP_ROUNDS 4

/* Largest j in [at, n] with pre[j] <= limit (pre[at] <= limit). */
static int64_t reach(const double *pre, int64_t at, int64_t n, double limit) {
  return bal__part_first(pre, at + 1, n + 1, limit, true) - 1;
}

/* Smallest j in [0, end] with pre[end] - pre[j] <= cap. */
static int64_t earliest(const double *pre, int64_t end, double cap) {
  return bal__part_first(pre, 0, end, pre[end] - cap, false);
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

/* Sum of |c_k - ref_k|: how far the cuts moved. */
static int64_t displacement(int p, const int64_t *ref, const int64_t *c) {
  int64_t s = 0;
  for (int k = 1; k < p; k++) s += c[k] > ref[k] ? c[k] - ref[k] : ref[k] - c[k];
  return s;
}

static void blended(int p, const int64_t *ref, const int64_t *best, double t, int64_t *c) {
  for (int k = 0; k <= p; k++)
    c[k] = ref[k] + (int64_t)llround(t * (double)(best[k] - ref[k]));
}

/* The current cut nearest each fresh cut: where the relabelled fresh
 * partition would keep a part whole. A fresh cut that snaps to the same
 * current cut as its predecessor keeps its own position. O(p). */
static void snapped(int p, const int64_t *ref, const int64_t *fresh, int64_t *t) {
  int m = 0, last = -1;
  t[0] = 0;
  for (int k = 1; k < p; k++) {
    while (m < p && ref[m + 1] - fresh[k] <= fresh[k] - ref[m]) m++;
    t[k] = m == last ? fresh[k] : ref[m];
    last = m;
  }
  t[p] = ref[p];
}

int bal__part_cut1d(int64_t n, const double *w, int p, const int64_t *ref, double tol, bool remap,
                    const int64_t *fresh_in, int64_t *cuts) {
  double best;
  int rc = bal_rebalance_cuts(n, w, p, NULL, ref, cuts, &best);
  if (rc != BAL_OK || !ref || !(tol > 0.0) || p < 2) return rc;
  size_t row = (size_t)(p + 1) * sizeof(int64_t);
  double *pre = malloc((size_t)(n + 1) * sizeof *pre);
  double *rpre = malloc((size_t)(n + 1) * sizeof *rpre);
  int64_t *lo = malloc(row), *a = malloc(row), *b = malloc(row), *fresh = malloc(row);
  int64_t *snap = malloc(row), *rref = malloc(row);
  void *scratch = malloc(bal__part_chain_scratch(p));
  if (!pre || !rpre || !lo || !a || !b || !fresh || !snap || !rref || !scratch) {
    rc = BAL_ENOMEM;
    goto out;
  }
  pre[0] = 0.0;
  for (int64_t j = 0; j < n; j++) pre[j + 1] = pre[j] + bal__part_w(w, j);
  for (int64_t j = 0; j <= n; j++) rpre[j] = pre[n] - pre[n - j]; /* the chain reversed */
  double cap = best * (1.0 + tol);
  int64_t moved = bal__part_chain_moved(pre, p, ref, cuts, remap, scratch);
  /* the least displacement of a candidate within the bound: the nearest
   * cuts lie no further than that from ref, each */
  int64_t span = displacement(p, ref, cuts);
  /* a candidate within the bound replaces the cuts when it moves fewer items */
#define CONSIDER(x)                                                                           \
  do {                                                                                        \
    if (heaviest(pre, p, (x)) <= cap) {                                                       \
      int64_t d_ = displacement(p, ref, (x));                                                 \
      if (d_ < span) span = d_;                                                               \
      int64_t m_ = bal__part_chain_moved(pre, p, ref, (x), remap, scratch);                   \
      if (m_ < moved) {                                                                       \
        moved = m_;                                                                           \
        memcpy(cuts, (x), row);                                                               \
      }                                                                                       \
    }                                                                                         \
  } while (0)
  /* the fresh partition's cuts: the step never moves more than it would */
  if (fresh_in)
    memcpy(fresh, fresh_in, row);
  else if ((rc = bal_rebalance_cuts(n, w, p, NULL, NULL, fresh, NULL)) != BAL_OK)
    goto out;
  CONSIDER(fresh);
  /* blended: t = 1 (the best cuts) always fits */
  double fit = 1.0, fail = 0.0;
  memcpy(a, cuts, row); /* the best cuts nearest ref */
  blended(p, ref, a, 0.0, b);
  if (heaviest(pre, p, b) <= cap) {
    fit = 0.0;
  } else {
    for (int s = 0; s < 30; s++) {
      double mid = fail + (fit - fail) / 2.0;
      blended(p, ref, a, mid, b);
      if (heaviest(pre, p, b) <= cap)
        fit = mid;
      else
        fail = mid;
    }
  }
  blended(p, ref, a, fit, b);
  CONSIDER(b);
  /* clamped toward the current cuts, and toward the current cuts nearest
   * the fresh ones; each from either end of the chain */
  snapped(p, ref, fresh, snap);
  for (int pass = 0; pass < 2; pass++) {
    const int64_t *target = pass == 0 ? ref : snap;
    clamped(pre, n, p, target, cap, lo, a);
    CONSIDER(a);
    for (int k = 0; k <= p; k++) rref[k] = n - target[p - k];
    clamped(rpre, n, p, rref, cap, lo, a);
    for (int k = 0; k <= p; k++) b[k] = n - a[p - k];
    CONSIDER(b);
  }
  /* the cuts nearest the current ones, exactly: within `span` of them
   * each, unless that exceeds the band's memory */
  bool near = false;
  if ((rc = bal__part_cut_band(pre, n, p, ref, cap, span, a, &near)) != BAL_OK) goto out;
  if (near) CONSIDER(a);
  /* the few positions per cut that keep pieces whole under shifted labels */
  for (int round = 0; round < DP_ROUNDS; round++) {
    memcpy(a, cuts, row);
    const int64_t *hints[] = {fresh, snap, a};
    bool found = false;
    rc = bal__part_cut_dp(pre, n, p, ref, cap, hints, 3, b, &found);
    if (rc != BAL_OK) goto out;
    if (!found || memcmp(a, b, row) == 0) break;
    int64_t before = moved;
    CONSIDER(b);
    if (moved == before) break;
  }
#undef CONSIDER
out:
  free(pre);
  free(rpre);
  free(lo);
  free(a);
  free(b);
  free(fresh);
  free(snap);
  free(rref);
  free(scratch);
  return rc;
}
