/* Lending on real CPUs (issue 27's acceptance; docs/node.md, "Lending"):
 * a plain MPI + bal_for program that knows nothing of lending. 2 ranks,
 * each a 2-worker `for` pool; run with BALLAST_NODE=1 and
 * BALLAST_NODE_REGISTRY naming a registry of the machine's CPUs, each rank
 * bound to one CPU (mpiexec --map-by core --bind-to hwthread), so that
 * each attaches with that one CPU. Each iteration rank 0 spins through 3 units of work, rank
 * 1 through 1, then both meet in MPI_Barrier. Under libballast_pop.so with
 * BALLAST_LEND=1 (`ballast pop --lend`) rank 1 lends its CPU while it
 * waits in the barrier and rank 0's pool borrows it at its next poll, so
 * the iteration takes about 1 + 2/2 = 2 units instead of 3 (ideal: one
 * third less). tests/mpi/lend.sh runs it with and without lending.
 *
 * Modes:
 *   test_lend run ITERS        the ranks; rank 0 prints
 *                              "times_ms T1 ... Tn" (each iteration) and
 *                              "errors E rank0_worker1_indices X
 *                              rank0_worker1_iterations K" (E: indices
 *                              not run exactly once per loop, over both
 *                              ranks; X: indices rank 0's second worker
 *                              ran, which it can only do on a borrowed
 *                              CPU; K: iterations in which it ran any)
 *                              and "worker1_start_ms S1 ... Sn" (when rank
 *                              0's second worker first ran an index in
 *                              each iteration, from its start; -1: never;
 *                              near 0 when rank 0 borrowed at entry, as
 *                              rank 1 returned from the barrier)
 *   test_lend monitor NAME     a separate process checking registry NAME's
 *                              invariant in a loop until SIGTERM; prints
 *                              "checks N violations V lent_seen L
 *                              procs_max P" (L: checks that saw a lent
 *                              CPU; P: most processes attached at once),
 *                              exits 1 if V > 0 or nothing was checked
 * lend.sh skips (77) on fewer than 2 CPUs. */
#include <mpi.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "../unit/node_check.h"

enum { UNIT = 120, SPIN = 40000 }; /* indices per unit of work; xorshift steps per index */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct work {
  _Atomic int *runs; /* times each index ran */
  _Atomic uint64_t sink;
  _Atomic int64_t helped; /* indices run by worker 1 */
  double start_s;                 /* this iteration's start (rank 0) */
  _Atomic int64_t helper_start_ns; /* when worker 1 first ran an index in it, after start_s; 0: not yet */
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
    if (bal_worker_id() > 0) {
      atomic_fetch_add_explicit(&w->helped, 1, memory_order_relaxed);
      int64_t none = 0, at = (int64_t)(1e9 * (now_s() - w->start_s)) + 1;
      atomic_compare_exchange_strong(&w->helper_start_ns, &none, at);
    }
  }
}

static volatile sig_atomic_t g_stop;
static void on_term(int sig) {
  (void)sig;
  g_stop = 1;
}

static int monitor(const char *name) {
  signal(SIGTERM, on_term);
  bal_node_manager *m = NULL;
  int rc = bal_node_manager_open(name, &m);
  if (rc != BAL_OK) {
    fprintf(stderr, "test_lend monitor: open %s: %s\n", name, bal_strerror(rc));
    return 1;
  }
  long checks = 0, violations = 0, lent_seen = 0, procs_max = 0;
  while (!g_stop) {
    if (!node_invariant(m)) violations++;
    long procs = bal_node_manager_list(m, NULL, 0);
    if (procs > procs_max) procs_max = procs;
    bal_node_cpu_info cpu[BAL_NODE_MAX_CPUS];
    int nc = bal_node_manager_cpus(m, cpu, BAL_NODE_MAX_CPUS);
    int lent = 0;
    for (int c = 0; c < nc; c++) lent += cpu[c].lent;
    lent_seen += lent > 0;
    checks++;
    struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
  }
  bal_node_manager_close(m);
  printf("checks %ld violations %ld lent_seen %ld procs_max %ld\n", checks, violations, lent_seen,
         procs_max);
  return violations > 0 || checks == 0;
}

static int run(int iters) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "test_lend: needs exactly 2 ranks\n");
    return 2;
  }
  bal_pool *pool;
  int rc = bal_pool_create(2, &pool); /* attached: BALLAST_NODE=1 */
  if (rc != BAL_OK) {
    fprintf(stderr, "test_lend: rank %d: pool: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int64_t n = (rank == 0 ? 3 : 1) * UNIT;
  work w = {.runs = calloc((size_t)n, sizeof(_Atomic int))};
  double *t = calloc((size_t)iters, sizeof *t);
  double *helper_ms = calloc((size_t)iters, sizeof *helper_ms);
  int bad = 0, helped_iters = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int it = 0; it < iters; it++) {
    double t0 = now_s();
    w.start_s = t0;
    atomic_store(&w.helper_start_ns, 0);
    int64_t h0 = atomic_load(&w.helped);
    if (bal_for(pool, 0, n, 1, body, &w) != BAL_OK) bad++;
    helped_iters += atomic_load(&w.helped) > h0;
    int64_t hs = atomic_load(&w.helper_start_ns);
    helper_ms[it] = hs > 0 ? 1e-6 * (double)(hs - 1) : -1;
    MPI_Barrier(MPI_COMM_WORLD);
    t[it] = now_s() - t0;
  }
  for (int64_t i = 0; i < n; i++)
    if (atomic_load(&w.runs[i]) != iters) bad++;
  bal_pool_destroy(pool);
  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("times_ms");
    for (int it = 0; it < iters; it++) printf(" %.3f", 1e3 * t[it]);
    printf("\nerrors %d rank0_worker1_indices %lld rank0_worker1_iterations %d\n", all_bad,
           (long long)atomic_load(&w.helped), helped_iters);
    printf("worker1_start_ms");
    for (int it = 0; it < iters; it++) printf(" %.3f", helper_ms[it]);
    printf("\n");
  }
  free(t);
  free(helper_ms);
  free(w.runs);
  return all_bad ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "monitor") == 0) return monitor(argv[2]);
  if (argc != 3 || strcmp(argv[1], "run") != 0) {
    fprintf(stderr, "usage: test_lend run ITERS | test_lend monitor NAME\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rc = run(atoi(argv[2]));
  MPI_Finalize();
  return rc;
}
