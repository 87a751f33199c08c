/* for-bench's comparison with the best baseline picked on the other rounds
 * (tools/for-bench/stats.c): each half of the rounds is measured against
 * the baseline fastest on the other half; the result is the median of those
 * per-round ratios; and it removes the winner's curse that picking and
 * measuring on the same rounds has (many equal baselines with noise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "stats.h"

/* Ratios t(schedule) / t(baseline): higher means a faster baseline. */
static void each_half_uses_the_other_halfs_pick(void **state) {
  (void)state;
  /* Baseline 1 is fastest on even rounds, baseline 2 on odd ones; 0 never. */
  const double b0[6] = {0.90, 0.90, 0.90, 0.90, 0.90, 0.90};
  const double b1[6] = {1.10, 0.95, 1.12, 0.96, 1.11, 0.97};
  const double b2[6] = {0.99, 1.20, 0.98, 1.21, 0.97, 1.22};
  const double *rows[3] = {b0, b1, b2};
  int even = -1, odd = -1;
  double m = bench_heldout_ratio(rows, 3, 6, &even, &odd);
  /* Even rounds against the odd rounds' pick (2), odd against the even's (1). */
  assert_int_equal(even, 2);
  assert_int_equal(odd, 1);
  /* The per-round ratios: 0.99 0.95 0.98 0.96 0.97 0.97 -> median 0.97. */
  assert_true(fabs(m - 0.97) < 1e-12);
}

static void odd_round_counts_and_ties_go_low(void **state) {
  (void)state;
  const double a[3] = {1.0, 1.0, 1.0};
  const double b[3] = {1.0, 1.0, 1.0};
  const double *rows[2] = {a, b};
  int even = -1, odd = -1;
  assert_true(fabs(bench_heldout_ratio(rows, 2, 3, &even, &odd) - 1.0) < 1e-12);
  assert_int_equal(even, 0);
  assert_int_equal(odd, 0);
  /* One baseline: the plain median of its ratios. */
  const double c[5] = {1.3, 0.7, 1.0, 1.1, 0.9};
  const double *one[1] = {c};
  assert_true(fabs(bench_heldout_ratio(one, 1, 5, NULL, NULL) - 1.0) < 1e-12);
}

static void undefined_without_two_rounds_or_a_baseline(void **state) {
  (void)state;
  const double a[1] = {1.0};
  const double *rows[1] = {a};
  assert_true(isnan(bench_heldout_ratio(rows, 1, 1, NULL, NULL)));
  assert_true(isnan(bench_heldout_ratio(rows, 0, 4, NULL, NULL)));
}

/* Normal noise from a fixed xorshift (Box-Muller). */
static double gauss(uint64_t *s) {
  double u[2];
  for (int k = 0; k < 2; k++) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    u[k] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
  }
  return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* Ten baselines as fast as the schedule, each round's ratio 1 + 1% noise:
 * the best of ten medians of the same rounds reads the schedule ~0.6% slow;
 * the held-out figure stays at 1 within the noise of a median. */
static void no_winners_curse(void **state) {
  (void)state;
  enum { B = 10, R = 10, TRIALS = 400 };
  uint64_t seed = 0x9E3779B97F4A7C15u;
  double sum_same = 0, sum_held = 0;
  for (int t = 0; t < TRIALS; t++) {
    double v[B][R], tmp[R];
    const double *rows[B];
    double best = 0;
    for (int b = 0; b < B; b++) {
      for (int r = 0; r < R; r++) tmp[r] = v[b][r] = 1.0 + 0.01 * gauss(&seed);
      double m = bench_median(tmp, R);
      if (b == 0 || m > best) best = m;
      rows[b] = v[b];
    }
    sum_same += best;
    sum_held += bench_heldout_ratio(rows, B, R, NULL, NULL);
  }
  double same = sum_same / TRIALS, held = sum_held / TRIALS;
  assert_true(same > 1.004);            /* the curse: about 1.5 sigma of a median */
  assert_true(fabs(held - 1.0) < 0.002); /* unbiased */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(each_half_uses_the_other_halfs_pick),
      cmocka_unit_test(odd_round_counts_and_ties_go_low),
      cmocka_unit_test(undefined_without_two_rounds_or_a_baseline),
      cmocka_unit_test(no_winners_curse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
