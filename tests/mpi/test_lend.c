/* Lending on real CPUs (issue 27's acceptance; docs/node.md, "Lending"):
 * 2 ranks, each a 2-worker `for` pool attached to a registry of the
 * machine's CPUs that gives each rank one CPU (CPU r). Each iteration rank
 * 0 spins through 3 units of work, rank 1 through 1, then both meet in
 * MPI_Barrier. With BALLAST_LEND=1, rank 1 lends its CPU while it waits
 * and rank 0's pool borrows it at its next poll, so the iteration takes
 * about 1 + 2/2 = 2 units instead of 3 (ideal: one third less).
 *
 * The program calls bal__pop_blocking_enter/exit around its MPI_Barrier
 * itself, as the PMPI wrappers do: once the PMPI library (issue 27,
 * "Measure") is merged, this program runs unmodified under it, with these
 * two calls removed.
 *
 * Modes:
 *   test_lend run NAME ITERS   the ranks (rank 0 creates and destroys the
 *                              registry NAME); odd iterations call
 *                              enter/exit around the barrier, even ones
 *                              do not; rank 0 prints "median_ms A
 *                              with_enter_exit_ms B lent_cpus_seen N
 *                              errors E rank0_worker1_indices X Y" (A:
 *                              even iterations, B: odd; X, Y: indices
 *                              rank 0's second worker ran in them)
 *   test_lend monitor NAME     a separate process checking the registry's
 *                              invariant in a loop until SIGTERM; prints
 *                              "checks N violations V", exits 1 if V > 0
 * Exit 77 (skipped) when fewer than 2 CPUs are usable. */
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "../unit/node_check.h"
#include "for/pool.h"
#include "pop/lend.h"

enum { UNIT = 120, SPIN = 40000 }; /* indices per unit of work; xorshift steps per index */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct work {
  _Atomic int *runs; /* times each index ran */
  _Atomic uint64_t sink;
  _Atomic int64_t helped; /* indices run by a worker other than the caller */
} work;

static void body(int64_t lo, int64_t hi, void *arg) {
  work *w = arg;
  for (int64_t i = lo; i < hi; i++) {
    uint64_t x = (uint64_t)i + 88172645463325252ull;
    for (int k = 0; k < SPIN; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    atomic_fetch_add_explicit(&w->sink, x, memory_order_relaxed);
    atomic_fetch_add_explicit(&w->runs[i], 1, memory_order_relaxed);
    if (bal__for_tls_worker_id > 0) atomic_fetch_add_explicit(&w->helped, 1, memory_order_relaxed);
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static volatile sig_atomic_t g_stop;
static void on_term(int sig) {
  (void)sig;
  g_stop = 1;
}

static int monitor(const char *name) {
  signal(SIGTERM, on_term);
  bal_node_manager *m = NULL;
  while (!g_stop && bal_node_manager_open(name, &m) != BAL_OK) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  long checks = 0, violations = 0;
  while (!g_stop && m) {
    /* The registry vanishes at the end of the run: stop then. */
    if (bal_node_manager_list(m, NULL, 0) < 0) break;
    if (!node_invariant(m)) violations++;
    checks++;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  if (m) bal_node_manager_close(m);
  printf("checks %ld violations %ld\n", checks, violations);
  return violations > 0 || checks == 0;
}

static int run(const char *name, int iters) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "test_lend: needs exactly 2 ranks\n");
    return 2;
  }
  int rc = BAL_OK;
  if (rank == 0) {
    bal_node_registry_config rcfg;
    bal_node_registry_config_init(&rcfg);
    rcfg.name = name; /* real CPUs */
    rc = bal_node_registry_create(&rcfg);
    if (rc != BAL_OK) fprintf(stderr, "test_lend: create %s: %s\n", name, bal_strerror(rc));
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != BAL_OK) return 1;
  bal_node_mask one;
  bal_node_mask_zero(&one);
  bal_node_mask_add(&one, rank, rank);
  bal_node_attach_config acfg;
  bal_node_attach_config_init(&acfg);
  acfg.registry = name;
  acfg.cpus = &one;
  acfg.job = rank + 1;
  bal_pool_config pcfg;
  bal_pool_config_init(&pcfg);
  pcfg.nthreads = 2;
  pcfg.node = &acfg;
  bal_pool *pool;
  rc = bal_pool_create_with(&pcfg, &pool);
  if (rc != BAL_OK) {
    fprintf(stderr, "test_lend: rank %d: pool: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  rc = bal__pop_lend_init(); /* after the pool: lending shares its attachment */
  if (rc != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  bal_node_manager *m;
  if (bal_node_manager_open(name, &m) != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  int64_t n = (rank == 0 ? 3 : 1) * UNIT;
  work w = {.runs = calloc((size_t)n, sizeof(_Atomic int))};
  double *t = calloc((size_t)iters, sizeof *t);
  int bad = 0, lent_seen = 0;
  long long helped[2] = {0, 0}; /* indices run by worker 1: without, with enter/exit */
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iters; it++) {
    double t0 = now_s();
    if (bal_for(pool, 0, n, 1, body, &w) != BAL_OK) bad++;
    /* Odd iterations lend, even ones do not: a same-run baseline,
     * interleaved, so the load of a shared machine weighs on both alike. */
    bool lend = it % 2 == 1;
    if (lend) bal__pop_blocking_enter(); /* the PMPI wrapper's call, until it is merged */
    MPI_Barrier(MPI_COMM_WORLD);
    if (lend) bal__pop_blocking_exit();
    t[it] = now_s() - t0;
    helped[lend] += atomic_exchange(&w.helped, 0);
    bal_node_cpu_info cpu[BAL_NODE_MAX_CPUS];
    int nc = bal_node_manager_cpus(m, cpu, BAL_NODE_MAX_CPUS);
    for (int c = 0; c < nc; c++) lent_seen += cpu[c].lent;
    if (!node_invariant(m)) bad++;
  }
  for (int64_t i = 0; i < n; i++)
    if (atomic_load(&w.runs[i]) != iters) bad++;
  bal_node_manager_close(m);
  bal_pool_destroy(pool);
  /* Medians of the iterations that did not call enter/exit and of those
   * that did (without BALLAST_LEND those are no-ops: the two agree). */
  int half = iters / 2;
  double *plain = calloc((size_t)half + 1, sizeof *plain), *lending = calloc((size_t)half + 1, sizeof *lending);
  for (int it = 0; it < 2 * half; it++) (it % 2 ? lending : plain)[it / 2] = t[it];
  qsort(plain, (size_t)half, sizeof *plain, cmp);
  qsort(lending, (size_t)half, sizeof *lending, cmp);
  int all_bad = 0, all_lent = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&lent_seen, &all_lent, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank detached (the pool) before the registry goes */
  if (rank == 0) {
    bal_node_registry_destroy(name);
    printf("median_ms %.2f with_enter_exit_ms %.2f lent_cpus_seen %d errors %d "
           "rank0_worker1_indices %lld %lld\n",
           1e3 * plain[half / 2], 1e3 * lending[half / 2], all_lent, all_bad, helped[0], helped[1]);
  }
  free(plain);
  free(lending);
  free(t);
  free(w.runs);
  return all_bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "monitor") == 0) return monitor(argv[2]);
  if (argc != 4 || strcmp(argv[1], "run") != 0) {
    fprintf(stderr, "usage: test_lend run NAME ITERS | test_lend monitor NAME\n");
    return 2;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2) return 77;
  MPI_Init(&argc, &argv);
  int rc = run(argv[2], atoi(argv[3]));
  MPI_Finalize();
  return rc;
}
