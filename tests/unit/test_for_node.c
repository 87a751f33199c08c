/* for pools attached to a node registry: the configuration, capacity and
 * active workers following a manager's masks between calls, two pools
 * sharing the attachment, statistics of parked workers, a grow inside a
 * call reaching a worker made inactive between calls, BALLAST_NODE=1 with
 * and without a registry, and binding within the mask on a registry of
 * real CPUs (skipped with fewer than 2 CPUs). Registries are virtual except
 * in the binding test, named after the test's pid and destroyed by it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "for_check.h"
#include "node_check.h"

static void run_checked(bal_pool *pool, int64_t n, int64_t grain) {
  hit_map m;
  hit_map_init(&m, 0, n, bal_pool_size(pool));
  assert_int_equal(bal_for(pool, 0, n, grain, hit_body, &m), BAL_OK);
  assert_int_equal(hit_map_errors(&m), 0);
  assert_int_equal(atomic_load(&m.bad_worker_id), 0);
  hit_map_free(&m);
}

static void set_mask(const char *reg, const char *list) {
  bal_node_manager *m;
  assert_int_equal(bal_node_manager_open(reg, &m), BAL_OK);
  bal_node_mask mask;
  assert_int_equal(bal_node_mask_parse(list, &mask), BAL_OK);
  assert_int_equal(bal_node_manager_set(m, getpid(), &mask, 0), BAL_OK);
  bal_node_manager_close(m);
}

static void test_config(void **state) {
  (void)state;
  assert_int_equal(bal_pool_config_init(NULL), BAL_EINVAL);
  bal_pool_config cfg;
  assert_int_equal(bal_pool_config_init(&cfg), BAL_OK);
  assert_int_equal(cfg.nthreads, 0);
  assert_null(cfg.node);
  bal_pool *pool = NULL;
  cfg.nthreads = -1;
  assert_int_equal(bal_pool_create_with(&cfg, &pool), BAL_EINVAL);
  cfg.nthreads = 3;
  assert_int_equal(bal_pool_create_with(&cfg, NULL), BAL_EINVAL);
  assert_int_equal(bal_pool_create_with(&cfg, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 3);
  assert_int_equal(bal_pool_active(pool), 3);
  assert_int_equal(bal_pool_active(NULL), BAL_EINVAL);
  bal_pool_destroy(pool);
  assert_int_equal(bal_pool_create_with(NULL, &pool), BAL_OK); /* the defaults */
  assert_int_equal(bal_pool_active(pool), bal_pool_size(pool));
  bal_pool_destroy(pool);

  /* An explicit attachment that fails creates no pool and says why. */
  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  char missing[64];
  snprintf(missing, sizeof missing, "/ballast-test-none-%ld", (long)getpid());
  nc.registry = missing;
  cfg.node = &nc;
  pool = NULL;
  assert_int_equal(bal_pool_create_with(&cfg, &pool), BAL_ENOTFOUND);
  assert_null(pool);
}

/* Capacity is the registry's CPU count; active follows the mask at each
 * call; parked workers report zero statistics; a second pool shares the
 * attachment (even when its configuration names another registry). */
