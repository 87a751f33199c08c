/* overlay: the graph itself. Structure (sorted, no self-loops, no
 * duplicates, symmetric, ring present) for every N in 1..300 and several
 * large N, determinism, local == whole neighbourhoods, degree targets and
 * clamping, shortcut-length law. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/ballast.h>

#define DENSE_DIGEST 0x675f1b7a98b7ace8ull
#define SPARSE_DIGEST 0x2745610e2459c113ull

static int64_t ring_dist(int64_t n, int64_t a, int64_t b) {
  int64_t d = a > b ? a - b : b - a;
  return d < n - d ? d : n - d;
}

static int has(const int64_t *l, int k, int64_t x) {
  int lo = 0, hi = k;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (l[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k && l[lo] == x;
}

/* Structure checks on a whole graph; returns the average degree. */
static double check_whole(const bal_overlay *ov) {
  bal_overlay_info info;
  assert_int_equal(bal_overlay_get_info(ov, &info), BAL_OK);
  const int64_t n = info.nodes;
  int64_t sum = 0;
  for (int64_t u = 0; u < n; u++) {
    const int64_t *l;
    int k;
    assert_int_equal(bal_overlay_neighbors(ov, u, &l, &k), BAL_OK);
    assert_true(k <= info.max_degree);
    sum += k;
    for (int i = 0; i < k; i++) {
      assert_true(l[i] >= 0 && l[i] < n);
      assert_true(l[i] != u);              /* no self-loop */
      if (i) assert_true(l[i - 1] < l[i]); /* sorted, no duplicates */
      const int64_t *m;
      int j;
      assert_int_equal(bal_overlay_neighbors(ov, l[i], &m, &j), BAL_OK);
      assert_true(has(m, j, u)); /* symmetric */
    }
    if (n >= 2) assert_true(has(l, k, (u + 1) % n)); /* ring: connected */
    if (n >= 3) assert_true(has(l, k, (u + n - 1) % n));
  }
  assert_int_equal(info.edges * 2, sum);
  return (double)sum / (double)n;
}

/* The local handle of `node` holds exactly the whole graph's lists of node
 * and of its neighbours. */
static void check_local(const bal_overlay *whole, int64_t n, int degree, double exponent,
                        uint64_t seed, int64_t node) {
  bal_overlay *loc;
  assert_int_equal(bal_overlay_create_local(n, degree, exponent, seed, node, &loc), BAL_OK);
  const int64_t *a, *b;
  int ka, kb;
  assert_int_equal(bal_overlay_neighbors(whole, node, &a, &ka), BAL_OK);
  assert_int_equal(bal_overlay_neighbors(loc, node, &b, &kb), BAL_OK);
  assert_int_equal(ka, kb);
  if (ka) assert_memory_equal(a, b, sizeof *a * (size_t)ka);
  for (int i = 0; i < ka; i++) {
    const int64_t *c, *d;
    int kc, kd;
    assert_int_equal(bal_overlay_neighbors(whole, a[i], &c, &kc), BAL_OK);
    assert_int_equal(bal_overlay_neighbors(loc, a[i], &d, &kd), BAL_OK);
    assert_int_equal(kc, kd);
    if (kc) assert_memory_equal(c, d, sizeof *c * (size_t)kc);
  }
  bal_overlay_info info;
  assert_int_equal(bal_overlay_get_info(loc, &info), BAL_OK);
  assert_int_equal(info.local_node, node);
  assert_int_equal(info.edges, -1);
  /* a list the handle does not hold: computed on request, same again */
  int64_t far = (node + n / 2) % n;
  int64_t *buf = malloc(sizeof *buf * (size_t)(info.max_degree + 1));
  int kf;
  assert_int_equal(bal_overlay_neighbors_copy(loc, far, buf, info.max_degree, &kf), BAL_OK);
  assert_int_equal(bal_overlay_neighbors(whole, far, &a, &ka), BAL_OK);
  assert_int_equal(kf, ka);
  if (ka) assert_memory_equal(a, buf, sizeof *a * (size_t)ka);
  free(buf);
  bal_overlay_destroy(loc);
}

static void every_small_n_is_a_valid_graph(void **state) {
  (void)state;
  const int degrees[] = {2, 3, 4, 5, 8, 13, 40};
  for (int64_t n = 1; n <= 300; n++)
    for (size_t di = 0; di < sizeof degrees / sizeof degrees[0]; di++) {
      int d = degrees[di];
      bal_overlay *ov;
      assert_int_equal(bal_overlay_create(n, d, 0, (uint64_t)n * 31 + di, &ov), BAL_OK);
      double avg = check_whole(ov);
      int target = d < n - 1 ? d : (int)(n - 1);
      if (target == n - 1) assert_true(avg == (double)target); /* complete graph */
      if (target == 2 && n > 3) assert_true(avg == 2.0);       /* ring only */
      /* local == whole: every node of small graphs, a few of the others */
      for (int64_t u = 0; u < n; u += n <= 40 ? 1 : n / 5 + 1)
        check_local(ov, n, d, 0, (uint64_t)n * 31 + di, u);
      bal_overlay_destroy(ov);
    }
}

