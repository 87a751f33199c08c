/* for: the documented contract of bal_pool_* and bal_for, call by call:
 * argument checking, edge ranges, nesting, worker ids, statistics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/ballast.h>

#include "for_check.h"

static atomic_long body_calls;
static void counting_body(int64_t b, int64_t e, void *arg) {
  (void)b, (void)e, (void)arg;
  atomic_fetch_add(&body_calls, 1);
}

static void pool_create_rejects_bad_arguments(void **state) {
  (void)state;
  bal_pool *pool = (bal_pool *)0x1;
  assert_int_equal(bal_pool_create(2, NULL), BAL_EINVAL);
  assert_int_equal(bal_pool_create(-1, &pool), BAL_EINVAL);
  assert_int_equal(bal_pool_create(BAL_POOL_MAX_THREADS + 1, &pool), BAL_EINVAL);
  assert_ptr_equal(pool, (bal_pool *)0x1); /* untouched on error */
  assert_int_equal(bal_pool_size(NULL), BAL_EINVAL);
  bal_pool_destroy(NULL);
}

/* The last message logged at BAL_LOG_ERROR, for the tests that check a
 * refusal names what was refused. */
static char last_error[512];
static void keep_error(bal_log_level level, const char *module, const char *msg, void *user) {
  (void)module, (void)user;
  if ((int)level == BAL_LOG_ERROR) snprintf(last_error, sizeof last_error, "%s", msg);
}

/* Each value of variable `var` makes bal_pool_create(nthreads) refuse,
 * with an error that names the variable and says what it accepts. */
static void env_refused(const char *var, const char *const *values, size_t n, int nthreads,
                        const char *accepts) {
  char named[64];
  snprintf(named, sizeof named, "%s=", var);
  bal_log_set_callback(keep_error, BAL_LOG_ERROR, NULL);
  for (size_t i = 0; i < n; i++) {
    bal_pool *pool = NULL;
    setenv(var, values[i], 1);
    last_error[0] = '\0';
    assert_int_equal(bal_pool_create(nthreads, &pool), BAL_EINVAL);
    assert_null(pool);
    assert_non_null(strstr(last_error, named));
    assert_non_null(strstr(last_error, accepts));
  }
  bal_log_set_callback(NULL, BAL_LOG_ERROR, NULL);
}

