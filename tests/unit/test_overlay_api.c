/* overlay: argument checking, info, neighbour copies and victim selection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include <ballast/ballast.h>

static void bad_arguments_give_einval(void **state) {
  (void)state;
  bal_overlay *ov = NULL;
  assert_int_equal(bal_overlay_create(0, 4, 0, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(-5, 4, 0, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, 1, 0, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, 0, 0, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, -3, 0, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, 4, NAN, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, 4, INFINITY, 1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(10, 4, 0, 1, NULL), BAL_EINVAL);
  assert_null(ov);
  assert_int_equal(bal_overlay_create_local(10, 4, 0, 1, -1, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create_local(10, 4, 0, 1, 10, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create_local(0, 4, 0, 1, 0, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create_local(10, 1, 0, 1, 0, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create_local(10, 4, 0, 1, 0, NULL), BAL_EINVAL);
  assert_null(ov);

  assert_int_equal(bal_overlay_create(10, 4, 0, 1, &ov), BAL_OK);
  const int64_t *l;
  int k;
  int64_t buf[16];
  assert_int_equal(bal_overlay_neighbors(NULL, 0, &l, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors(ov, -1, &l, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors(ov, 10, &l, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors(ov, 0, NULL, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors(ov, 0, &l, NULL), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors_copy(NULL, 0, buf, 16, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors_copy(ov, 10, buf, 16, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors_copy(ov, 0, buf, -1, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors_copy(ov, 0, NULL, 4, &k), BAL_EINVAL);
  assert_int_equal(bal_overlay_neighbors_copy(ov, 0, buf, 16, NULL), BAL_EINVAL);
  assert_int_equal(bal_overlay_next_hop(NULL, 0, 1), BAL_EINVAL);
  assert_int_equal(bal_overlay_next_hop(ov, -1, 1), BAL_EINVAL);
  assert_int_equal(bal_overlay_next_hop(ov, 0, 10), BAL_EINVAL);
  assert_int_equal(bal_overlay_next_hop(ov, 10, 0), BAL_EINVAL);
  bal_overlay_info info;
  assert_int_equal(bal_overlay_get_info(NULL, &info), BAL_EINVAL);
  assert_int_equal(bal_overlay_get_info(ov, NULL), BAL_EINVAL);
  bal_overlay_destroy(ov);
  bal_overlay_destroy(NULL);
}

static void info_describes_the_overlay(void **state) {
  (void)state;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(5000, 40, -1, 77, &ov), BAL_OK);
  bal_overlay_info info;
  assert_int_equal(bal_overlay_get_info(ov, &info), BAL_OK);
  assert_int_equal(info.nodes, 5000);
  assert_int_equal(info.degree, 40);
  assert_int_equal(info.target_degree, 40);
  assert_true(info.exponent == BAL_OVERLAY_DEFAULT_EXPONENT);
  assert_true(info.seed == 77);
  assert_int_equal(info.local_node, -1);
  assert_true(info.edges > 0);
  assert_true(info.max_degree >= 40);
  bal_overlay_destroy(ov);
  assert_int_equal(bal_overlay_create(3, 40, 2.5, 1, &ov), BAL_OK);
  assert_int_equal(bal_overlay_get_info(ov, &info), BAL_OK);
  assert_int_equal(info.target_degree, 2);
  assert_true(info.exponent == 2.5);
  bal_overlay_destroy(ov);
}

static void copies_and_local_limits(void **state) {
  (void)state;
  bal_overlay *loc;
  assert_int_equal(bal_overlay_create_local(5000, 40, 0, 3, 17, &loc), BAL_OK);
  const int64_t *own;
  int k;
  assert_int_equal(bal_overlay_neighbors(loc, 17, &own, &k), BAL_OK);
  assert_true(k > 10);
  int64_t far = 2500; /* held only if it happens to be a neighbour of 17 */
  int held = far == 17;
  for (int i = 0; i < k; i++) held |= own[i] == far;
  const int64_t *l;
  int kk;
  if (!held) assert_int_equal(bal_overlay_neighbors(loc, far, &l, &kk), BAL_ENOTSUP);
  int64_t small[2];
  int count = -1;
  assert_int_equal(bal_overlay_neighbors_copy(loc, 17, small, 2, &count), BAL_ERANGE);
  assert_int_equal(count, k);
  assert_int_equal(bal_overlay_neighbors_copy(loc, far, small, 2, &count), BAL_ERANGE);
  assert_true(count > 2);
  assert_int_equal(bal_overlay_neighbors_copy(loc, far, NULL, 0, &count), BAL_ERANGE);
  int64_t *buf = malloc(sizeof *buf * (size_t)count);
  int c2;
  assert_int_equal(bal_overlay_neighbors_copy(loc, far, buf, count, &c2), BAL_OK);
  assert_int_equal(c2, count);
  free(buf);
  bal_overlay_destroy(loc);
  /* a single node: no neighbours, copy of an empty list is fine */
  bal_overlay *one;
  assert_int_equal(bal_overlay_create_local(1, 8, 0, 0, 0, &one), BAL_OK);
  assert_int_equal(bal_overlay_neighbors_copy(one, 0, NULL, 0, &count), BAL_OK);
  assert_int_equal(count, 0);
  assert_int_equal(bal_overlay_next_hop(one, 0, 0), 0);
  uint64_t st = 1;
  int64_t victim;
  assert_int_equal(bal_overlay_victim_uniform(one, 0, &st, &victim), BAL_ERANGE);
  bal_overlay_destroy(one);
}