static void degree_is_clamped_for_tiny_n(void **state) {
  (void)state;
  const struct {
    int64_t n;
    int degree, expect;
  } cases[] = {{1, 2, 0},  {1, 64, 0}, {2, 2, 1},  {2, 64, 1},
               {3, 64, 2}, {4, 64, 3}, {5, 64, 4}, {64, 64, 63}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bal_overlay *ov;
    assert_int_equal(bal_overlay_create(cases[i].n, cases[i].degree, 0, 7, &ov), BAL_OK);
    for (int64_t u = 0; u < cases[i].n; u++) {
      const int64_t *l;
      int k;
      assert_int_equal(bal_overlay_neighbors(ov, u, &l, &k), BAL_OK);
      assert_int_equal(k, cases[i].expect);
    }
    bal_overlay_info info;
    bal_overlay_get_info(ov, &info);
    assert_int_equal(info.target_degree, cases[i].expect);
    bal_overlay_destroy(ov);
  }
}

/* Large and awkward sizes: structure, degree near the target, local ==
 * whole on sampled nodes. */
static void large_n_valid_and_on_target(void **state) {
  (void)state;
  const struct {
    int64_t n;
    int degree;
  } cases[] = {{1025, 8},   {1500, 40},  {4096, 20},   {4097, 53},
               {10007, 64}, {65536, 16}, {100003, 66}, {30011, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t n = cases[i].n;
    const int d = cases[i].degree;
    bal_overlay *ov;
    assert_int_equal(bal_overlay_create(n, d, 0, 1000 + i, &ov), BAL_OK);
    double avg = check_whole(ov);
    /* calibrated in expectation: within 1% (or 0.25) */
    double tol = fmax(0.25, 0.01 * d);
    print_message("N=%lld degree %d: average %.3f\n", (long long)n, d, avg);
    assert_true(fabs(avg - d) <= tol);
    for (int s = 0; s < 8; s++)
      check_local(ov, n, d, 0, 1000 + i, (int64_t)(((uint64_t)s * 2654435761u) % (uint64_t)n));
    bal_overlay_destroy(ov);
  }
}

/* Extreme exponents: the degree still meets its target, both rules. */
static void extreme_exponents_keep_the_degree(void **state) {
  (void)state;
  const struct {
    int64_t n;
    int degree;
    double exponent;
  } cases[] = {{500, 20, 64}, {500, 20, 0.01}, {5000, 20, 64}, {5000, 20, 0.01}, {3000, 30, 3}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t n = cases[i].n;
    bal_overlay *ov;
    assert_int_equal(bal_overlay_create(n, cases[i].degree, cases[i].exponent, 4, &ov), BAL_OK);
    double avg = check_whole(ov);
    print_message("N=%lld degree %d exponent %g: average %.3f\n", (long long)n, cases[i].degree,
                  cases[i].exponent, avg);
    /* N <= 1024: independent pairs, binomial spread of the average */
    assert_true(fabs(avg - cases[i].degree) <= (n <= 1024 ? 1.0 : 0.3));
    for (int64_t u = 0; u < n; u += n / 3)
      check_local(ov, n, cases[i].degree, cases[i].exponent, 4, u);
    bal_overlay_destroy(ov);
  }
}

static void degree_distribution_is_tight(void **state) {
  (void)state;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(10000, 64, 0, 3, &ov), BAL_OK);
  int hist[256] = {0};
  for (int64_t u = 0; u < 10000; u++) {
    const int64_t *l;
    int k;
    bal_overlay_neighbors(ov, u, &l, &k);
    assert_true(k < 256);
    hist[k]++;
  }
  /* at least 95% of nodes within +-15% of the target; none below half */
  int within = 0;
  for (int k = 0; k < 256; k++) {
    if (k >= 55 && k <= 73) within += hist[k];
    if (k < 32) assert_int_equal(hist[k], 0);
  }
  assert_true(within >= 9500);
  bal_overlay_destroy(ov);
}