static void pool_size_from_environment(void **state) {
  (void)state;
  bal_pool *pool = NULL;
  /* strict, as the tools' flags: no sign, padding or leading zero */
  const char *bad[] = {"abc", "0", "-2", "-1", "3x", "100000", "99999", "1025", "",
                       " 3",  "03", "+3", "\t3", "3 ", "0x3", "3.0"};
  env_refused("BALLAST_NUM_THREADS", bad, sizeof bad / sizeof bad[0], 0, "[1, 1024]");
  setenv("BALLAST_NUM_THREADS", "1024", 1);
  assert_int_equal(bal_pool_create(0, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 1024);
  bal_pool_destroy(pool);
  setenv("BALLAST_NUM_THREADS", "3", 1);
  assert_int_equal(bal_pool_create(0, &pool), BAL_OK);
  assert_int_equal(bal_pool_size(pool), 3);
  bal_pool_destroy(pool);
  unsetenv("BALLAST_NUM_THREADS");
  assert_int_equal(bal_pool_create(0, &pool), BAL_OK);
  assert_true(bal_pool_size(pool) >= 1);
  bal_pool_destroy(pool);
  assert_int_equal(bal_pool_create(5, &pool), BAL_OK); /* explicit beats default */
  assert_int_equal(bal_pool_size(pool), 5);
  bal_pool_destroy(pool);
}

static void for_rejects_bad_arguments_without_running(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  atomic_store(&body_calls, 0);
  assert_int_equal(bal_for(NULL, 0, 10, 0, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, 0, 10, 0, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, 10, 9, 0, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, 0, 10, -1, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, INT64_MIN, INT64_MAX, 0, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, -1, INT64_MAX, 0, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for(pool, INT64_MIN, 1, 0, counting_body, NULL), BAL_EINVAL);
  assert_int_equal(atomic_load(&body_calls), 0);
  bal_for_stats st;
  assert_int_equal(bal_for_last_stats(pool, -1, &st), BAL_ENOTSUP); /* nothing ran yet */
  bal_pool_destroy(pool);
}

static void empty_range_runs_nothing(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(3, &pool), BAL_OK);
  atomic_store(&body_calls, 0);
  assert_int_equal(bal_for(pool, 5, 5, 0, counting_body, NULL), BAL_OK);
  assert_int_equal(bal_for(pool, INT64_MAX, INT64_MAX, 7, counting_body, NULL), BAL_OK);
  assert_int_equal(bal_for(pool, INT64_MIN, INT64_MIN, 0, counting_body, NULL), BAL_OK);
  assert_int_equal(atomic_load(&body_calls), 0);
  bal_pool_destroy(pool);
}

static void run_exactly_once(bal_pool *pool, int64_t begin, int64_t end, int64_t grain) {
  hit_map m;
  hit_map_init(&m, begin, end, bal_pool_size(pool));
  assert_int_equal(bal_for(pool, begin, end, grain, hit_body, &m), BAL_OK);
  assert_int_equal(hit_map_errors(&m), 0);
  assert_int_equal(atomic_load(&m.bad_worker_id), 0);
  hit_map_free(&m);
}

static void edge_ranges_run_exactly_once(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(4, &pool), BAL_OK);
  run_exactly_once(pool, 0, 1, 0);                     /* single item */
  run_exactly_once(pool, -1, 0, 0);                    /* single negative item */
  run_exactly_once(pool, 0, 3, 0);                     /* fewer items than workers */
  run_exactly_once(pool, -1000, 1000, 0);              /* spans zero */
  run_exactly_once(pool, -7, 1001, 3);                 /* remainder of the split */
  run_exactly_once(pool, INT64_MAX - 5000, INT64_MAX, 0);
  run_exactly_once(pool, INT64_MIN, INT64_MIN + 5000, 0);
  run_exactly_once(pool, INT64_MIN, INT64_MIN + 1, 0);
  run_exactly_once(pool, INT64_MAX - 1, INT64_MAX, 0);
  run_exactly_once(pool, 0, 10007, 10007);             /* grain = whole range */
  run_exactly_once(pool, 0, 10007, 1000000);           /* grain > range */
  bal_pool_destroy(pool);
}

/* A range of length INT64_MAX: too long to run per index, so the body records
 * the pieces it gets and the test checks they tile the range exactly. */
enum { MAX_PIECES = 1 << 16 };
static struct piece { int64_t b, e; } pieces[MAX_PIECES];
static atomic_int npieces;
static void piece_body(int64_t b, int64_t e, void *arg) {
  (void)arg;
  int k = atomic_fetch_add(&npieces, 1);
  if (k < MAX_PIECES) pieces[k] = (struct piece){b, e};
}
static int by_begin(const void *a, const void *b) {
  const struct piece *x = a, *y = b;
  return (x->b > y->b) - (x->b < y->b);
}

static void longest_range_is_tiled_exactly(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(3, &pool), BAL_OK);
  const int64_t spans[][2] = {{INT64_MIN, -1}, {0, INT64_MAX}, {-(INT64_C(1) << 40), INT64_C(1) << 40}};
  for (size_t s = 0; s < 3; s++) {
    atomic_store(&npieces, 0);
    assert_int_equal(bal_for(pool, spans[s][0], spans[s][1], 0, piece_body, NULL), BAL_OK);
    int n = atomic_load(&npieces);
    assert_in_range(n, 1, MAX_PIECES - 1);
    qsort(pieces, (size_t)n, sizeof pieces[0], by_begin);
    assert_true(pieces[0].b == spans[s][0]);
    for (int i = 0; i < n; i++) {
      assert_true(pieces[i].b < pieces[i].e);
      if (i + 1 < n) assert_true(pieces[i].e == pieces[i + 1].b);
    }
    assert_true(pieces[n - 1].e == spans[s][1]);
  }
  bal_pool_destroy(pool);
}

