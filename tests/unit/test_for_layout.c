/* for/layout.h: the initial deal of a loop's units to the workers, checked
 * exhaustively over many shapes (length, workers, grain): the deal tiles the
 * loop, pieces stay in whole grains inside one block, and every worker
 * reaches every region of the loop early. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "core/rng.h"
#include "for/layout.h"
#include "for/range.h"

/* Walk every worker's initial range piece by piece, as owners taking
 * `take` units at a time would (take 0: one piece per call, whatever its
 * size), and check what the header promises. */
static void check_shape(uint32_t units, uint32_t workers, uint32_t q, uint32_t take) {
  bal__for_layout L;
  bal__for_layout_init(&L, units, workers, q);
  unsigned char *seen = calloc(units ? units : 1, 1);
  assert_non_null(seen);
  assert_int_equal(bal__for_layout_start(&L, 0), 0);
  assert_int_equal(bal__for_layout_start(&L, workers), units);
  assert_true(L.block % q == 0 && L.block >= q);
  if (L.rounds > 0) {
    /* the tail round is no longer than two rounds of blocks */
    assert_true((uint64_t)L.tail >= (uint64_t)workers * L.block);
    assert_true((uint64_t)L.tail < 2 * (uint64_t)workers * L.block);
  } else {
    assert_true(workers == 1 || (uint64_t)units < 2 * (uint64_t)workers * q);
  }
  for (uint32_t i = 0; i < workers; i++) {
    bal__for_segment g = bal__for_layout_segment(&L, i);
    assert_true(g.begin <= g.end);
    assert_true(g.begin % q == 0 || g.begin == units);
    assert_true(g.end % q == 0 || g.end == units);
    for (uint32_t v = g.begin; v < g.end;) {
      assert_int_equal(bal__for_layout_origin(&L, v), i);
      uint32_t end = take && g.end - v > take ? v + take : g.end, at;
      uint32_t n = bal__for_layout_piece(&L, &g, v, end, &at);
      assert_true(n >= 1 && n <= end - v);
      assert_true((uint64_t)at + n <= units);
      /* whole grains, except the one that ends the loop */
      assert_true(at % q == 0);
      assert_true(n % q == 0 || at + n == units);
      for (uint32_t u = at; u < at + n; u++) {
        assert_int_equal(seen[u], 0);
        seen[u] = 1;
        /* Reach: unit u is at most about one block (two in the tail) of
         * its owner's own work further than its share u / P of the units
         * before it; a contiguous slice per worker would put it up to
         * U / P further. */
        uint64_t dealt = (uint64_t)(v - g.begin) + (u - at);
        assert_true(dealt * workers <= (uint64_t)u + (uint64_t)workers * 2 * (L.block + q));
      }
      v += n;
    }
  }
  for (uint32_t u = 0; u < units; u++) assert_int_equal(seen[u], 1);
  free(seen);
}

static void deal_tiles_the_loop_in_whole_grains(void **state) {
  (void)state;
  const uint32_t lengths[] = {0, 1, 2, 3, 7, 63, 64, 65, 100, 150, 1000, 4099, 100000, 123457};
  const uint32_t pools[] = {1, 2, 3, 4, 7, 8, 64};
  const uint32_t grains[] = {1, 2, 3, 8, 100, 5000};
  for (size_t a = 0; a < sizeof lengths / sizeof *lengths; a++)
    for (size_t b = 0; b < sizeof pools / sizeof *pools; b++)
      for (size_t c = 0; c < sizeof grains / sizeof *grains; c++) {
        check_shape(lengths[a], pools[b], grains[c], 0);
        check_shape(lengths[a], pools[b], grains[c], grains[c]);
      }
}

static void random_shapes(void **state) {
  (void)state;
  bal__rng rng;
  bal__rng_seed(&rng, 2026);
  for (int k = 0; k < 300; k++) {
    uint32_t units = (uint32_t)bal__rng_below(&rng, 300000);
    uint32_t workers = 1 + (uint32_t)bal__rng_below(&rng, 40);
    uint32_t q = bal__rng_below(&rng, 2) ? 1 : 1 + (uint32_t)bal__rng_below(&rng, 700);
    check_shape(units, workers, q, q * (1 + (uint32_t)bal__rng_below(&rng, 30)));
  }
}

/* Long loops get BAL__LAYOUT_ROUNDS blocks per worker, and the blocks of
 * round j lie side by side in the loop, worker 0 first. */
static void long_loops_are_dealt_in_rounds(void **state) {
  (void)state;
  bal__for_layout L;
  bal__for_layout_init(&L, 100000, 2, 1);
  assert_int_equal(L.block, 100000 / (2 * BAL__LAYOUT_ROUNDS));
  assert_int_equal(L.rounds, BAL__LAYOUT_ROUNDS - 1);
  bal__for_segment g1 = bal__for_layout_segment(&L, 1);
  uint32_t at;
  /* worker 1's third block is block 2 * 2 + 1 of the loop */
  assert_int_equal(bal__for_layout_piece(&L, &g1, g1.begin + 2 * L.block, g1.end, &at), L.block);
  assert_int_equal(at, 5 * L.block);
  /* The heavy item of for-bench's `mid` workload (40% of the range) is
   * reached after 40% of worker 0's units, give or take a block, not 80%. */
  bal__for_segment g0 = bal__for_layout_segment(&L, 0);
  for (uint32_t v = g0.begin; v < g0.end; v++) {
    bal__for_layout_piece(&L, &g0, v, v + 1, &at);
    if (at == 40000) {
      assert_true(v - g0.begin <= 20000 + L.block);
      break;
    }
  }
  /* Whole grains of a big grain, and the largest loop. */
  bal__for_layout_init(&L, BAL__RANGE_MAX_UNITS, 1024, BAL__RANGE_MAX_TAKE);
  assert_int_equal(L.rounds, 0);
  /* two grains for 1024 workers: the first to worker 0, the second half-way */
  assert_int_equal(bal__for_layout_start(&L, 1), BAL__RANGE_MAX_TAKE);
  assert_int_equal(bal__for_layout_start(&L, 512), BAL__RANGE_MAX_TAKE);
  assert_int_equal(bal__for_layout_start(&L, 513), BAL__RANGE_MAX_UNITS);
  assert_int_equal(bal__for_layout_start(&L, 1024), BAL__RANGE_MAX_UNITS);
  assert_int_equal(bal__for_layout_origin(&L, BAL__RANGE_MAX_UNITS - 1), 512);
  bal__for_layout_init(&L, BAL__RANGE_MAX_UNITS, 1024, 1);
  assert_int_equal(L.rounds, BAL__LAYOUT_ROUNDS - 1);
  assert_int_equal(bal__for_layout_origin(&L, BAL__RANGE_MAX_UNITS - 1), 1023);
  assert_int_equal(bal__for_layout_origin(&L, 0), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(deal_tiles_the_loop_in_whole_grains),
      cmocka_unit_test(random_shapes),
      cmocka_unit_test(long_loops_are_dealt_in_rounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
