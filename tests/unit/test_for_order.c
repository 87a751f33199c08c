/* for: the order in which the loop's items are reached when the workers do
 * not keep pace. Every worker but the caller is held in its first body call
 * (as a worker woken late, or preempted, would be) until the caller has run
 * everything else. The caller alone must then reach the loop in about its
 * index order, as under a dynamic schedule: a costly item early in a held
 * worker's blocks would otherwise wait until the caller had walked all of
 * its own blocks and stolen the held ones from their far end. Explicit
 * grains make every take the same size, so the order the caller runs does
 * not depend on timing: only where each held worker stops does, and the
 * bound allows for that. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <ballast/ballast.h>

#define ITEMS 6400
#define GRAIN 10
#define HOLD_LIMIT_NS INT64_C(60000000000) /* a held worker gives up (test fails) */

static struct {
  int64_t order[ITEMS]; /* the caller's indices, in the order it ran them */
  int64_t count;        /* written by the caller only */
  _Atomic int64_t done_by_caller, held;
  _Atomic unsigned hits[ITEMS];
  atomic_bool gave_up;
} run;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void body(int64_t b, int64_t e, void *arg) {
  (void)arg;
  for (int64_t i = b; i < e; i++) atomic_fetch_add(&run.hits[i], 1);
  if (bal_worker_id() != 0) {
    /* Hold until every other unit has run. Each take is one grain inside
     * one block, so a held worker's first take is one body call. */
    atomic_fetch_add(&run.held, e - b);
    int64_t give_up = now_ns() + HOLD_LIMIT_NS;
    while (atomic_load(&run.done_by_caller) + atomic_load(&run.held) < ITEMS) {
      if (now_ns() > give_up) {
        atomic_store(&run.gave_up, true);
        return;
      }
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
    return;
  }
  for (int64_t i = b; i < e; i++) run.order[run.count++] = i;
  atomic_fetch_add(&run.done_by_caller, e - b);
}

/* The caller reaches index i after running at most i + slack items. While
 * it walks its rounds a laggard stays at most one round behind it (it
 * looks at each of its blocks): two rounds of slack. Once it is in its
 * tail it steals, from the top, what the others have left: at most one
 * round each and their tail pieces (under two rounds), which puts the
 * start of a laggard's last block at most three rounds late. Plus the
 * grains the held workers keep. Without help the first block of a held
 * worker is reached after half of the loop or more. */
static void caller_reaches_items_in_index_order(int workers) {
  bal_pool *pool;
  assert_int_equal(bal_pool_create(workers, &pool), BAL_OK);
  /* The deal's block for this length and grain: ITEMS / (32 P) rounded down
   * to whole grains (layout.h). */
  int64_t block = ITEMS / (32 * workers * GRAIN) * GRAIN;
  int64_t slack = 3 * workers * block + (workers - 1) * GRAIN;
  for (int rep = 0; rep < 5; rep++) {
    run.count = 0;
    atomic_store(&run.done_by_caller, 0);
    atomic_store(&run.held, 0);
    atomic_store(&run.gave_up, false);
    for (int i = 0; i < ITEMS; i++) atomic_store(&run.hits[i], 0);
    assert_int_equal(bal_for(pool, 0, ITEMS, GRAIN, body, NULL), BAL_OK);
    assert_false(atomic_load(&run.gave_up));
    for (int i = 0; i < ITEMS; i++) assert_int_equal(atomic_load(&run.hits[i]), 1);
    assert_int_equal(run.count + atomic_load(&run.held), ITEMS);
    int64_t worst = 0, at = -1;
    for (int64_t k = 0; k < run.count; k++)
      if (k - run.order[k] > worst) {
        worst = k - run.order[k];
        at = run.order[k];
      }
    if (worst > slack)
      fail_msg("P = %d: the caller reached index %lld after %lld items (at most %lld allowed)",
               workers, (long long)at, (long long)(at + worst), (long long)(at + slack));
  }
  bal_pool_destroy(pool);
}

static void two_workers(void **state) {
  (void)state;
  caller_reaches_items_in_index_order(2);
}

static void three_workers(void **state) {
  (void)state;
  caller_reaches_items_in_index_order(3);
}

static void four_workers(void **state) {
  (void)state;
  caller_reaches_items_in_index_order(4);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(two_workers),
      cmocka_unit_test(three_workers),
      cmocka_unit_test(four_workers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
