/* for: steering sleeping workers' wake-ups (src/for/steer.h). Between
 * calls separated by gaps long enough for the background workers to fall
 * asleep, the caller gives each of them one CPU to wake on; a worker must
 * be back on its own CPU set before it runs any of the loop, or it would
 * stay pinned to one CPU for good. Checked from inside the body, on every
 * call, with the workers' sets differing from the process's or not, and
 * every index must still run exactly once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/ballast.h>

#define ITEMS 20000
#define CALLS 60

static struct {
  cpu_set_t expected;        /* the set every background worker must run with */
  _Atomic unsigned hits[ITEMS];
  atomic_int wrong_set;      /* body calls on a worker with another set */
  atomic_int other_cpu_runs; /* body calls of background workers on a CPU other than the caller's */
  int caller_cpu;
} run;

static void body(int64_t lo, int64_t hi, void *arg) {
  (void)arg;
  if (bal_worker_id() > 0) {
    cpu_set_t mine;
    if (pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) != 0 ||
        !CPU_EQUAL(&mine, &run.expected))
      atomic_fetch_add(&run.wrong_set, 1);
    if (sched_getcpu() != run.caller_cpu) atomic_fetch_add(&run.other_cpu_runs, 1);
  }
  for (int64_t i = lo; i < hi; i++) {
    atomic_fetch_add_explicit(&run.hits[i], 1, memory_order_relaxed);
    for (volatile int k = 0; k < 200; k++) {
    }
  }
}

static void sleep_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
  }
}

/* CALLS loops over ITEMS on a pool of `threads`, 2 ms apart (far past the
 * workers' idle spin), with the process's CPU set at creation `set`. */
static void calls_keep_the_workers_set(int threads, const cpu_set_t *set) {
  cpu_set_t saved;
  assert_int_equal(sched_getaffinity(0, sizeof saved, &saved), 0);
  assert_int_equal(sched_setaffinity(0, sizeof *set, set), 0);
  run.expected = *set;
  atomic_store(&run.wrong_set, 0);
  atomic_store(&run.other_cpu_runs, 0);
  bal_pool *pool = NULL;
  assert_int_equal(bal_pool_create(threads, &pool), BAL_OK);
  for (int c = 0; c < CALLS; c++) {
    memset(run.hits, 0, sizeof run.hits);
    sleep_ms(2);
    run.caller_cpu = sched_getcpu();
    assert_int_equal(bal_for(pool, 0, ITEMS, 0, body, NULL), BAL_OK);
    for (int i = 0; i < ITEMS; i++) assert_int_equal(atomic_load(&run.hits[i]), 1);
  }
  bal_pool_destroy(pool);
  assert_int_equal(sched_setaffinity(0, sizeof saved, &saved), 0);
  assert_int_equal(atomic_load(&run.wrong_set), 0);
}

static int usable_cpus(cpu_set_t *set) {
  if (sched_getaffinity(0, sizeof *set, set) != 0) return 0;
  return CPU_COUNT(set);
}

static void workers_return_to_the_process_set(void **state) {
  (void)state;
  cpu_set_t all;
  int n = usable_cpus(&all);
  if (n < 2) skip();
  calls_keep_the_workers_set(n < 4 ? n : 4, &all);
  /* Not a correctness property, but what steering is for: woken on
   * another CPU than the caller's, background workers ran some of the
   * loop there (a pinned-to-the-caller's-CPU worker would not). */
  assert_true(atomic_load(&run.other_cpu_runs) > 0);
}

static void workers_return_to_a_smaller_set(void **state) {
  (void)state;
  cpu_set_t all, two;
  if (usable_cpus(&all) < 3) skip();
  CPU_ZERO(&two);
  for (int cpu = 0, taken = 0; cpu < CPU_SETSIZE && taken < 2; cpu++)
    if (CPU_ISSET(cpu, &all)) CPU_SET(cpu, &two), taken++;
  calls_keep_the_workers_set(2, &two);
}

static void one_cpu_is_left_alone(void **state) {
  (void)state;
  cpu_set_t all, one;
  if (usable_cpus(&all) < 1) skip();
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
    if (CPU_ISSET(cpu, &all)) {
      CPU_SET(cpu, &one);
      break;
    }
  calls_keep_the_workers_set(2, &one); /* oversubscribed: never steered */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(workers_return_to_the_process_set),
      cmocka_unit_test(workers_return_to_a_smaller_set),
      cmocka_unit_test(one_cpu_is_left_alone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
