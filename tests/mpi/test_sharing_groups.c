/* steal: the sharing baseline's group formation (a pure function, no MPI
 * calls): sizes, every rank placed once, balance of estimated work against
 * a brute-force bound on random inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "core/rng.h"
#include "steal/sharing.h"

static void check_groups(const double *est, int p, int gsize) {
  int *g = malloc((size_t)p * sizeof *g);
  int ng = bal__steal_sharing_groups(est, p, gsize, g);
  assert_int_equal(ng, (p + gsize - 1) / gsize);
  int *members = calloc((size_t)ng, sizeof *members);
  double *load = calloc((size_t)ng, sizeof *load);
  double total = 0, biggest = 0;
  for (int r = 0; r < p; r++) {
    assert_true(g[r] >= 0 && g[r] < ng);
    members[g[r]]++;
    load[g[r]] += est[r];
    total += est[r];
    if (est[r] > biggest) biggest = est[r];
  }
  int lo = p / ng, hi = lo + (p % ng != 0);
  double lmax = 0;
  for (int k = 0; k < ng; k++) {
    assert_true(members[k] >= lo && members[k] <= hi); /* sizes differ by at most one */
    if (load[k] > lmax) lmax = load[k];
  }
  /* Greedy largest-first with room: no group exceeds the mean by more than
   * the largest single estimate (each placement goes to the lightest group
   * that still has room, and room is balanced). */
  assert_true(lmax <= total / ng + biggest + 1e-9);
  free(g);
  free(members);
  free(load);
}

static void groups_cover_and_balance(void **state) {
  (void)state;
  bal__rng rng;
  bal__rng_seed(&rng, 99);
  for (int round = 0; round < 300; round++) {
    int p = 1 + (int)bal__rng_below(&rng, 300);
    int gsize = 1 + (int)bal__rng_below(&rng, 40);
    double *est = malloc((size_t)p * sizeof *est);
    for (int r = 0; r < p; r++) {
      /* skewed: a few heavy ranks, many light or idle ones */
      uint64_t u = bal__rng_below(&rng, 10);
      est[r] = u == 0 ? 100.0 + (double)bal__rng_below(&rng, 1000) : (double)bal__rng_below(&rng, 5);
    }
    check_groups(est, p, gsize);
    free(est);
  }
}

static void heavy_ranks_spread_over_groups(void **state) {
  (void)state;
  /* 4 heavy ranks next to each other, groups of 4: one heavy rank each. */
  double est[16] = {0};
  for (int r = 6; r < 10; r++) est[r] = 50;
  int g[16];
  assert_int_equal(bal__steal_sharing_groups(est, 16, 4, g), 4);
  int seen[4] = {0};
  for (int r = 6; r < 10; r++) seen[g[r]]++;
  for (int k = 0; k < 4; k++) assert_int_equal(seen[k], 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(groups_cover_and_balance),
      cmocka_unit_test(heavy_ranks_spread_over_groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
