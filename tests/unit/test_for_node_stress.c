/* Attached pools under a manager thread that flips the process's mask at
 * random (random CPU sets, random delays) while two pools of one process —
 * sharing the attachment — run random loops from two threads: every index
 * exactly once (one of them learning: bal_for_learn), worker ids in range, the active count within [1, size],
 * and once the flipping stops the next call runs on exactly the final
 * mask (parked workers' statistics zero); 16 workers per pool on a virtual
 * registry of 16 CPUs, so the machine is oversubscribed. Many seeds;
 * BALLAST_STRESS_SCALE (default 1) multiplies them. Runs under TSan too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "core/rng.h"
#include "for_check.h"
#include "node_check.h"

#define CPUS 16

typedef struct flipper {
  const char *reg;
  uint64_t seed;
  atomic_bool stop;
  atomic_int sets;
} flipper;

static void *flip(void *arg) {
  flipper *f = arg;
  bal__rng r;
  bal__rng_seed(&r, f->seed);
  bal_node_manager *m;
  if (bal_node_manager_open(f->reg, &m) != BAL_OK) return NULL;
  while (!atomic_load(&f->stop)) {
    bal_node_mask mask;
    bal_node_mask_zero(&mask);
    if (bal__rng_below(&r, 2)) {
      int64_t lo = (int64_t)bal__rng_below(&r, CPUS);
      bal_node_mask_add(&mask, lo, lo + (int64_t)bal__rng_below(&r, (uint64_t)(CPUS - lo)));
    } else {
      for (int64_t c = 0; c < CPUS; c++)
        if (bal__rng_below(&r, 3) == 0) bal_node_mask_add(&mask, c, c);
      if (bal_node_mask_count(&mask) == 0) bal_node_mask_add(&mask, 0, 0);
    }
    if (bal_node_manager_set(m, getpid(), &mask, 0) == BAL_OK) atomic_fetch_add(&f->sets, 1);
    struct timespec ts = {0, (long)bal__rng_below(&r, 3000000)};
    nanosleep(&ts, NULL);
  }
  bal_node_manager_close(m);
  return NULL;
}

typedef struct runner {
  bal_pool *pool;
  uint64_t seed;
  int loops;
  int errors;
  bal_loop *learn; /* non-NULL: bal_for_learn with this loop memory */
} runner;

/* The hit map plus the pool, so bodies can check worker ids against it. */
typedef struct active_check {
  hit_map m;
  bal_pool *pool;
  atomic_int violations;
} active_check;

static void checked_body(int64_t begin, int64_t end, void *arg) {
  active_check *c = arg;
  int id = bal_worker_id();
  hit_body(begin, end, &c->m);
  if (id < 0 || id >= bal_pool_size(c->pool)) atomic_fetch_add(&c->violations, 1);
}

static void *run_loops(void *arg) {
  runner *rn = arg;
  bal__rng r;
  bal__rng_seed(&r, rn->seed);
  int64_t len = 0, grain = 0;
  for (int i = 0; i < rn->loops; i++) {
    /* A learning loop mostly keeps its range, so its deals are learned. */
    if (!rn->learn || i == 0 || bal__rng_below(&r, 3) == 0) {
      len = 1 + (int64_t)bal__rng_below(&r, 60000);
      grain = bal__rng_below(&r, 3) == 0 ? 1 + (int64_t)bal__rng_below(&r, 200) : 0;
    }
    active_check *c = calloc(1, sizeof *c);
    hit_map_init(&c->m, 0, len, bal_pool_size(rn->pool));
    c->m.sleep_one_in = 1 + (int64_t)bal__rng_below(&r, 50);
    c->m.max_sleep_ns = 1 + (int64_t)bal__rng_below(&r, 300000);
    c->pool = rn->pool;
    int rc = rn->learn ? bal_for_learn(rn->pool, rn->learn, 0, len, grain, checked_body, c)
                       : bal_for(rn->pool, 0, len, grain, checked_body, c);
    if (rc != BAL_OK) rn->errors++;
    if (hit_map_errors(&c->m) != 0 || atomic_load(&c->m.bad_worker_id) != 0 ||
        atomic_load(&c->violations) != 0)
      rn->errors++;
    int a = bal_pool_active(rn->pool);
    if (a < 1 || a > bal_pool_size(rn->pool)) rn->errors++;
    hit_map_free(&c->m);
    free(c);
  }
  return NULL;
}

static void test_flipping(void **state) {
  (void)state;
  int seeds = 12 * for_stress_scale();
  for (int s = 0; s < seeds; s++) {
    char reg[64];
    assert_int_equal(node_test_registry(reg, CPUS), BAL_OK);
    bal_pool *a, *b;
    assert_int_equal(node_test_pool(reg, 0, &a), BAL_OK);
    assert_int_equal(node_test_pool(reg, 1 + s % CPUS, &b), BAL_OK);

    flipper f = {.reg = reg, .seed = 1000 + (uint64_t)s};
    atomic_init(&f.stop, false);
    atomic_init(&f.sets, 0);
    pthread_t ft, bt;
    assert_int_equal(pthread_create(&ft, NULL, flip, &f), 0);
    bal_loop *learn;
    assert_int_equal(bal_loop_create(&learn), BAL_OK);
    runner ra = {a, 2000 + (uint64_t)s, 6, 0, NULL}, rb = {b, 3000 + (uint64_t)s, 6, 0, learn};
    assert_int_equal(pthread_create(&bt, NULL, run_loops, &rb), 0);
    run_loops(&ra);
    pthread_join(bt, NULL);
    atomic_store(&f.stop, true);
    pthread_join(ft, NULL);
    assert_int_equal(ra.errors, 0);
    assert_int_equal(rb.errors, 0);
    bal_loop_destroy(learn);

    /* Quiet now: the next call runs on exactly the final mask. */
    bal_node_manager *m;
    assert_int_equal(bal_node_manager_open(reg, &m), BAL_OK);
    bal_node_mask mask;
    bal_node_mask_zero(&mask);
    bal_node_mask_add(&mask, 0, s % CPUS);
    assert_int_equal(bal_node_manager_set(m, getpid(), &mask, 0), BAL_OK);
    hit_map hm;
    hit_map_init(&hm, 0, 1000, CPUS);
    assert_int_equal(bal_for(a, 0, 1000, 0, hit_body, &hm), BAL_OK);
    assert_int_equal(hit_map_errors(&hm), 0);
    hit_map_free(&hm);
    assert_int_equal(bal_pool_active(a), 1 + s % CPUS);
    bal_for_stats st;
    for (int w = 1 + s % CPUS; w < CPUS; w++) {
      assert_int_equal(bal_for_last_stats(a, w, &st), BAL_OK);
      assert_int_equal(st.items, 0);
    }
    bal_node_manager_close(m);
    bal_pool_destroy(a);
    bal_pool_destroy(b);
    assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_flipping)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
