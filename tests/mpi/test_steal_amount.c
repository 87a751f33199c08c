/* steal: how many queued tasks a victim gives a thief
 * (bal__steal_amount, a pure function, no MPI calls), against the rule
 * written out case by case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "steal/steal_internal.h"

static void the_fraction_rounded_down(void **state) {
  (void)state;
  assert_int_equal(bal__steal_amount(10, 1, 0.5), 5);
  assert_int_equal(bal__steal_amount(9, 1, 0.5), 4);
  assert_int_equal(bal__steal_amount(9, 0, 0.5), 4);
  assert_int_equal(bal__steal_amount(100, 2, 0.1), 10);
  assert_int_equal(bal__steal_amount(3, 0, 0.25), 1); /* at least one */
  assert_int_equal(bal__steal_amount(2, 0, 0.5), 1);
}

static void nothing_queued_nothing_given(void **state) {
  (void)state;
  assert_int_equal(bal__steal_amount(0, 0, 0.5), 0);
  assert_int_equal(bal__steal_amount(0, 3, 1.0), 0);
}

/* A busy victim keeps its running task: it may give its last queued one,
 * whatever that task is (spawned or added). */
static void a_busy_victim_gives_its_last(void **state) {
  (void)state;
  assert_int_equal(bal__steal_amount(1, 1, 0.5), 1);
  assert_int_equal(bal__steal_amount(1, 4, 0.01), 1);
  assert_int_equal(bal__steal_amount(5, 1, 1.0), 5);
}

/* An idle victim keeps one queued task to run, even at fraction 1. */
static void an_idle_victim_keeps_one(void **state) {
  (void)state;
  assert_int_equal(bal__steal_amount(1, 0, 0.5), 0);
  assert_int_equal(bal__steal_amount(1, 0, 1.0), 0);
  assert_int_equal(bal__steal_amount(5, 0, 1.0), 4);
  assert_int_equal(bal__steal_amount(2, 0, 1.0), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_fraction_rounded_down),
      cmocka_unit_test(nothing_queued_nothing_given),
      cmocka_unit_test(a_busy_victim_gives_its_last),
      cmocka_unit_test(an_idle_victim_keeps_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
