/* for/range.h: the packed steal-range word, alone and under contention. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>

#include "core/rng.h"
#include "for/range.h"

static void owner_takes_from_low_end_until_empty(void **state) {
  (void)state;
  bal__for_range r;
  bal__for_range_set(&r, 10, 17);
  uint32_t first = 0;
  assert_int_equal(bal__for_range_take(&r, 3, &first), 3);
  assert_int_equal(first, 10);
  assert_int_equal(bal__for_range_size(&r), 4);
  assert_int_equal(bal__for_range_take(&r, 3, &first), 3);
  assert_int_equal(first, 13);
  assert_int_equal(bal__for_range_take(&r, 3, &first), 1); /* clipped at hi */
  assert_int_equal(first, 16);
  assert_int_equal(bal__for_range_size(&r), 0);
  assert_int_equal(bal__for_range_take(&r, 3, &first), 0);
}

static void thief_takes_upper_half_rounded_up(void **state) {
  (void)state;
  bal__for_range r;
  bal__for_range_set(&r, 0, 7);
  uint32_t first = 0;
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 4);
  assert_int_equal(first, 3);
  assert_int_equal(bal__for_range_size(&r), 3);
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 2);
  assert_int_equal(first, 1);
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 1);
  assert_int_equal(first, 0);
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 0); /* empty */
}

static void thief_respects_minimum_piece(void **state) {
  (void)state;
  bal__for_range r;
  bal__for_range_set(&r, 100, 106); /* 6 units: half is 3 */
  uint32_t first = 0;
  assert_int_equal(bal__for_range_steal(&r, 4, &first), 0);
  assert_int_equal(bal__for_range_size(&r), 6);
  assert_int_equal(bal__for_range_steal(&r, 3, &first), 3);
  assert_int_equal(first, 103);
}

/* With q > 1 the cut falls a whole number of grains above lo: ranges made
 * of whole grains (and a short last one) stay so. */
static void thief_cuts_at_whole_grains(void **state) {
  (void)state;
  bal__for_range r;
  uint32_t first = 0;
  bal__for_range_set(&r, 8, 28); /* 5 grains of 4: the thief takes 3 */
  assert_int_equal(bal__for_range_steal(&r, 4, &first), 12);
  assert_int_equal(first, 16);
  bal__for_range_set(&r, 16, 30); /* 3 whole grains and a short one of 2 */
  assert_int_equal(bal__for_range_steal(&r, 4, &first), 6);
  assert_int_equal(first, 24);
  assert_int_equal(bal__for_range_size(&r), 8);
  bal__for_range_set(&r, 24, 30); /* a grain and the short one: the top is too small */
  assert_int_equal(bal__for_range_steal(&r, 4, &first), 0);
  bal__for_range_set(&r, 24, 28); /* one whole grain: taken whole, as q = 1 takes 1 of 1 */
  assert_int_equal(bal__for_range_steal(&r, 4, &first), 4);
  assert_int_equal(first, 24);
  assert_int_equal(bal__for_range_size(&r), 0);
  /* the owner, taking whole grains, then sees every cut on a grain boundary */
  bal__for_range_set(&r, 0, 400);
  for (int k = 0; k < 3; k++) {
    assert_int_equal(bal__for_range_take(&r, 4, &first), 4);
    assert_int_equal(first % 4, 0);
    assert_true(bal__for_range_steal(&r, 4, &first) > 0);
    assert_int_equal(first % 4, 0);
  }
}

/* From a parked owner a thief takes everything, also a last grain shorter
 * than the minimum piece; the owner's next take then answers empty once. */
static void steal_all_takes_short_last_grain(void **state) {
  (void)state;
  bal__for_range r;
  uint32_t first = 0;
  bal__for_range_set(&r, 30, 33);
  assert_int_equal(bal__for_range_steal(&r, 10, &first), 0); /* left to an active owner */
  assert_int_equal(bal__for_range_steal_all(&r, &first), 3);
  assert_int_equal(first, 30);
  assert_int_equal(bal__for_range_size(&r), 0);
  assert_int_equal(bal__for_range_steal_all(&r, &first), 0);
  assert_int_equal(bal__for_range_take(&r, 10, &first), 0);
  bal__for_range_set(&r, 20, 33);
  assert_int_equal(bal__for_range_steal_all(&r, &first), 13);
  assert_int_equal(first, 20);
}

