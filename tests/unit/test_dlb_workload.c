/* DLB_Bench's workload generator (tools/dlb-bench/workload.c): the task
 * counts of every distribution add up, a drifting distribution moves along
 * the ranks by exactly its drift and wraps around, and task durations are
 * redrawn each iteration within the spread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static dlb_params params(dlb_dist dist, double drift) {
  return (dlb_params){.work_per_rank = 1.0,
                      .tasks_per_rank = 50,
                      .bytes_per_rank = 50 * 64.0,
                      .spread = 0.5,
                      .drift = drift,
                      .dist = dist,
                      .seed = 7};
}

static long long total(const long long *c, int p) {
  long long t = 0;
  for (int r = 0; r < p; r++) t += c[r];
  return t;
}

static void counts_add_up_in_every_iteration(void **state) {
  (void)state;
  enum { P = 97 };
  long long c[P];
  for (int d = 0; d < 4; d++)
    for (int iter = 0; iter < 5; iter++) {
      dlb_params prm = params((dlb_dist)d, 0.37);
      dlb_counts(&prm, P, iter, c);
      assert_int_equal(total(c, P), 50 * P);
      for (int r = 0; r < P; r++) assert_true(c[r] >= 0);
    }
}

static void no_drift_keeps_the_distribution(void **state) {
  (void)state;
  enum { P = 64 };
  long long c0[P], c3[P];
  dlb_params prm = params(DIST_GAUSSIAN, 0);
  dlb_counts(&prm, P, 0, c0);
  dlb_counts(&prm, P, 3, c3);
  assert_memory_equal(c0, c3, sizeof c0);
}

/* 200 ranks over x in [0, 10): a drift of 0.5 is 10 ranks per iteration. */
static void gaussian_moves_by_its_drift_and_wraps(void **state) {
  (void)state;
  enum { P = 200, SHIFT = 10 };
  long long c0[P], c[P];
  dlb_params prm = params(DIST_GAUSSIAN, 0.5);
  dlb_counts(&prm, P, 0, c0);
  for (int iter = 1; iter <= 12; iter++) { /* 12 * 10 ranks: past the wrap */
    dlb_counts(&prm, P, iter, c);
    for (int r = 0; r < P; r++) {
      /* Rounding of equal weights may hand a leftover task to another rank. */
      long long diff = c[(r + iter * SHIFT) % P] - c0[r];
      assert_true(diff >= -1 && diff <= 1);
    }
  }
  /* The peak really moved: iteration 0 peaks at the middle rank. */
  dlb_counts(&prm, P, 4, c);
  int peak0 = 0, peak = 0;
  for (int r = 1; r < P; r++) {
    if (c0[r] > c0[peak0]) peak0 = r;
    if (c[r] > c[peak]) peak = r;
  }
  assert_in_range(peak0, P / 2 - 1, P / 2);
  assert_in_range(peak, P / 2 - 1 + 4 * SHIFT, P / 2 + 4 * SHIFT);
}

static void single_owner_moves_rank_by_rank(void **state) {
  (void)state;
  enum { P = 10 };
  long long c[P];
  dlb_params prm = params(DIST_SINGLE, 1.0); /* one rank per iteration */
  for (int iter = 0; iter < 13; iter++) {
    dlb_counts(&prm, P, iter, c);
    assert_int_equal(c[iter % P], 50 * P);
  }
}

static double seconds_of(const dlb_params *prm, int iter, uint64_t gid, unsigned char *buf,
                         size_t len) {
  dlb_task_hdr h;
  dlb_make_input(prm, iter, gid, buf, len);
  memcpy(&h, buf, sizeof h);
  assert_int_equal(h.gid, gid);
  return h.seconds;
}

static void durations_are_redrawn_each_iteration(void **state) {
  (void)state;
  dlb_params prm = params(DIST_UNIFORM, 0);
  size_t len = dlb_input_len(&prm);
  unsigned char *buf = malloc(len), *again = malloc(len);
  assert_non_null(buf);
  assert_non_null(again);
  double mean = prm.work_per_rank / prm.tasks_per_rank;
  int differ = 0;
  for (uint64_t gid = 0; gid < 200; gid++) {
    double s0 = seconds_of(&prm, 0, gid, buf, len);
    /* Deterministic: every rank draws the same input. */
    uint64_t sum = dlb_make_input(&prm, 0, gid, again, len);
    assert_memory_equal(buf, again, len);
    assert_true(sum == dlb_checksum(buf, dlb_checked_len(len)));
    double s1 = seconds_of(&prm, 1, gid, buf, len);
    for (int k = 0; k < 2; k++) {
      double s = k ? s1 : s0;
      assert_true(s >= mean * (1 - prm.spread) && s <= mean * (1 + prm.spread));
    }
    differ += s0 != s1;
  }
  assert_true(differ >= 190);
  free(buf);
  free(again);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(counts_add_up_in_every_iteration),
      cmocka_unit_test(no_drift_keeps_the_distribution),
      cmocka_unit_test(gaussian_moves_by_its_drift_and_wraps),
      cmocka_unit_test(single_owner_moves_rank_by_rank),
      cmocka_unit_test(durations_are_redrawn_each_iteration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
