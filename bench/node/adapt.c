/* bench_node_adapt: how fast an attached pool follows a manager's
 * bal_node_manager_set() on a registry of this machine's real CPUs
 * (workers bound to the CPUs of the mask). One process: a pool attached to
 * a fresh real-CPU registry, holding CPUs 0-1, and a manager connection.
 * Each repetition:
 *   1. a loop on the unchanged mask {0,1} (baseline: both workers running),
 *   2. set {0}, then a loop: until worker 0 runs, and worker 1 must not,
 *   3. a loop on the unchanged mask {0} (baseline for 2),
 *   4. set {0,1}, then a loop: until both workers run (worker 1 was
 *      parked and must be woken).
 * Latency = from entry into bal_for() to the first item of the last worker
 * of the new mask to start; also from the call to bal_node_manager_set().
 * Each loop is 1,000 items of ~2 us (about 2 ms on one worker), one item
 * per chunk, so a worker that wakes late still finds work; a worker of the
 * mask that ran no item is a miss (counted as starting at the loop's end),
 * a parked worker that ran one a violation.
 * Baselines for the grow, in the same run: the same loop on an unattached
 * pool of 2 workers (unbound), from entry until both run; and the time a
 * pthread condition variable takes to wake a thread bound to CPU 1
 * (signal to running), the operating system's part of waking a parked
 * worker, once for a thread that only waits and once for one that
 * computed 2 ms before it blocked, as a worker does before it parks.
 *
 * Usage: bench_node_adapt [REPS [virtual]]   (default 1000)
 *   virtual: a registry of 2 virtual CPUs instead (no binding), to tell
 *   the cost of following the mask from that of binding the workers. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_node.h"

enum { ITEMS = 1000, MAXW = 2 };

static _Atomic int64_t first_ns[MAXW];
static _Atomic int first_cpu[MAXW]; /* the CPU each worker's first item ran on */
static volatile uint64_t sink;
static uint64_t item_steps = 2000;

static void body(int64_t b, int64_t e, void *arg) {
  (void)arg;
  int w = bal_worker_id();
  if (w >= 0 && w < MAXW) {
    int64_t zero = 0;
    if (atomic_compare_exchange_strong(&first_ns[w], &zero, bench_now_ns()))
      atomic_store(&first_cpu[w], sched_getcpu());
  }
  uint64_t x = (uint64_t)b + 1;
  for (int64_t i = b; i < e; i++) x = bench_spin(item_steps, x);
  sink = x;
}

/* One loop; the time (us) from entry until every worker of `want` workers
 * ran an item. A worker that ran none (*miss) counts as starting when the
 * loop ended: a lower bound, so that slow wake-ups are not left out of the
 * medians. *extra: a worker past `want` ran. */
static double loop(bal_pool *p, int want, int64_t since, double *from_set, bool *miss,
                   bool *extra) {
  for (int w = 0; w < MAXW; w++) atomic_store(&first_ns[w], 0);
  int64_t t0 = bench_now_ns();
  bal_for(p, 0, ITEMS, 1, body, NULL);
  int64_t end = bench_now_ns();
  int64_t last = 0;
  *miss = false;
  for (int w = 0; w < want; w++) {
    int64_t f = atomic_load(&first_ns[w]);
    if (f == 0) {
      *miss = true;
      f = end;
    }
    if (f > last) last = f;
  }
  *extra = false;
  for (int w = want; w < MAXW; w++) *extra = *extra || atomic_load(&first_ns[w]) != 0;
  if (from_set) *from_set = (double)(last - since) * 1e-3;
  return (double)(last - t0) * 1e-3;
}

/* The wake baseline: a thread on CPU 1 waits on a condition variable. */
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcond = PTHREAD_COND_INITIALIZER;
static int64_t wround, wdone;       /* under wlock */
static _Atomic int64_t woke_ns;
static _Atomic int64_t busy_ns;     /* how long the waiter computes after each wake-up */