static void overshoot_reads_empty_and_reset_works(void **state) {
  (void)state;
  bal__for_range r;
  bal__for_range_set(&r, 0, 4);
  uint32_t first = 0;
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 2); /* thief leaves [0,2) */
  assert_int_equal(bal__for_range_take(&r, 8, &first), 2);  /* owner overshoots lo */
  assert_int_equal(bal__for_range_take(&r, 8, &first), 0);
  assert_int_equal(bal__for_range_steal(&r, 1, &first), 0); /* thieves see empty */
  bal__for_range_set(&r, BAL__RANGE_MAX_UNITS - 2, BAL__RANGE_MAX_UNITS);
  assert_int_equal(bal__for_range_take(&r, BAL__RANGE_MAX_TAKE, &first), 2);
  assert_int_equal(first, BAL__RANGE_MAX_UNITS - 2);
  assert_int_equal(bal__for_range_take(&r, BAL__RANGE_MAX_TAKE, &first), 0);
  assert_int_equal(bal__for_range_size(&r), 0);
}

/* Contention: one owner and several thieves on one range; thieves re-expose
 * what they steal in their own ranges, which others steal from in turn.
 * Every unit must be claimed exactly once. */
enum { UNITS = 200000, THIEVES = 5 };
static bal__for_range ranges[THIEVES + 1];
static _Atomic unsigned char claimed[UNITS];
static atomic_long claimed_total;

static void claim(uint32_t first, uint32_t n) {
  for (uint32_t u = first; u < first + n; u++) atomic_fetch_add(&claimed[u], 1);
  atomic_fetch_add(&claimed_total, (long)n);
}

static void *contender(void *arg) {
  int self = (int)(intptr_t)arg;
  bal__rng rng;
  bal__rng_seed(&rng, (uint64_t)self * 7919u + 1);
  while (atomic_load(&claimed_total) < UNITS) {
    uint32_t first, n;
    while ((n = bal__for_range_take(&ranges[self], 1 + (uint32_t)bal__rng_below(&rng, 8), &first)))
      claim(first, n);
    int victim = (int)bal__rng_below(&rng, THIEVES + 1);
    if (victim == self) continue;
    int64_t got = bal__for_range_steal(&ranges[victim], 1, &first);
    if (got > 0) bal__for_range_set(&ranges[self], first, first + (uint32_t)got);
  }
  return NULL;
}

static void concurrent_owner_and_thieves_claim_each_unit_once(void **state) {
  (void)state;
  for (int round = 0; round < 5; round++) {
    for (int i = 0; i < UNITS; i++) atomic_store(&claimed[i], 0);
    atomic_store(&claimed_total, 0);
    bal__for_range_set(&ranges[0], 0, UNITS);
    for (int i = 1; i <= THIEVES; i++) bal__for_range_set(&ranges[i], 0, 0);
    pthread_t t[THIEVES + 1];
    for (int i = 0; i <= THIEVES; i++)
      assert_int_equal(pthread_create(&t[i], NULL, contender, (void *)(intptr_t)i), 0);
    for (int i = 0; i <= THIEVES; i++) pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&claimed_total), UNITS);
    for (int i = 0; i < UNITS; i++) assert_int_equal(atomic_load(&claimed[i]), 1);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(owner_takes_from_low_end_until_empty),
      cmocka_unit_test(thief_takes_upper_half_rounded_up),
      cmocka_unit_test(thief_respects_minimum_piece),
      cmocka_unit_test(thief_cuts_at_whole_grains),
      cmocka_unit_test(steal_all_takes_short_last_grain),
      cmocka_unit_test(overshoot_reads_empty_and_reset_works),
      cmocka_unit_test(concurrent_owner_and_thieves_claim_each_unit_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