static void worker_id_is_minus_one_outside_bodies(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_worker_id(), -1);
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  run_exactly_once(pool, 0, 1000, 0);
  assert_int_equal(bal_worker_id(), -1);
  bal_pool_destroy(pool);
}

/* A bal_for inside a body runs serially in the calling worker. */
struct nested {
  bal_pool *pool;
  hit_map inner;
  atomic_int wrong_id;
  atomic_int bad_rc;
};
static _Thread_local int outer_id;
static void inner_body(int64_t b, int64_t e, void *arg) {
  struct nested *n = arg;
  if (bal_worker_id() != outer_id) atomic_fetch_add(&n->wrong_id, 1);
  hit_body(b, e, &n->inner);
}
static void outer_body(int64_t b, int64_t e, void *arg) {
  struct nested *n = arg;
  outer_id = bal_worker_id();
  for (int64_t i = b; i < e; i++) {
    int rc = bal_for(n->pool, i * 100, i * 100 + 100, 0, inner_body, n);
    if (rc != BAL_OK) atomic_fetch_add(&n->bad_rc, 1);
  }
}

static void nested_call_runs_serially_in_worker(void **state) {
  (void)state;
  struct nested n;
  assert_int_equal(bal_pool_create(4, &n.pool), BAL_OK);
  hit_map_init(&n.inner, 0, 100 * 500, 4);
  atomic_init(&n.wrong_id, 0);
  atomic_init(&n.bad_rc, 0);
  assert_int_equal(bal_for(n.pool, 0, 500, 0, outer_body, &n), BAL_OK);
  assert_int_equal(hit_map_errors(&n.inner), 0);
  assert_int_equal(atomic_load(&n.wrong_id), 0);
  assert_int_equal(atomic_load(&n.bad_rc), 0);
  hit_map_free(&n.inner);
  bal_pool_destroy(n.pool);
}

static void stats_account_for_every_item(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(3, &pool), BAL_OK);
  run_exactly_once(pool, 0, 123457, 0);
  bal_for_stats total, one;
  assert_int_equal(bal_for_last_stats(pool, -1, &total), BAL_OK);
  assert_int_equal(total.items, 123457);
  assert_true(total.chunks >= 1);
  assert_true(total.steals_won <= total.steals_attempted);
  assert_true(total.wall_seconds > 0.0);
  int64_t items = 0;
  for (int w = 0; w < 3; w++) {
    assert_int_equal(bal_for_last_stats(pool, w, &one), BAL_OK);
    items += one.items;
    assert_true(one.wall_seconds == total.wall_seconds);
  }
  assert_int_equal(items, total.items);
  assert_int_equal(bal_for_last_stats(pool, 3, &one), BAL_EINVAL);
  assert_int_equal(bal_for_last_stats(pool, -2, &one), BAL_EINVAL);
  assert_int_equal(bal_for_last_stats(pool, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_for_last_stats(NULL, 0, &one), BAL_EINVAL);
  /* An empty call does not replace the figures. */
  assert_int_equal(bal_for(pool, 0, 0, 0, counting_body, NULL), BAL_OK);
  assert_int_equal(bal_for_last_stats(pool, -1, &total), BAL_OK);
  assert_int_equal(total.items, 123457);
  bal_pool_destroy(pool);
}

/* With an explicit grain, every body call gets exactly one grain, except
 * the one that ends the loop: the deal and the thieves' cuts fall on whole
 * grains. */
static atomic_long short_calls, other_calls;
static void grain_body(int64_t b, int64_t e, void *arg) {
  int64_t grain = *(int64_t *)arg;
  if (e - b < grain && e == 1000003)
    atomic_fetch_add(&short_calls, 1);
  else if (e - b != grain || b % grain != 0)
    atomic_fetch_add(&other_calls, 1);
}