static void uniform_victims_cover_neighbours_evenly(void **state) {
  (void)state;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(2000, 20, 0, 5, &ov), BAL_OK);
  const int64_t *l;
  int k;
  assert_int_equal(bal_overlay_neighbors(ov, 100, &l, &k), BAL_OK);
  int *hits = calloc((size_t)k, sizeof *hits);
  uint64_t st = 12345;
  const int draws = 20000 * k / 20;
  for (int d = 0; d < draws; d++) {
    int64_t v;
    assert_int_equal(bal_overlay_victim_uniform(ov, 100, &st, &v), BAL_OK);
    int i = 0;
    while (i < k && l[i] != v) i++;
    assert_true(i < k); /* always a neighbour */
    hits[i]++;
  }
  double expect = (double)draws / k;
  for (int i = 0; i < k; i++) assert_true(fabs(hits[i] - expect) < 0.15 * expect);
  free(hits);
  /* same state, same sequence */
  uint64_t s1 = 9, s2 = 9;
  for (int d = 0; d < 100; d++) {
    int64_t a, b;
    bal_overlay_victim_uniform(ov, 5, &s1, &a);
    bal_overlay_victim_uniform(ov, 5, &s2, &b);
    assert_int_equal(a, b);
  }
  int64_t v;
  assert_int_equal(bal_overlay_victim_uniform(ov, 5, NULL, &v), BAL_EINVAL);
  assert_int_equal(bal_overlay_victim_uniform(ov, 5, &s1, NULL), BAL_EINVAL);
  assert_int_equal(bal_overlay_victim_uniform(ov, 2000, &s1, &v), BAL_EINVAL);
  assert_int_equal(bal_overlay_victim_uniform(NULL, 5, &s1, &v), BAL_EINVAL);
  bal_overlay_destroy(ov);
}

static void biased_victims_follow_latency(void **state) {
  (void)state;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(2000, 20, 0, 5, &ov), BAL_OK);
  const int64_t *l;
  int k;
  assert_int_equal(bal_overlay_neighbors(ov, 100, &l, &k), BAL_OK);
  double *lat = malloc(sizeof *lat * (size_t)k);
  for (int i = 0; i < k; i++) lat[i] = 4.0;
  lat[3] = 1.0; /* one neighbour four times closer */
  uint64_t st = 777;
  int hit3 = 0, draws = 40000;
  for (int d = 0; d < draws; d++) {
    int64_t v;
    assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 1.0, &st, &v), BAL_OK);
    hit3 += v == l[3];
  }
  /* weight 1 vs 1/4 for the k - 1 others */
  double p3 = 1.0 / (1.0 + (k - 1) * 0.25);
  assert_true(fabs((double)hit3 / draws - p3) < 0.02);
  /* bias 0: uniform */
  hit3 = 0;
  for (int d = 0; d < draws; d++) {
    int64_t v;
    assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 0.0, &st, &v), BAL_OK);
    hit3 += v == l[3];
  }
  assert_true(fabs((double)hit3 / draws - 1.0 / k) < 0.015);
  /* no table: ring distance, so ring neighbours come first */
  int ring = 0;
  for (int d = 0; d < draws; d++) {
    int64_t v;
    assert_int_equal(bal_overlay_victim_biased(ov, 100, NULL, 1.0, &st, &v), BAL_OK);
    ring += v == 99 || v == 101;
  }
  assert_true((double)ring / draws > 2.0 / k * 1.5);
  int64_t v;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, -1.0, &st, &v), BAL_EINVAL);
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, NAN, &st, &v), BAL_EINVAL);
  lat[0] = 0.0;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 1.0, &st, &v), BAL_EINVAL);
  lat[0] = -2.0;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 1.0, &st, &v), BAL_EINVAL);
  lat[0] = NAN;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 1.0, &st, &v), BAL_EINVAL);
  assert_int_equal(bal_overlay_victim_biased(ov, 100, NULL, 1.0, NULL, &v), BAL_EINVAL);
  free(lat);
  bal_overlay_destroy(ov);
}

