/* overlay: routing. Every route terminates through neighbours, ring-only
 * graphs route along the ring, route lengths meet the targets of
 * docs/BENCHMARKS.md (the figures [Fontenaille 2018] §4.2 reports), and
 * local handles route exactly like whole ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include <ballast/ballast.h>

static uint64_t draw(uint64_t *s) { /* SplitMix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int is_neighbor(const bal_overlay *ov, int64_t u, int64_t v) {
  const int64_t *l;
  int k;
  assert_int_equal(bal_overlay_neighbors(ov, u, &l, &k), BAL_OK);
  for (int i = 0; i < k; i++)
    if (l[i] == v) return 1;
  return 0;
}

/* Follow next hops from `from` to `to`, checking each is a neighbour. */
static int64_t route(const bal_overlay *ov, int64_t n, int64_t from, int64_t to) {
  int64_t hops = 0;
  while (from != to) {
    int64_t next = bal_overlay_next_hop(ov, from, to);
    assert_true(next >= 0 && next < n);
    assert_true(is_neighbor(ov, from, next));
    from = next;
    assert_true(++hops <= n);
  }
  return hops;
}

static int64_t ring_dist(int64_t n, int64_t a, int64_t b) {
  int64_t d = a > b ? a - b : b - a;
  return d < n - d ? d : n - d;
}

static void all_pairs_terminate_for_small_n(void **state) {
  (void)state;
  const int degrees[] = {2, 3, 6, 12};
  for (int64_t n = 1; n <= 90; n++)
    for (size_t di = 0; di < sizeof degrees / sizeof degrees[0]; di++) {
      bal_overlay *ov;
      assert_int_equal(bal_overlay_create(n, degrees[di], 0, (uint64_t)n, &ov), BAL_OK);
      for (int64_t a = 0; a < n; a++)
        for (int64_t b = 0; b < n; b++) {
          int64_t h = route(ov, n, a, b);
          if (degrees[di] == 2) assert_int_equal(h, ring_dist(n, a, b)); /* ring: shortest */
          if (a == b) assert_int_equal(bal_overlay_next_hop(ov, a, b), b);
        }
      bal_overlay_destroy(ov);
    }
}

/* The routing target of docs/BENCHMARKS.md: N = 10,000, average degree 64, default exponent:
 * average <= 2.87 hops and maximum <= 6 (here over 50,000 pairs; the tool
 * measures 10^6, see docs/BENCHMARKS.md). */
static void routes_are_short_at_10000_nodes(void **state) {
  (void)state;
  const int64_t n = 10000;
  bal_overlay *ov;
  assert_int_equal(bal_overlay_create(n, 64, 0, 1, &ov), BAL_OK);
  uint64_t s = 42;
  int64_t total = 0, max = 0, pairs = 50000;
  for (int64_t p = 0; p < pairs; p++) {
    int64_t a = (int64_t)(draw(&s) % (uint64_t)n), b = (int64_t)(draw(&s) % (uint64_t)n);
    int64_t h = route(ov, n, a, b);
    total += h;
    max = h > max ? h : max;
  }
  double avg = (double)total / (double)pairs;
  print_message("N=10000 degree 64: average %.4f hops, max %lld\n", avg, (long long)max);
  assert_true(avg <= 2.87);
  assert_true(max <= 6);
  bal_overlay_destroy(ov);
}

/* Bigger, sparser and non-power-of-two graphs: routes end, and short. */
static void routes_terminate_on_large_graphs(void **state) {
  (void)state;
  const struct {
    int64_t n;
    int degree;
    double exponent;
    int64_t bound; /* exponent 2 is off Kleinberg's optimum: polynomial routes */
  } cases[] = {{100003, 20, 0, 40}, {65537, 8, 0, 40}, {30000, 40, 2.0, 300}, {20011, 16, 0.5, 40}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    bal_overlay *ov;
    const int64_t n = cases[i].n;
    assert_int_equal(bal_overlay_create(n, cases[i].degree, cases[i].exponent, 9, &ov), BAL_OK);
    uint64_t s = 7 + i;
    int64_t max = 0;
    for (int p = 0; p < 2000; p++) {
      int64_t a = (int64_t)(draw(&s) % (uint64_t)n), b = (int64_t)(draw(&s) % (uint64_t)n);
      int64_t h = route(ov, n, a, b);
      max = h > max ? h : max;
    }
    print_message("N=%lld degree %d exponent %g: max %lld hops\n", (long long)n, cases[i].degree,
                  cases[i].exponent, (long long)max);
    assert_true(max <= cases[i].bound);
    bal_overlay_destroy(ov);
  }
}

/* A local handle answers next_hop exactly like the whole graph, from its
 * own node (lookahead lists held) and from any other (computed). */
static void local_handles_route_like_whole(void **state) {
  (void)state;
  const struct {
    int64_t n;
    int degree;
  } cases[] = {{300, 12}, {5000, 30}, {40000, 60}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const int64_t n = cases[i].n;
    bal_overlay *whole;
    assert_int_equal(bal_overlay_create(n, cases[i].degree, 0, 21, &whole), BAL_OK);
    uint64_t s = 99;
    for (int t = 0; t < 6; t++) {
      int64_t node = (int64_t)(draw(&s) % (uint64_t)n);
      bal_overlay *loc;
      assert_int_equal(bal_overlay_create_local(n, cases[i].degree, 0, 21, node, &loc), BAL_OK);
      for (int p = 0; p < 200; p++) {
        int64_t to = (int64_t)(draw(&s) % (uint64_t)n);
        assert_int_equal(bal_overlay_next_hop(loc, node, to),
                         bal_overlay_next_hop(whole, node, to));
        if (p < 10) {
          int64_t from = (int64_t)(draw(&s) % (uint64_t)n);
          assert_int_equal(bal_overlay_next_hop(loc, from, to),
                           bal_overlay_next_hop(whole, from, to));
        }
      }
      bal_overlay_destroy(loc);
    }
    bal_overlay_destroy(whole);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(all_pairs_terminate_for_small_n),
      cmocka_unit_test(routes_are_short_at_10000_nodes),
      cmocka_unit_test(routes_terminate_on_large_graphs),
      cmocka_unit_test(local_handles_route_like_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