static void explicit_grain_bounds_piece_size(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(4, &pool), BAL_OK);
  for (int64_t grain = 1; grain <= 4096; grain *= 8) {
    atomic_store(&short_calls, 0);
    atomic_store(&other_calls, 0);
    assert_int_equal(bal_for(pool, 0, 1000003, grain, grain_body, &grain), BAL_OK);
    bal_for_stats total;
    assert_int_equal(bal_for_last_stats(pool, -1, &total), BAL_OK);
    assert_int_equal(total.items, 1000003);
    assert_true(atomic_load(&short_calls) <= 1);
    assert_int_equal(atomic_load(&other_calls), 0);
  }
  bal_pool_destroy(pool);
}

/* All the cost is in the first 16 of 4096 items, inside worker 0's first
 * block (32 items on 4 workers): the others must steal it. */
static _Atomic int ran_by[4096];
static void slow_first_items(int64_t b, int64_t e, void *arg) {
  (void)arg;
  for (int64_t i = b; i < e; i++) {
    atomic_store(&ran_by[i], bal_worker_id());
    if (i < 16) {
      struct timespec ts = {0, 2000000};
      nanosleep(&ts, NULL);
    }
  }
}

static void idle_workers_steal_skewed_work(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(4, &pool), BAL_OK);
  assert_int_equal(bal_for(pool, 0, 4096, 0, slow_first_items, NULL), BAL_OK);
  int helped = 0;
  for (int i = 0; i < 16; i++) helped += atomic_load(&ran_by[i]) != 0;
  assert_true(helped > 0);
  bal_for_stats total;
  assert_int_equal(bal_for_last_stats(pool, -1, &total), BAL_OK);
  assert_true(total.steals_won > 0);
  bal_pool_destroy(pool);
}

/* BALLAST_BIND places background workers: with "pu" each sits on one CPU. */
static atomic_int cpus_seen_by_background_worker;
static void affinity_body(int64_t b, int64_t e, void *arg) {
  (void)b, (void)e, (void)arg;
  cpu_set_t set;
  if (bal_worker_id() > 0 && sched_getaffinity(0, sizeof set, &set) == 0)
    atomic_store(&cpus_seen_by_background_worker, CPU_COUNT(&set));
  struct timespec ts = {0, 200000}; /* let every worker get a piece */
  nanosleep(&ts, NULL);
}

static void binding_from_environment(void **state) {
  (void)state;
  bal_pool *pool = NULL;
  const char *bad[] = {"sockets", "", "PU", " pu", "core,pu"};
  env_refused("BALLAST_BIND", bad, sizeof bad / sizeof bad[0], 2, "none, core or pu");
  const char *policies[] = {"none", "core", "pu"};
  for (size_t i = 0; i < 3; i++) {
    setenv("BALLAST_BIND", policies[i], 1);
    assert_int_equal(bal_pool_create(3, &pool), BAL_OK);
    run_exactly_once(pool, 0, 5000, 0);
    atomic_store(&cpus_seen_by_background_worker, 0);
    assert_int_equal(bal_for(pool, 0, 200, 1, affinity_body, NULL), BAL_OK);
    if (i == 2) assert_int_equal(atomic_load(&cpus_seen_by_background_worker), 1);
    bal_pool_destroy(pool);
  }
  unsetenv("BALLAST_BIND");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(pool_create_rejects_bad_arguments),
      cmocka_unit_test(pool_size_from_environment),
      cmocka_unit_test(for_rejects_bad_arguments_without_running),
      cmocka_unit_test(empty_range_runs_nothing),
      cmocka_unit_test(edge_ranges_run_exactly_once),
      cmocka_unit_test(longest_range_is_tiled_exactly),
      cmocka_unit_test(worker_id_is_minus_one_outside_bodies),
      cmocka_unit_test(nested_call_runs_serially_in_worker),
      cmocka_unit_test(stats_account_for_every_item),
      cmocka_unit_test(explicit_grain_bounds_piece_size),
      cmocka_unit_test(idle_workers_steal_skewed_work),
      cmocka_unit_test(binding_from_environment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