/* Draw many victims with latencies lat and bias; count each neighbour. */
static void count_draws(const bal_overlay *ov, const int64_t *l, int k, const double *lat,
                        double bias, int draws, int *hits) {
  uint64_t st = 4242;
  for (int i = 0; i < k; i++) hits[i] = 0;
  for (int d = 0; d < draws; d++) {
    int64_t v;
    assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, bias, &st, &v), BAL_OK);
    int found = 0;
    for (int i = 0; i < k; i++)
      if (l[i] == v) hits[i]++, found = 1;
    assert_true(found);
  }
}

/* The contract for extreme but valid inputs: finite positive latencies and a
 * finite bias always give BAL_OK; equal latencies draw uniformly; where the
 * weights underflow, only the lowest-latency neighbours are drawn. */
static void biased_victims_survive_extreme_weights(void **state) {
  (void)state;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(2000, 20, 0, 5, &ov), BAL_OK);
  const int64_t *l;
  int k;
  assert_int_equal(bal_overlay_neighbors(ov, 100, &l, &k), BAL_OK);
  double *lat = malloc(sizeof *lat * (size_t)k);
  int *hits = malloc(sizeof *hits * (size_t)k);
  const int draws = 20000;
  /* 1000^-200 underflows and 2^-1100 too as plain powers: still uniform. */
  const double equal[][2] = {{1000.0, 200.0}, {2.0, 1100.0}, {1e300, 1e6}, {1e-300, 3.0}};
  for (size_t c = 0; c < sizeof equal / sizeof equal[0]; c++) {
    for (int i = 0; i < k; i++) lat[i] = equal[c][0];
    count_draws(ov, l, k, lat, equal[c][1], draws, hits);
    for (int i = 0; i < k; i++)
      assert_true(fabs((double)hits[i] / draws - 1.0 / k) < 0.02);
  }
  /* one neighbour at 1e-308 with bias 2: its weight dwarfs all others. */
  for (int i = 0; i < k; i++) lat[i] = 1.0;
  lat[5] = 1e-308;
  count_draws(ov, l, k, lat, 2.0, draws, hits);
  assert_int_equal(hits[5], draws);
  /* two lowest at 1, the rest at 10 with bias 1000: only the two. */
  for (int i = 0; i < k; i++) lat[i] = 10.0;
  lat[0] = lat[k - 1] = 1.0;
  count_draws(ov, l, k, lat, 1000.0, draws, hits);
  assert_int_equal(hits[0] + hits[k - 1], draws);
  assert_true(hits[0] > draws / 3 && hits[k - 1] > draws / 3);
  /* the largest finite bias and latencies spanning the double range */
  for (int i = 0; i < k; i++) lat[i] = i % 2 ? 1e308 : 1e-308;
  count_draws(ov, l, k, lat, 1.7e308, draws / 10, hits);
  for (int i = 1; i < k; i += 2) assert_int_equal(hits[i], 0);
  double inf = INFINITY;
  int64_t v;
  uint64_t st = 1;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, inf, &st, &v), BAL_EINVAL);
  lat[2] = inf;
  assert_int_equal(bal_overlay_victim_biased(ov, 100, lat, 1.0, &st, &v), BAL_EINVAL);
  free(hits);
  free(lat);
  bal_overlay_destroy(ov);
}

/* Rings up to BAL_OVERLAY_MAX_NODES build a local neighbourhood and route
 * (in bounded time: the suite's timeout catches a spin); one more node is
 * refused. Above the limit the permutation would need 64-bit blocks. */
static void local_overlay_limit(void **state) {
  (void)state;
  const int64_t max = BAL_OVERLAY_MAX_NODES;
  const int64_t sizes[] = {max, max - 1, max / 2 + 1, INT64_C(4000000000000000000)};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    for (uint64_t seed = 1; seed <= 3; seed++) {
      bal_overlay *ov;
      int64_t node = (int64_t)(seed * (uint64_t)(sizes[i] / 5));
      assert_int_equal(bal_overlay_create_local(sizes[i], 40, 0, seed, node, &ov), BAL_OK);
      int64_t hop = bal_overlay_next_hop(ov, node, sizes[i] - 1);
      assert_true(hop >= 0 && hop < sizes[i]);
      bal_overlay_destroy(ov);
    }
  }
  bal_overlay *ov = NULL;
  assert_int_equal(bal_overlay_create_local(max + 1, 40, 0, 1, 0, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create_local(INT64_MAX, 40, 0, 1, 0, &ov), BAL_EINVAL);
  assert_int_equal(bal_overlay_create(max + 1, 40, 0, 1, &ov), BAL_EINVAL);
  assert_null(ov);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_arguments_give_einval),
      cmocka_unit_test(info_describes_the_overlay),
      cmocka_unit_test(copies_and_local_limits),
      cmocka_unit_test(uniform_victims_cover_neighbours_evenly),
      cmocka_unit_test(biased_victims_follow_latency),
      cmocka_unit_test(biased_victims_survive_extreme_weights),
      cmocka_unit_test(local_overlay_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
