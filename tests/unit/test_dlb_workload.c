/* DLB_Bench's workload generator (tools/dlb-bench/workload.c): the task
 * counts of every distribution add up, a drifting distribution moves along
 * the ranks by exactly its drift and wraps around, and task durations are
 * redrawn each iteration within the spread; the leftover tasks go by
 * largest remainder exactly as the one-at-a-time rule gave them. */
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

/* The rounding rule written the slow way (the largest remainder one
 * leftover task at a time, ties to the lower rank): what the published
 * figures were measured with, so the sorted version must give the same. */
static void counts_one_at_a_time(const dlb_params *prm, int p, int iter, long long *c) {
  long long *floor_of = malloc((size_t)p * sizeof *floor_of);
  double *frac = malloc((size_t)p * sizeof *frac);
  /* The exact shares, from the weights as workload.c computes them. */
  double shift = fmod((double)iter * prm->drift, 10.0), tw = 0;
  double *w = malloc((size_t)p * sizeof *w);
  for (int r = 0; r < p; r++) {
    double x = 10.0 * (r + 0.5) / p - shift;
    if (x < 0) x += 10.0;
    int r0 = (int)(x * p / 10.0);
    if (r0 >= p) r0 = p - 1;
    w[r] = prm->dist == DIST_GAUSSIAN ? exp(-0.5 * (x - 5.0) * (x - 5.0) / 0.25)
           : prm->dist == DIST_SINGLE ? (double)(r0 == 0)
                                      : 1.0;
    tw += w[r];
  }
  long long total = llround(prm->tasks_per_rank * p), given = 0;
  for (int r = 0; r < p; r++) {
    double exact = (double)total * w[r] / tw;
    floor_of[r] = (long long)floor(exact);
    frac[r] = exact - (double)floor_of[r];
    given += floor_of[r];
  }
  while (given < total) {
    int best = 0;
    for (int r = 1; r < p; r++)
      if (frac[r] > frac[best]) best = r;
    floor_of[best]++;
    frac[best] = -1;
    given++;
  }
  memcpy(c, floor_of, (size_t)p * sizeof *c);
  free(w);
  free(frac);
  free(floor_of);
}

static void leftovers_go_by_largest_remainder(void **state) {
  (void)state;
  const int sizes[] = {1, 2, 7, 97, 448, 1000, 3584};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    int p = sizes[k];
    long long *fast = malloc((size_t)p * sizeof *fast), *slow = malloc((size_t)p * sizeof *slow);
    for (int d = 0; d < 3; d++) /* gaussian, uniform, single: weights known here */
      for (int iter = 0; iter < 3; iter++) {
        dlb_params prm = params((dlb_dist)d, 0.37);
        prm.tasks_per_rank = 100.5; /* leftovers on every distribution */
        dlb_counts(&prm, p, iter, fast);
        counts_one_at_a_time(&prm, p, iter, slow);
        assert_memory_equal(fast, slow, (size_t)p * sizeof *fast);
        assert_int_equal(total(fast, p), llround(100.5 * p));
      }
    free(fast);
    free(slow);
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
      cmocka_unit_test(leftovers_go_by_largest_remainder),
      cmocka_unit_test(no_drift_keeps_the_distribution),
      cmocka_unit_test(gaussian_moves_by_its_drift_and_wraps),
      cmocka_unit_test(single_owner_moves_rank_by_rank),
      cmocka_unit_test(durations_are_redrawn_each_iteration),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
