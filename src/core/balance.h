/* Private: the load-balance figure of the POP methodology, one
 * implementation for every module that reports it (pop's region reports,
 * rebalance's log line at each decision, the tools).
 *
 *   load balance = average of t / maximum of t
 *
 * over the per-rank (or per-worker) times t: 1 when all are equal, 1/n
 * when one of n does all the work. Pure arithmetic, in core so that
 * modules that may not include each other share it. */
#ifndef BALLAST_CORE_BALANCE_H
#define BALLAST_CORE_BALANCE_H

#include <math.h>
#include <stdint.h>

/* The figure itself, from the sum and the maximum of n times: for a
 * caller that has both already (rebalance's scan of its ranks), so that it
 * needs no array of the times. NaN when max is 0. No checks: the caller
 * knows its times are finite and non-negative. */
static inline double bal__load_balance_of(double sum, double max, int64_t n) {
  return max > 0.0 ? sum / (double)n / max : NAN;
}

/* Store avg(t)/max(t) over t[0..n) in *lb and return BAL_OK; NaN when
 * every t is 0 (nothing to measure: an undefined figure is not a number).
 * BAL_EINVAL, *lb untouched, if t or lb is NULL, n < 1, or a t is negative
 * or not finite. */
int bal__load_balance(const double *t, int64_t n, double *lb);

#endif