static void same_parameters_same_graph(void **state) {
  (void)state;
  const int64_t sizes[] = {17, 777, 5003, 20000}; /* N = 17 with degree 12: dense rule */
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    bal_overlay *a, *b, *c;
    const int d = sizes[i] < 24 ? 12 : 24;
    assert_int_equal(bal_overlay_create(sizes[i], d, 1.0, 99, &a), BAL_OK);
    assert_int_equal(bal_overlay_create(sizes[i], d, 0.0, 99, &b), BAL_OK); /* default = 1 */
    assert_int_equal(bal_overlay_create(sizes[i], d, 1.0, 100, &c), BAL_OK);
    int differs = 0;
    for (int64_t u = 0; u < sizes[i]; u++) {
      const int64_t *la, *lb, *lc;
      int ka, kb, kc;
      bal_overlay_neighbors(a, u, &la, &ka);
      bal_overlay_neighbors(b, u, &lb, &kb);
      bal_overlay_neighbors(c, u, &lc, &kc);
      assert_int_equal(ka, kb);
      assert_memory_equal(la, lb, sizeof *la * (size_t)ka);
      differs |= ka != kc || memcmp(la, lc, sizeof *la * (size_t)ka);
    }
    assert_true(differs); /* another seed, another graph */
    bal_overlay_destroy(a);
    bal_overlay_destroy(b);
    bal_overlay_destroy(c);
  }
}

/* FNV-1a over every list of a whole graph. */
static uint64_t graph_digest(int64_t n, int degree, uint64_t seed) {
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(n, degree, 0, seed, &ov), BAL_OK);
  uint64_t h = 1469598103934665603ull;
  for (int64_t u = 0; u < n; u++) {
    const int64_t *l;
    int k;
    bal_overlay_neighbors(ov, u, &l, &k);
    for (int i = 0; i < k; i++) h = (h ^ (uint64_t)l[i]) * 1099511628211ull;
    h = (h ^ UINT64_C(0xFFFF)) * 1099511628211ull;
  }
  bal_overlay_destroy(ov);
  return h;
}

/* Ranks must agree on the graph, also across Ballast versions that may run
 * side by side: these digests pin the edge rule (both the small/dense and
 * the sparse one). A deliberate change of the rule must update them and be
 * announced as incompatible. */
static void graph_is_pinned(void **state) {
  (void)state;
  uint64_t dense = graph_digest(300, 10, 7), sparse = graph_digest(5000, 24, 12345);
  print_message("digests: dense %#llx sparse %#llx\n", (unsigned long long)dense,
                (unsigned long long)sparse);
  assert_true(dense == DENSE_DIGEST);
  assert_true(sparse == SPARSE_DIGEST);
}

/* Mean log2 of the shortcut lengths (ring distance >= 2) of a graph. */
static double mean_log_length(int64_t n, int degree, double exponent) {
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(n, degree, exponent, 5, &ov), BAL_OK);
  double sum = 0;
  int64_t count = 0;
  for (int64_t u = 0; u < n; u++) {
    const int64_t *l;
    int k;
    bal_overlay_neighbors(ov, u, &l, &k);
    for (int i = 0; i < k; i++) {
      int64_t d = ring_dist(n, u, l[i]);
      if (d >= 2) {
        sum += log2((double)d);
        count++;
      }
    }
  }
  bal_overlay_destroy(ov);
  return sum / (double)count;
}

/* P(d) ~ d^-1 puts equal mass in every octave [2^b, 2^(b+1)); check that the
 * octaves above the saturated short range hold similar counts, and that the
 * exponent moves lengths the right way. */
static void shortcut_lengths_follow_the_law(void **state) {
  (void)state;
  const int64_t n = 1 << 16;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(n, 32, 0, 11, &ov), BAL_OK);
  int64_t octave[20] = {0};
  for (int64_t u = 0; u < n; u++) {
    const int64_t *l;
    int k;
    bal_overlay_neighbors(ov, u, &l, &k);
    for (int i = 0; i < k; i++) {
      int64_t d = ring_dist(n, u, l[i]);
      int b = 0;
      while ((d >> (b + 1)) > 0) b++;
      octave[b]++;
    }
  }
  int64_t lo = INT64_MAX, hi = 0;
  for (int b = 4; b <= 13; b++) {
    lo = octave[b] < lo ? octave[b] : lo;
    hi = octave[b] > hi ? octave[b] : hi;
  }
  print_message("octave counts 2^4..2^13: min %lld max %lld\n", (long long)lo, (long long)hi);
  assert_true(hi <= 2 * lo);
  bal_overlay_destroy(ov);
  double flat = mean_log_length(20000, 24, 0.5), kleinberg = mean_log_length(20000, 24, 1.0),
         steep = mean_log_length(20000, 24, 2.0);
  assert_true(flat > kleinberg + 0.5);
  assert_true(kleinberg > steep + 0.5);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_small_n_is_a_valid_graph),
      cmocka_unit_test(degree_is_clamped_for_tiny_n),
      cmocka_unit_test(large_n_valid_and_on_target),
      cmocka_unit_test(extreme_exponents_keep_the_degree),
      cmocka_unit_test(degree_distribution_is_tight),
      cmocka_unit_test(same_parameters_same_graph),
      cmocka_unit_test(graph_is_pinned),
      cmocka_unit_test(shortcut_lengths_follow_the_law),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
