/* for: exactly-once execution under many seeds, pool sizes 1..8 (more than
 * the CPUs: oversubscribed), random bounds and grains, bodies that sleep at
 * random, repeated calls on one pool, and concurrent callers.
 * BALLAST_STRESS_SCALE (default 1) multiplies the number of rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <ballast/ballast.h>

#include "core/rng.h"
#include "for_check.h"

/* One random loop on `pool`, checked for exactly-once execution. */
static void random_loop(bal_pool *pool, bal__rng *rng, bool with_sleeps) {
  int64_t len = (int64_t)bal__rng_below(rng, 20000);
  int64_t begin;
  switch (bal__rng_below(rng, 4)) {
  case 0: begin = INT64_MIN + (int64_t)bal__rng_below(rng, 10); break;
  case 1: begin = INT64_MAX - len - (int64_t)bal__rng_below(rng, 10); break;
  default: begin = (int64_t)bal__rng_below(rng, 2000000) - 1000000; break;
  }
  int64_t grain = bal__rng_below(rng, 3) == 0 ? (int64_t)bal__rng_below(rng, 300) : 0;
  hit_map m;
  hit_map_init(&m, begin, begin + len, bal_pool_size(pool));
  if (with_sleeps) {
    m.sleep_one_in = 1 + (int64_t)bal__rng_below(rng, 20);
    m.max_sleep_ns = 1 + (int64_t)bal__rng_below(rng, 200000);
  }
  int rc = bal_for(pool, begin, begin + len, grain, hit_body, &m);
  int64_t errors = hit_map_errors(&m);
  if (rc != BAL_OK || errors || atomic_load(&m.bad_worker_id))
    fail_msg("pool %d, [%lld, +%lld) grain %lld: rc %d, %lld indices not run exactly once",
             bal_pool_size(pool), (long long)begin, (long long)len, (long long)grain, rc,
             (long long)errors);
  hit_map_free(&m);
}

static void many_seeds_and_pool_sizes(void **state) {
  (void)state;
  int rounds = 40 * for_stress_scale();
  for (int threads = 1; threads <= 8; threads++) {
    bal_pool *pool;
    assert_int_equal(bal_pool_create(threads, &pool), BAL_OK);
    for (int seed = 0; seed < rounds; seed++) { /* repeated calls on one pool */
      bal__rng rng;
      bal__rng_seed(&rng, (uint64_t)threads * 1000003u + (uint64_t)seed);
      random_loop(pool, &rng, false);
    }
    bal_pool_destroy(pool);
  }
}

static void random_sleeps_in_bodies(void **state) {
  (void)state;
  int rounds = 6 * for_stress_scale();
  for (int threads = 2; threads <= 8; threads += 3) {
    bal_pool *pool;
    assert_int_equal(bal_pool_create(threads, &pool), BAL_OK);
    for (int seed = 0; seed < rounds; seed++) {
      bal__rng rng;
      bal__rng_seed(&rng, 0xabcdefu + (uint64_t)threads * 7777u + (uint64_t)seed);
      random_loop(pool, &rng, true);
    }
    bal_pool_destroy(pool);
  }
}

static void pools_created_and_destroyed_repeatedly(void **state) {
  (void)state;
  for (int i = 0; i < 30 * for_stress_scale(); i++) {
    bal_pool *pool;
    assert_int_equal(bal_pool_create(1 + i % 8, &pool), BAL_OK);
    if (i % 3) {
      bal__rng rng;
      bal__rng_seed(&rng, (uint64_t)i);
      random_loop(pool, &rng, false);
    }
    bal_pool_destroy(pool);
  }
}

/* Several non-worker threads share one pool: calls are served one at a time,
 * none is corrupted. */
struct caller {
  bal_pool *pool;
  int index;
  int failures;
};

static void *caller_main(void *arg) {
  struct caller *c = arg;
  bal__rng rng;
  bal__rng_seed(&rng, 0xca11e5u + (uint64_t)c->index);
  for (int i = 0; i < 25 * for_stress_scale(); i++) {
    int64_t len = 1 + (int64_t)bal__rng_below(&rng, 5000);
    int64_t begin = (int64_t)bal__rng_below(&rng, 100000) - 50000;
    hit_map m;
    hit_map_init(&m, begin, begin + len, bal_pool_size(c->pool));
    if (i % 4 == 0) {
      m.sleep_one_in = 8;
      m.max_sleep_ns = 50000;
    }
    if (bal_for(c->pool, begin, begin + len, 0, hit_body, &m) != BAL_OK || hit_map_errors(&m) ||
        atomic_load(&m.bad_worker_id))
      c->failures++;
    hit_map_free(&m);
  }
  return NULL;
}

static void concurrent_callers_share_a_pool(void **state) {
  (void)state;
  for (int threads = 1; threads <= 6; threads += 5) {
    bal_pool *pool;
    assert_int_equal(bal_pool_create(threads, &pool), BAL_OK);
    enum { CALLERS = 4 };
    struct caller callers[CALLERS];
    pthread_t tid[CALLERS];
    for (int i = 0; i < CALLERS; i++) {
      callers[i] = (struct caller){pool, i, 0};
      assert_int_equal(pthread_create(&tid[i], NULL, caller_main, &callers[i]), 0);
    }
    for (int i = 0; i < CALLERS; i++) {
      pthread_join(tid[i], NULL);
      assert_int_equal(callers[i].failures, 0);
    }
    bal_pool_destroy(pool);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(many_seeds_and_pool_sizes),
      cmocka_unit_test(random_sleeps_in_bodies),
      cmocka_unit_test(pools_created_and_destroyed_repeatedly),
      cmocka_unit_test(concurrent_callers_share_a_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
