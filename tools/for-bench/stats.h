/* Statistics over for-bench's rounds: the median, and a schedule against
 * the best of several baselines without the winner's curse. Picking the fastest of k noisy medians and reporting it from the
 * same rounds biases the best baseline's time low by about the medians'
 * spread (with ten baselines that deal alike, the best of ten is faster
 * than any one of them by chance). Picking on half of the rounds and
 * measuring on the other half does not: the pick's noise and the
 * measurement's are independent. */
#ifndef BALLAST_FOR_BENCH_STATS_H
#define BALLAST_FOR_BENCH_STATS_H

/* Median of v[0..n-1] (n >= 1); reorders v. */
double bench_median(double *v, int n);

/* rows[b][r]: round r's time of the schedule over baseline b's (> 1: the
 * schedule was slower), for nrows baselines and reps rounds.
 *
 * Returns the median over all rounds of rows[pick(r)][r], where pick(r) is
 * the baseline with the highest median ratio (the fastest) over the rounds
 * of the other parity than r: even rounds are measured against the
 * baseline picked on the odd ones and vice versa. NAN when reps < 2 or
 * nrows < 1. Ties go to the lower index. `*picked_even` and
 * `*picked_odd` (either may be NULL) receive the baselines the even and the
 * odd rounds were measured against. Pure: no side effects on rows. */
double bench_heldout_ratio(const double *const *rows, int nrows, int reps, int *picked_even,
                           int *picked_odd);

#endif