static void test_follow_between_calls(void **state) {
  (void)state;
  char reg[64];
  assert_int_equal(node_test_registry(reg, 16), BAL_OK);
  bal_pool *pool;
  assert_int_equal(node_test_pool(reg, 0, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 16);
  assert_int_equal(bal_pool_active(pool), 16);
  run_checked(pool, 100000, 0);

  set_mask(reg, "0-3");
  run_checked(pool, 100000, 0);
  assert_int_equal(bal_pool_size(pool), 16);
  assert_int_equal(bal_pool_active(pool), 4);
  bal_for_stats st;
  for (int w = 4; w < 16; w++) {
    assert_int_equal(bal_for_last_stats(pool, w, &st), BAL_OK);
    assert_int_equal(st.items, 0);
    assert_int_equal(st.chunks, 0);
  }
  assert_int_equal(bal_for_last_stats(pool, -1, &st), BAL_OK);
  assert_int_equal(st.items, 100000);

  /* A second pool, 6 workers, shares the attachment and the mask. */
  bal_pool *pool2;
  assert_int_equal(node_test_pool("/ballast-test-not-used", 6, &pool2), BAL_OK);
  assert_int_equal(bal_pool_size(pool2), 6);
  assert_int_equal(bal_pool_active(pool2), 4);
  set_mask(reg, "2,5,9,11,12,13,14,15"); /* 8 CPUs: pool2 caps at its 6 */
  run_checked(pool2, 50000, 7);
  assert_int_equal(bal_pool_active(pool2), 6);
  run_checked(pool, 50000, 1); /* pool sees what pool2's poll read */
  assert_int_equal(bal_pool_active(pool), 8);
  bal_pool_destroy(pool2);

  set_mask(reg, "7");
  run_checked(pool, 3000, 0);
  assert_int_equal(bal_pool_active(pool), 1);
  set_mask(reg, "0-15");
  run_checked(pool, 3000, 3);
  assert_int_equal(bal_pool_active(pool), 16);

  /* Removed by a manager: worker 0 alone. */
  bal_node_manager *m;
  assert_int_equal(bal_node_manager_open(reg, &m), BAL_OK);
  assert_int_equal(bal_node_manager_remove(m, getpid()), BAL_OK);
  run_checked(pool, 3000, 0);
  assert_int_equal(bal_pool_active(pool), 1);
  bal_pool_destroy(pool);

  /* The last pool detached: the process can attach again. */
  bal_node_proc *p;
  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  nc.registry = reg;
  assert_int_equal(bal_node_attach(&nc, &p), BAL_OK);
  bal_node_detach(p);
  bal_node_manager_close(m);
  assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
}

/* A worker parked mid-call leaves after its current chunk; what remains of
 * its range — here a last grain shorter than the grain, which thieves leave
 * to an active owner — is run by worker 0, even if worker 0 was already
 * waiting for the call to end. 33 indices, grain 10, 2 workers: worker 0
 * is dealt [0, 20), worker 1 [20, 33); worker 1's first chunk shrinks the
 * mask to one CPU and sleeps past the next poll. */
typedef struct park_probe {
  bal_node_manager *m;
  int worker[33];
  atomic_int runs[33];
} park_probe;

static void park_body(int64_t begin, int64_t end, void *arg) {
  park_probe *p = arg;
  for (int64_t i = begin; i < end; i++) {
    p->worker[i] = bal_worker_id();
    atomic_fetch_add(&p->runs[i], 1);
  }
  if (begin == 20) {
    bal_node_mask one;
    bal_node_mask_parse("0", &one);
    bal_node_manager_set(p->m, getpid(), &one, 0);
    struct timespec ts = {0, 20000000}; /* 20 ms: the next poll is due */
    nanosleep(&ts, NULL);
  }
}

enum { GROW_N = 10000 };

static void test_parked_owner_range(void **state) {
  (void)state;
  char reg[64];
  assert_int_equal(node_test_registry(reg, 2), BAL_OK);
  bal_pool *pool;
  assert_int_equal(node_test_pool(reg, 0, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 2);
  park_probe *p = calloc(1, sizeof *p);
  assert_int_equal(bal_node_manager_open(reg, &p->m), BAL_OK);
  for (int round = 0; round < 5; round++) {
    bal_node_mask two;
    bal_node_mask_parse("0-1", &two);
    assert_int_equal(bal_node_manager_set(p->m, getpid(), &two, 0), BAL_OK);
    for (int i = 0; i < 33; i++) atomic_store(&p->runs[i], 0);
    assert_int_equal(bal_for(pool, 0, 33, 10, park_body, p), BAL_OK);
    for (int i = 0; i < 33; i++) assert_int_equal(atomic_load(&p->runs[i]), 1);
    for (int i = 0; i < 20; i++) assert_int_equal(p->worker[i], 0);
    if (p->worker[20] != 1) continue; /* worker 1 woke too late: worker 0 ran it all */
    for (int i = 20; i < 30; i++) assert_int_equal(p->worker[i], 1);
    for (int i = 30; i < 33; i++) assert_int_equal(p->worker[i], 0);
    assert_int_equal(bal_pool_active(pool), 1);
  }
  bal_node_manager_close(p->m);
  free(p);
  bal_pool_destroy(pool);
  assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
}

/* A grow inside a call reaches a worker that was made inactive between
 * calls. Worker 1 runs a call with both CPUs and leaves it active, so it
 * waits for the next call, not parked; the mask shrinks to one CPU before
 * the next call, which is dealt to worker 0 alone; its first index grows
 * the mask back. Worker 1 must join that running call: worker 0's indices
 * each sleep 200 us until worker 1 has run one, so a worker 1 that never
 * comes shows as `helped` 0 after about 2 s (this is how lending reaches
 * a borrower: rank 0's worker 1 missed most lent CPUs before, issue 27). */
typedef struct grow_probe {
  bal_node_manager *m;
  atomic_int helped;
  atomic_int runs[GROW_N];
} grow_probe;

static void grow_body(int64_t begin, int64_t end, void *arg) {
  grow_probe *p = arg;
  for (int64_t i = begin; i < end; i++) {
    atomic_fetch_add(&p->runs[i], 1);
    if (bal_worker_id() == 1) {
      atomic_store(&p->helped, 1);
    } else if (i == 0) {
      bal_node_mask two;
      bal_node_mask_parse("0-1", &two);
      bal_node_manager_set(p->m, getpid(), &two, 0);
    } else if (!atomic_load(&p->helped)) {
      struct timespec ts = {0, 200000}; /* past the next poll (100 us) */
      nanosleep(&ts, NULL);
    }
  }
}

static void test_grow_reaches_idle_worker(void **state) {
  (void)state;
  char reg[64];
  assert_int_equal(node_test_registry(reg, 2), BAL_OK);
  bal_pool *pool;
  assert_int_equal(node_test_pool(reg, 0, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 2);
  grow_probe *p = calloc(1, sizeof *p);
  assert_int_equal(bal_node_manager_open(reg, &p->m), BAL_OK);
  /* Counted, and checked after the cleanup, so that a failure leaves no
   * attachment behind for the next tests. */
  int bad_runs = 0, not_helped = 0, not_grown = 0;
  for (int round = 0; round < 3; round++) {
    set_mask(reg, "0-1");
    run_checked(pool, 1000, 1);
    assert_int_equal(bal_pool_active(pool), 2);
    struct timespec ts = {0, 5000000}; /* 5 ms: worker 1 sleeps on the next call */
    nanosleep(&ts, NULL);
    set_mask(reg, "0");
    for (int i = 0; i < GROW_N; i++) atomic_store(&p->runs[i], 0);
    atomic_store(&p->helped, 0);
    assert_int_equal(bal_for(pool, 0, GROW_N, 1, grow_body, p), BAL_OK);
    for (int i = 0; i < GROW_N; i++) bad_runs += atomic_load(&p->runs[i]) != 1;
    not_grown += bal_pool_active(pool) != 2;
    not_helped += atomic_load(&p->helped) != 1;
  }
  bal_node_manager_close(p->m);
  free(p);
  bal_pool_destroy(pool);
  assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
  assert_int_equal(bad_runs, 0);
  assert_int_equal(not_grown, 0);
  assert_int_equal(not_helped, 0); /* worker 1 joined the running call every round */
}

typedef struct log_capture {
  int warnings;
  char last[512];
} log_capture;

static void capture(bal_log_level level, const char *module, const char *msg, void *user) {
  log_capture *c = user;
  if (level == BAL_LOG_WARN && strcmp(module, "for") == 0) {
    c->warnings++;
    snprintf(c->last, sizeof c->last, "%s", msg);
  }
}

static void test_env(void **state) {
  (void)state;
  log_capture cap = {0};
  bal_log_set_callback(capture, BAL_LOG_WARN, &cap);

  /* BALLAST_NODE=1, no registry reachable: unattached, the reason logged. */
  char missing[64];
  snprintf(missing, sizeof missing, "/ballast-test-none-%ld", (long)getpid());
  setenv("BALLAST_NODE", "1", 1);
  setenv("BALLAST_NODE_REGISTRY", missing, 1);
  bal_pool *pool;
  assert_int_equal(bal_pool_create(3, &pool), BAL_OK);
  assert_int_equal(bal_pool_active(pool), 3);
  assert_int_equal(cap.warnings, 1);
  assert_non_null(strstr(cap.last, missing));
  run_checked(pool, 10000, 0);
  bal_pool_destroy(pool);
  unsetenv("BALLAST_NODE_REGISTRY");
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(cap.warnings, 2);
  bal_pool_destroy(pool);

  /* With a registry: an unmodified bal_pool_create() follows it. */
  char reg[64];
  assert_int_equal(node_test_registry(reg, 12), BAL_OK);
  setenv("BALLAST_NODE_REGISTRY", reg, 1);
  assert_int_equal(bal_pool_create(0, &pool), BAL_OK);
  assert_int_equal(cap.warnings, 2);
  assert_int_equal(bal_pool_size(pool), 12);
  assert_int_equal(bal_pool_active(pool), 12);
  set_mask(reg, "3-5");
  run_checked(pool, 20000, 0);
  assert_int_equal(bal_pool_active(pool), 3);
  bal_pool_destroy(pool);

  /* 0 attaches nothing; other values neither, and say so. */
  bal_node_proc *p;
  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  const char *off[] = {"0", "yes", "", " 1", "01", "true"};
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
    setenv("BALLAST_NODE", off[i], 1);
    int before = cap.warnings;
    assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
    assert_int_equal(bal_node_attach(&nc, &p), BAL_OK); /* the pool did not */
    bal_node_detach(p);
    bal_pool_destroy(pool);
    assert_int_equal(cap.warnings, before + (i > 0));
    if (i > 0) {
      assert_non_null(strstr(cap.last, "BALLAST_NODE="));
      assert_non_null(strstr(cap.last, "expected 1"));
    }
  }

  /* Attached by other means already: BALLAST_NODE=1 logs and runs unattached. */
  setenv("BALLAST_NODE", "1", 1);
  assert_int_equal(bal_node_attach(&nc, &p), BAL_OK);
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(cap.warnings, 3 + 5); /* the 5 bad values above */
  assert_int_equal(bal_pool_active(pool), 2);
  bal_pool_destroy(pool);
  bal_node_detach(p);

  unsetenv("BALLAST_NODE");
  unsetenv("BALLAST_NODE_REGISTRY");
  bal_log_set_callback(NULL, BAL_LOG_WARN, NULL);
  assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
}

/* Real CPUs: what each worker is bound to, seen from inside the body. */
typedef struct affinity_log {
  cpu_set_t sets[64];
  atomic_int seen[64];
} affinity_log;

static void record_affinity(int64_t begin, int64_t end, void *arg) {
  (void)begin;
  (void)end;
  affinity_log *a = arg;
  int id = bal_worker_id();
  if (id < 0 || id >= 64) return;
  if (atomic_exchange(&a->seen[id], 1) == 0) sched_getaffinity(0, sizeof a->sets[id], &a->sets[id]);
  for (volatile int spin = 0; spin < 20000; spin++) {
  }
}

static void test_real_binding(void **state) {
  (void)state;
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) < 2 ||
      !CPU_ISSET(0, &mine) || !CPU_ISSET(1, &mine)) {
    skip(); /* needs CPUs 0 and 1 */
    return;
  }
  char reg[64];
  int rc = node_test_registry(reg, 0);
  if (rc == BAL_EINVAL) {
    skip(); /* more CPUs than a registry holds */
    return;
  }
  assert_int_equal(rc, BAL_OK);
  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  nc.registry = reg;
  bal_node_mask two;
  bal_node_mask_parse("0-1", &two);
  nc.cpus = &two;
  bal_pool_config cfg;
  bal_pool_config_init(&cfg);
  cfg.node = &nc;
  cfg.nthreads = 2;
  bal_pool *pool;
  assert_int_equal(bal_pool_create_with(&cfg, &pool), BAL_OK);

  for (int round = 0; round < 2; round++) {
    set_mask(reg, "1");
    affinity_log *a = calloc(1, sizeof *a);
    assert_int_equal(bal_for(pool, 0, 2000, 1, record_affinity, a), BAL_OK);
    assert_int_equal(bal_pool_active(pool), 1);
    assert_true(atomic_load(&a->seen[0]));
    assert_false(atomic_load(&a->seen[1]));
    assert_int_equal(CPU_COUNT(&a->sets[0]), 1); /* worker 0: the whole mask, {1} */
    assert_true(CPU_ISSET(1, &a->sets[0]));
    free(a);

    set_mask(reg, "0-1");
    a = calloc(1, sizeof *a);
    assert_int_equal(bal_for(pool, 0, 2000, 1, record_affinity, a), BAL_OK);
    assert_int_equal(bal_pool_active(pool), 2);
    assert_true(atomic_load(&a->seen[0]));
    assert_int_equal(CPU_COUNT(&a->sets[0]), 2);
    assert_true(atomic_load(&a->seen[1])); /* worker 1: the mask's CPU number 1 */
    {
      assert_int_equal(CPU_COUNT(&a->sets[1]), 1);
      assert_true(CPU_ISSET(1, &a->sets[1]));
    }
    free(a);
  }
  bal_pool_destroy(pool);
  sched_setaffinity(0, sizeof mine, &mine);
  assert_int_equal(bal_node_registry_destroy(reg), BAL_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_config),
      cmocka_unit_test(test_follow_between_calls),
      cmocka_unit_test(test_parked_owner_range),
      cmocka_unit_test(test_grow_reaches_idle_worker),
      cmocka_unit_test(test_env),
      cmocka_unit_test(test_real_binding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
