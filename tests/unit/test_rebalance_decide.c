/* rebalance: threshold and profitability decisions, period selection, the
 * grain-size formula (against a scan of every block count), the filters'
 * names. Compiled without MPI: ballast/rebalance_plan.h needs none. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <ballast/rebalance_plan.h>

#ifdef MPI_VERSION
#error "this test is compiled without <mpi.h>: rebalance_plan.h must not include it"
#endif

#include "core/rng.h"

static void decide_threshold_and_profit(void **state) {
  (void)state;
  bal_rebalance_verdict v;
  double r;
  /* 10 s -> 9.5 s is 5%: below the 10% threshold */
  assert_int_equal(bal_rebalance_decide(10, 9.5, 0.10, 0, 100, 2, &v, &r), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_BALANCED);
  assert_true(fabs(r - 0.05) < 1e-12);
  /* exactly at the threshold: no move (hysteresis) */
  assert_int_equal(bal_rebalance_decide(10, 9, 0.10, 0, 100, 2, &v, &r), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_BALANCED);
  /* 20%: move if cost <= 2 * 0.2 * horizon */
  assert_int_equal(bal_rebalance_decide(10, 8, 0.10, 3.9, 10, 2, &v, &r), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_MOVE);
  assert_int_equal(bal_rebalance_decide(10, 8, 0.10, 4.1, 10, 2, &v, &r), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_UNPROFITABLE);
  /* profitability off */
  assert_int_equal(bal_rebalance_decide(10, 8, 0.10, 1e9, 10, 0, &v, &r), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_MOVE);
  /* threshold 0: any strict improvement moves, none does not */
  assert_int_equal(bal_rebalance_decide(10, 9.999, 0, 0, 1, 2, &v, NULL), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_MOVE);
  assert_int_equal(bal_rebalance_decide(10, 10, 0, 0, 1, 2, &v, NULL), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_BALANCED);
  assert_int_equal(bal_rebalance_decide(0, 0, 0.1, 0, 1, 2, &v, NULL), BAL_OK);
  assert_int_equal(v, BAL_REBALANCE_BALANCED);
  /* bad input */
  assert_int_equal(bal_rebalance_decide(NAN, 1, 0.1, 0, 1, 2, &v, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_decide(1, -1, 0.1, 0, 1, 2, &v, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_decide(1, 1, 1.0, 0, 1, 2, &v, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_decide(1, 1, 0.1, -1, 1, 2, &v, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_decide(1, 1, 0.1, 0, INFINITY, 2, &v, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_decide(1, 1, 0.1, 0, 1, 2, NULL, NULL), BAL_EINVAL);
}

static void step_time_is_the_slowest_rank(void **state) {
  (void)state;
  int64_t n[3] = {10, 10, 10};
  double rate[3] = {10, 5, 20}, t;
  assert_int_equal(bal_rebalance_step_time(3, n, rate, &t), BAL_OK);
  assert_true(t == 2.0);
  /* after proportional targets the time is the ideal one */
  int64_t tg[3];
  assert_int_equal(bal_rebalance_targets(3, 35, rate, tg), BAL_OK);
  assert_true(tg[0] == 10 && tg[1] == 5 && tg[2] == 20);
  assert_int_equal(bal_rebalance_step_time(3, tg, rate, &t), BAL_OK);
  assert_true(t == 1.0);
  rate[1] = 0;
  assert_int_equal(bal_rebalance_step_time(3, n, rate, &t), BAL_EINVAL);
}

static void period_takes_the_largest_limit(void **state) {
  (void)state;
  bal_rebalance_period_in in = {.interact_s = 0.001, .f_interact = 0.05, .move_s = 0,
                                .workscale = 4, .quantum_s = 0.01, .quantum_scale = 10,
                                .iter_s = 0.002, .max_interval = 1000};
  double per;
  int64_t k;
  /* quantum: 0.1 s beats 0.001/0.05 = 0.02 s */
  assert_int_equal(bal_rebalance_period(&in, &per, &k), BAL_OK);
  assert_true(fabs(per - 0.1) < 1e-12);
  assert_int_equal(k, 50);
  /* interaction cost dominates */
  in.interact_s = 0.01;
  assert_int_equal(bal_rebalance_period(&in, &per, &k), BAL_OK);
  assert_true(fabs(per - 0.2) < 1e-12);
  assert_int_equal(k, 100);
  /* a move of 2 s spread over 4 periods */
  in.move_s = 2.0;
  assert_int_equal(bal_rebalance_period(&in, &per, &k), BAL_OK);
  assert_true(fabs(per - 0.5) < 1e-12);
  assert_int_equal(k, 250);
  /* clamps: slow iterations -> 1, fast ones -> max_interval */
  in.iter_s = 10;
  assert_int_equal(bal_rebalance_period(&in, NULL, &k), BAL_OK);
  assert_int_equal(k, 1);
  in.iter_s = 1e-9;
  assert_int_equal(bal_rebalance_period(&in, NULL, &k), BAL_OK);
  assert_int_equal(k, 1000);
  in.iter_s = 0;
  assert_int_equal(bal_rebalance_period(&in, &per, &k), BAL_EINVAL);
  in.iter_s = 1;
  in.workscale = 0.5;
  assert_int_equal(bal_rebalance_period(&in, &per, &k), BAL_EINVAL);
  assert_int_equal(bal_rebalance_period(NULL, &per, &k), BAL_EINVAL);
}

/* The grain model of [Siegell 1997] §4.2.4, evaluated for a block size b
 * (M = ceil(m / b)). */
static double model(double ts, int64_t m, int p, double tf, double ti, int64_t b) {
  int64_t M = (m + b - 1) / b;
  double shifts = (double)M + p - 2;
  if (shifts < 0) shifts = 0;
  return ((double)M + p - 1) * ts / ((double)p * (double)M) + shifts * (tf + ti * (double)b);
}

static void grain_matches_scan(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 17);
  for (int round = 0; round < 2000; round++) {
    int64_t m = 1 + (int64_t)bal__rng_below(&r, 2000);
    int p = 1 + (int)bal__rng_below(&r, 64);
    double ts = 0.01 + bal__rng_uniform(&r) * 10;
    double tf = bal__rng_below(&r, 10) == 0 ? 0 : bal__rng_uniform(&r) * 1e-3;
    double ti = bal__rng_below(&r, 3) == 0 ? 0 : bal__rng_uniform(&r) * 1e-5;
    int64_t M, b;
    double t;
    assert_int_equal(bal_rebalance_grain(ts, m, p, tf, ti, &M, &b, &t), BAL_OK);
    assert_true(b >= 1 && b <= m && M == (m + b - 1) / b);
    assert_true(fabs(t - model(ts, m, p, tf, ti, b)) <= 1e-12 * t);
    double best = INFINITY;
    for (int64_t bb = 1; bb <= m; bb++) best = fmin(best, model(ts, m, p, tf, ti, bb));
    /* the closed form and its integer neighbours find the best block size */
    if (!(t <= best * (1 + 1e-12)))
      fail_msg("m=%lld p=%d: %.9g vs best %.9g", (long long)m, p, t, best);
  }
  /* the paper's closed form on a case with an interior optimum */
  int64_t M;
  double ts = 4.0, tf = 1e-3, ti = 0;
  assert_int_equal(bal_rebalance_grain(ts, 1000, 4, tf, ti, &M, NULL, NULL), BAL_OK);
  double mstar = sqrt(ts * (1 - 1.0 / 4) / tf); /* 54.8 */
  assert_true(fabs((double)M - mstar) <= 3);
  /* p = 1: a single block; t_fixed = 0: one iteration per block */
  assert_int_equal(bal_rebalance_grain(1, 100, 1, 1e-3, 0, &M, NULL, NULL), BAL_OK);
  assert_int_equal(M, 1);
  assert_int_equal(bal_rebalance_grain(1, 100, 8, 0, 0, &M, NULL, NULL), BAL_OK);
  assert_int_equal(M, 100);
  assert_int_equal(bal_rebalance_grain(0, 100, 8, 0, 0, &M, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain(1, 0, 8, 0, 0, &M, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain(1, 10, 0, 0, 0, &M, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain(1, 10, 2, -1, 0, &M, NULL, NULL), BAL_EINVAL);
}

/* bal_rebalance_grain_time: the oracle's curve at every block size, the
 * optimum's time at the chosen one, and errors that write nothing. */
static void grain_time_is_the_model(void **state) {
  (void)state;
  const double ts = 2.5, tf = 2e-4, ti = 3e-7;
  const int64_t m = 300;
  const int p = 6;
  for (int64_t b = 1; b <= m; b++) {
    int64_t M = 0;
    double t = 0;
    assert_int_equal(bal_rebalance_grain_time(ts, m, p, tf, ti, b, &M, &t), BAL_OK);
    assert_int_equal(M, (m + b - 1) / b);
    assert_true(fabs(t - model(ts, m, p, tf, ti, b)) <= 1e-12 * t);
  }
  int64_t Mopt, bopt, M;
  double topt, t;
  assert_int_equal(bal_rebalance_grain(ts, m, p, tf, ti, &Mopt, &bopt, &topt), BAL_OK);
  assert_int_equal(bal_rebalance_grain_time(ts, m, p, tf, ti, bopt, &M, &t), BAL_OK);
  assert_int_equal(M, Mopt);
  assert_true(t == topt);
  assert_int_equal(bal_rebalance_grain_time(ts, m, p, tf, ti, 1, NULL, NULL), BAL_OK);
  M = -7;
  t = -7;
  assert_int_equal(bal_rebalance_grain_time(ts, m, p, tf, ti, 0, &M, &t), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain_time(ts, m, p, tf, ti, m + 1, &M, &t), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain_time(NAN, m, p, tf, ti, 1, &M, &t), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain_time(ts, m, 0, tf, ti, 1, &M, &t), BAL_EINVAL);
  assert_int_equal(bal_rebalance_grain_time(ts, m, p, -1, ti, 1, &M, &t), BAL_EINVAL);
  assert_true(M == -7 && t == -7);
}

static void spin(void *arg) {
  volatile double *x = arg;
  for (int i = 0; i < 1000; i++) *x += i;
}

static void time_min_measures(void **state) {
  (void)state;
  double x = 0, t = -1;
  assert_int_equal(bal_rebalance_time_min(spin, &x, 5, &t), BAL_OK);
  assert_true(t >= 0 && t < 1);
  assert_int_equal(bal_rebalance_time_min(NULL, &x, 5, &t), BAL_EINVAL);
  assert_int_equal(bal_rebalance_time_min(spin, &x, 0, &t), BAL_EINVAL);
}

/* The filters' names round-trip through the parser. */
static void filter_names(void **state) {
  (void)state;
  for (int m = 0; m < 3; m++) {
    bal_rebalance_filter f;
    assert_int_equal(
        bal_rebalance_filter_parse(bal_rebalance_filter_name((bal_rebalance_filter)m), &f),
        BAL_OK);
    assert_int_equal(f, m);
  }
  assert_null(bal_rebalance_filter_name((bal_rebalance_filter)9));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(decide_threshold_and_profit), cmocka_unit_test(step_time_is_the_slowest_rank),
      cmocka_unit_test(period_takes_the_largest_limit), cmocka_unit_test(grain_matches_scan),
      cmocka_unit_test(grain_time_is_the_model),
      cmocka_unit_test(time_min_measures), cmocka_unit_test(filter_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
