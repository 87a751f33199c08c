/* The competing-load model of ballast heat (tools/heat/load.c): the CPU
 * time the load takes over an interval matches the closed form, also from
 * start times that sit on phase boundaries (where rounding once mistook a
 * 6 s off-phase for an on-phase), and a compute phase stretched by
 * load_finish does exactly its work: (finish - start) - compete = work. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "heat.h"

static double closed_loaded(const heat_load *l, double a, double b) {
  /* on-time in [t0, t0 + x): whole cycles plus the on-part of the last one */
  double on = l->duty * l->period;
#define F(x) (floor((x) / l->period) * on + fmin(fmod((x), l->period), on))
  return F(b - l->t0) - F(a - l->t0);
#undef F
}

static void test_compete_matches_closed_form(void **state) {
  (void)state;
  srand(7);
  for (int k = 0; k < 20000; k++) {
    heat_load l = {LOAD_OSCILLATING, 2.0, 12.0, 0.5, 36000.0 + rand() % 100000 / 7.0, true};
    double a = l.t0 + (k % 3 == 0 ? (double)(rand() % 20) * 6.0 : rand() % 100000 / 1000.0);
    double b = a + rand() % 90000 / 1000.0;
    double want = 0.5 * closed_loaded(&l, a, b);
    assert_true(fabs(load_compete(&l, a, b) - want) < 1e-6);
  }
}

/* A start time found to trip the old code (on-time counted 24 s too long). */
static void test_boundary_regression(void **state) {
  (void)state;
  heat_load l = {LOAD_OSCILLATING, 2.0, 12.0, 0.5, 500.00370370367301, true};
  assert_true(fabs(load_compete(&l, l.t0, l.t0 + 62.3) - 0.5 * 32.3) < 1e-6);
  for (int i = 0; i < 100000; i++) { /* and its neighbours */
    l.t0 = 500 + i * 0.001234567891;
    assert_true(fabs(load_compete(&l, l.t0, l.t0 + 62.3) - 0.5 * 32.3) < 1e-6);
  }
}

static void test_finish_does_the_work(void **state) {
  (void)state;
  srand(11);
  for (int k = 0; k < 20000; k++) {
    double f = 1.0 + rand() % 40 / 10.0;
    heat_load l = {LOAD_OSCILLATING, f, 1.0 + rand() % 200 / 10.0, rand() % 11 / 10.0,
                   1e4 + rand() % 1000 / 3.0, true};
    double s = l.t0 + (k % 2 ? l.duty * l.period * (rand() % 5) : rand() % 50000 / 100.0);
    double w = rand() % 3000 / 100.0, end = load_finish(&l, s, w);
    assert_true(end >= s + w - 1e-9);
    assert_true(fabs((end - s) - load_compete(&l, s, end) - w) < 1e-6);
  }
  heat_load c = {LOAD_CONSTANT, 2.0, 1, 0, 0, true};
  assert_true(fabs(load_finish(&c, 5.0, 1.0) - 7.0) < 1e-12);
  assert_true(fabs(load_compete(&c, 5.0, 7.0) - 1.0) < 1e-12);
  c.here = false;
  assert_true(load_finish(&c, 5.0, 1.0) == 6.0 && load_compete(&c, 0, 10) == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_compete_matches_closed_form),
                                     cmocka_unit_test(test_boundary_regression),
                                     cmocka_unit_test(test_finish_does_the_work)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
