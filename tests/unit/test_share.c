/* SD-Policy's sharing rule (ballast/share.h): the range of the sharing
 * factor and the number of CPUs a mate lends, at the edges the callers
 * (sched, node, the SPANK plugin) rely on. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/share.h>

static void factor_range_is_open_at_zero_closed_at_one(void **state) {
  (void)state;
  assert_true(bal_share_factor_valid(BAL_SHARE_FACTOR_DEFAULT));
  assert_true(bal_share_factor_valid(1.0));
  assert_true(bal_share_factor_valid(1e-300));
  assert_true(bal_share_factor_valid(BAL_SHARE_FACTOR_MAX));
  assert_false(bal_share_factor_valid(BAL_SHARE_FACTOR_MIN));
  assert_false(bal_share_factor_valid(0.0));
  assert_false(bal_share_factor_valid(-0.0));
  assert_false(bal_share_factor_valid(-0.5));
  assert_false(bal_share_factor_valid(nextafter(1.0, 2.0)));
  assert_false(bal_share_factor_valid(NAN));
  assert_false(bal_share_factor_valid(INFINITY));
  assert_false(bal_share_factor_valid(-INFINITY));
}

static void lend_is_floor_capped_by_a_cpu_per_rank(void **state) {
  (void)state;
  /* floor(SF × C) when the ranks leave room */
  assert_int_equal(bal_share_lend(0.5, 16, 1), 8);
  assert_int_equal(bal_share_lend(0.5, 15, 1), 7);
  assert_int_equal(bal_share_lend(0.3, 10, 2), 3);
  assert_int_equal(bal_share_lend(0.25, 3, 1), 0);
  /* C − R when the ranks do not */
  assert_int_equal(bal_share_lend(0.5, 16, 12), 4);
  assert_int_equal(bal_share_lend(0.5, 16, 16), 0);
  /* SF = 1 lends all but a CPU per rank */
  assert_int_equal(bal_share_lend(1.0, 16, 1), 15);
  assert_int_equal(bal_share_lend(1.0, 16, 4), 12);
  assert_int_equal(bal_share_lend(1.0, 1, 1), 0);
  /* more ranks than CPUs, or nothing held: 0, never negative */
  assert_int_equal(bal_share_lend(1.0, 4, 9), 0);
  assert_int_equal(bal_share_lend(0.5, 0, 0), 0);
  /* no ranks: nothing is kept back */
  assert_int_equal(bal_share_lend(1.0, 8, 0), 8);
  /* the product is exact for every CPU count a node has */
  assert_int_equal(bal_share_lend(0.5, INT64_C(1) << 40, 1), INT64_C(1) << 39);
}

static void lend_refuses_bad_arguments(void **state) {
  (void)state;
  assert_int_equal(bal_share_lend(0.0, 16, 1), BAL_EINVAL);
  assert_int_equal(bal_share_lend(1.5, 16, 1), BAL_EINVAL);
  assert_int_equal(bal_share_lend(NAN, 16, 1), BAL_EINVAL);
  assert_int_equal(bal_share_lend(0.5, -1, 0), BAL_EINVAL);
  assert_int_equal(bal_share_lend(0.5, 16, -1), BAL_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(factor_range_is_open_at_zero_closed_at_one),
      cmocka_unit_test(lend_is_floor_capped_by_a_cpu_per_rank),
      cmocka_unit_test(lend_refuses_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