static void *waiter(void *arg) {
  (void)arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(1, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  pthread_mutex_lock(&wlock);
  for (int64_t seen = 0;; seen++) {
    while (wround == seen) pthread_cond_wait(&wcond, &wlock);
    if (wround < 0) break;
    int64_t t = bench_now_ns();
    atomic_store(&woke_ns, t);
    wdone = wround;
    int64_t busy = atomic_load(&busy_ns);
    if (busy > 0) { /* compute as a worker does before it parks */
      pthread_mutex_unlock(&wlock);
      while (bench_now_ns() - t < busy) sink = bench_spin(100, sink);
      pthread_mutex_lock(&wlock);
    }
  }
  pthread_mutex_unlock(&wlock);
  return NULL;
}

/* Signal the waiter; the time (us) until it runs. It then computes for
 * busy_ms before it blocks again. */
static double wake_once(double busy_ms) {
  atomic_store(&busy_ns, (int64_t)(busy_ms * 1e6));
  struct timespec settle = {0, 200000 + (long)(busy_ms * 1e6)}; /* let it block first */
  nanosleep(&settle, NULL);
  pthread_mutex_lock(&wlock);
  int64_t t0 = bench_now_ns();
  wround++;
  pthread_cond_signal(&wcond);
  pthread_mutex_unlock(&wlock);
  for (;;) {
    pthread_mutex_lock(&wlock);
    bool done = wdone == wround;
    pthread_mutex_unlock(&wlock);
    if (done) break;
  }
  double us = (double)(atomic_load(&woke_ns) - t0) * 1e-3;
  nanosleep(&settle, NULL); /* its computing must not disturb what follows */
  return us;
}

static void report(const char *what, double *v, int64_t n, double *base) {
  double med = bench_median(v, n);
  printf("  %-38s median %7.1f us  (p10 %.1f, p90 %.1f)", what, med,
         bench_quantile_sorted(v, n, 0.1), bench_quantile_sorted(v, n, 0.9));
  if (base) printf("  baseline %.1f us", bench_median(base, n));
  printf("\n");
}

int main(int argc, char **argv) {
  bool virt = argc == 3 && !strcmp(argv[2], "virtual");
  int64_t reps = bench_reps(virt ? 2 : argc, argv, 1000, "bench_node_adapt");
  if (reps < 0) return 2;
  if (sysconf(_SC_NPROCESSORS_CONF) < 2) {
    fprintf(stderr, "bench_node_adapt: needs 2 CPUs\n");
    return 1;
  }
  char reg[64];
  if (bench_node_registry(reg, sizeof reg, "adapt", virt ? 2 : 0) != BAL_OK) return 1;
  bal_node_mask one, two;
  bal_node_mask_zero(&one);
  bal_node_mask_zero(&two);
  bal_node_mask_add(&one, 0, 0);
  bal_node_mask_add(&two, 0, 1);
  bal_node_attach_config ac;
  bal_node_attach_config_init(&ac);
  ac.registry = reg;
  ac.cpus = &two;
  bal_pool_config pc;
  bal_pool_config_init(&pc);
  pc.nthreads = 2;
  pc.node = &ac;
  bal_pool *pool = NULL;
  bal_node_manager *m = NULL;
  bal_pool *plain = NULL; /* an unattached pool of 2 workers: the same loop, for comparison */
  unsetenv("BALLAST_NODE");
  int rc = bal_pool_create(2, &plain);
  if (rc == BAL_OK) rc = bal_pool_create_with(&pc, &pool);
  if (rc == BAL_OK) rc = bal_node_manager_open(reg, &m);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_adapt: %s\n", bal_strerror(rc));
    bal_pool_destroy(pool);
    bal_pool_destroy(plain);
    bal_node_registry_destroy(reg);
    return 1;
  }
  int64_t pid = (int64_t)getpid();
  double *steady2 = malloc(sizeof(double) * (size_t)reps), *steady1 = malloc(sizeof(double) * (size_t)reps);
  double *shrink = malloc(sizeof(double) * (size_t)reps), *grow = malloc(sizeof(double) * (size_t)reps);
  double *shrink_set = malloc(sizeof(double) * (size_t)reps), *grow_set = malloc(sizeof(double) * (size_t)reps);
  double *wake = malloc(sizeof(double) * (size_t)reps);
  double *unattached = malloc(sizeof(double) * (size_t)reps);
  double *wake_busy = malloc(sizeof(double) * (size_t)reps);
  if (!steady2 || !steady1 || !shrink || !grow || !shrink_set || !grow_set || !wake ||
      !wake_busy || !unattached)
    return 1;
  pthread_t wt;
  if (pthread_create(&wt, NULL, waiter, NULL) != 0) return 1;
  int64_t misses = 0, violations = 0, errors = 0, n = 0;
  int64_t shared = 0; /* grows where worker 0 started on worker 1's CPU */
  bool extra, miss;
  double dummy;
  loop(pool, 2, 0, NULL, &miss, &extra); /* first call: the attach's mask */
  for (int64_t r = 0; r < reps; r++, n++) {
    unattached[n] = loop(plain, 2, 0, NULL, &miss, &extra);
    steady2[n] = loop(pool, 2, 0, NULL, &miss, &extra);
    int64_t ts = bench_now_ns();
    errors += bal_node_manager_set(m, pid, &one, 0) != BAL_OK;
    shrink[n] = loop(pool, 1, ts, &shrink_set[n], &miss, &extra);
    misses += miss;
    violations += extra;
    steady1[n] = loop(pool, 1, 0, &dummy, &miss, &extra);
    violations += extra;
    ts = bench_now_ns();
    errors += bal_node_manager_set(m, pid, &two, 0) != BAL_OK;
    grow[n] = loop(pool, 2, ts, &grow_set[n], &miss, &extra);
    misses += miss;
    shared += !miss && atomic_load(&first_cpu[0]) == atomic_load(&first_cpu[1]);
    wake[n] = wake_once(0);
    wake_busy[n] = wake_once(2);
  }
  printf("attached pool on %s CPUs, manager sets 2 -> 1 -> 2 CPUs, %lld repetitions\n",
         virt ? "2 virtual" : "real", (long long)reps);
  report("shrink to {0}: entry -> worker 0 runs", shrink, n, steady1);
  report("grow to {0,1}: entry -> both run", grow, n, steady2);
  report("unattached pool, same loop: both run", unattached, n, NULL);
  report("baseline: condvar signal -> thread runs", wake, n, NULL);
  report("  the same, thread computed 2 ms before", wake_busy, n, NULL);
  report("shrink: set() call -> worker 0 runs", shrink_set, n, NULL);
  report("grow: set() call -> both run", grow_set, n, NULL);
  if (!virt)
    printf("  grows where worker 0 (bound to the whole mask) started on worker 1's CPU: %lld\n",
           (long long)shared);
  printf("  misses (a worker of the new mask ran no item: counted at the loop's end) %lld,\n"
         "  violations (a parked worker ran) "
         "%lld, set errors %lld\n",
         (long long)misses, (long long)violations, (long long)errors);
  bench_print_load();
  pthread_mutex_lock(&wlock);
  wround = -1;
  pthread_cond_signal(&wcond);
  pthread_mutex_unlock(&wlock);
  pthread_join(wt, NULL);
  free(wake);
  free(wake_busy);
  bal_node_manager_close(m);
  bal_pool_destroy(pool);
  bal_pool_destroy(plain);
  bal_node_registry_destroy(reg);
  free(unattached);
  free(steady2);
  free(steady1);
  free(shrink);
  free(grow);
  free(shrink_set);
  free(grow_set);
  return violations || errors ? 1 : 0;
}
