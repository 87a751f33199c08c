/* Grain size of pipelined (DOACROSS) loops, [Siegell 1997] §4.2.4: the
 * number of blocks M trades pipeline fill and drain ((p - 1) blocks of idle
 * time, shorter with small blocks) against per-message overhead (M + p - 2
 * shifts, fewer with large blocks). */
#include <math.h>
#include <stdbool.h>
#include <time.h>

#include <ballast/rebalance_plan.h>

#include "core/check.h"
#include "core/clock.h"

/* The paper's model, t_total = (M + p - 1) t_block + (M + p - 2) t_shift
 * with t_block = t_seq / (p M) and t_shift = t_fixed + t_incr b, taken
 * with the real block size b = ceil(m / M) and the real number of blocks
 * ceil(m / b). */
static double model(double t_seq, int64_t m, int p, double t_fixed, double t_incr, int64_t b,
                    int64_t *blocks) {
  int64_t M = (m + b - 1) / b;
  if (blocks) *blocks = M;
  double tb = t_seq / ((double)p * (double)M);
  double shifts = (double)M + p - 2;
  if (shifts < 0) shifts = 0;
  return ((double)M + p - 1) * tb + shifts * (t_fixed + t_incr * (double)b);
}

static bool valid_inputs(double t_seq, int64_t m, int p, double t_fixed, double t_incr) {
  return bal__finite_pos(t_seq) && m >= 1 && p >= 1 && bal__finite_nonneg(t_fixed) &&
         bal__finite_nonneg(t_incr);
}

int bal_rebalance_grain_time(double t_seq, int64_t m, int p, double t_fixed, double t_incr,
                             int64_t block_size, int64_t *blocks, double *t_total) {
  if (!valid_inputs(t_seq, m, p, t_fixed, t_incr) || block_size < 1 || block_size > m)
    return BAL_EINVAL;
  int64_t M;
  double t = model(t_seq, m, p, t_fixed, t_incr, block_size, &M);
  if (blocks) *blocks = M;
  if (t_total) *t_total = t;
  return BAL_OK;
}

int bal_rebalance_grain(double t_seq, int64_t m, int p, double t_fixed, double t_incr,
                        int64_t *blocks, int64_t *block_size, double *t_total) {
  if (!valid_inputs(t_seq, m, p, t_fixed, t_incr)) return BAL_EINVAL;
  double mstar;
  double num = t_seq * (1.0 - 1.0 / p) + t_incr * (double)m * (p - 2);
  if (p == 1 || num <= 0.0)
    mstar = 1.0;
  else if (t_fixed == 0.0)
    mstar = (double)m;
  else
    mstar = sqrt(num / t_fixed);
  if (mstar < 1.0) mstar = 1.0;
  if (mstar > (double)m) mstar = (double)m;
  /* Integer block sizes around m / M*: the model is convex in M, but
   * b = ceil(m / M) maps several M to one b, so try the block sizes of the
   * integers near M* as well as the sizes near m / M* (a scan of all b
   * agrees on random cases: test_rebalance_decide). */
  int64_t best_b = 0;
  double best = INFINITY;
  int64_t mc = (int64_t)mstar;
  for (int64_t k = -8; k <= 8; k++) {
    int64_t cand[3] = {0, 0, 0};
    int64_t M = mc + k;
    if (M >= 1 && M <= m) {
      cand[0] = (m + M - 1) / M;
      cand[1] = m / M;
    }
    cand[2] = (int64_t)ceil((double)m / mstar) + k;
    for (int c = 0; c < 3; c++) {
      int64_t b = cand[c];
      if (b < 1 || b > m) continue;
      double t = model(t_seq, m, p, t_fixed, t_incr, b, NULL);
      if (t < best) {
        best = t;
        best_b = b;
      }
    }
  }
  int64_t M;
  double t = model(t_seq, m, p, t_fixed, t_incr, best_b, &M);
  if (blocks) *blocks = M;
  if (block_size) *block_size = best_b;
  if (t_total) *t_total = t;
  return BAL_OK;
}

int bal_rebalance_time_min(void (*fn)(void *arg), void *arg, int reps, double *min_s) {
  if (!fn || reps < 1 || !min_s) return BAL_EINVAL;
  int64_t best = INT64_MAX;
  for (int i = 0; i < reps; i++) {
    int64_t t0 = bal__now_ns();
    fn(arg);
    int64_t d = bal__now_ns() - t0;
    if (d < best) best = d;
  }
  *min_s = (double)best * 1e-9;
  return BAL_OK;
}
