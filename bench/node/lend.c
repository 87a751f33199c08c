/* bench_node_lend: the cost of bal_node_lend() + bal_node_reclaim(), the
 * pair a process runs around every blocking MPI call with BALLAST_LEND=1,
 * when nothing died (docs/BENCHMARKS.md, "node"). One process attached to
 * a registry of N virtual CPUs, holding all of them, lends and reclaims
 * them in batches of 1,000 pairs; interleaved in each repetition, the same
 * loop calling bal_node_poll() twice when nothing changed (a same-run
 * baseline: the cheapest registry call), and a batch of 20
 * bal_node_manager_set() calls with the mask the process has (the locked
 * path with its search for dead processes, what lending must not cost).
 * Figures: medians over the repetitions of ns per call or pair.
 *
 * Usage: bench_node_lend [REPS] [NCPUS]   (default 500 repetitions, 16 CPUs) */
#include <ballast/ballast.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_node.h"

enum { BATCH = 1000, SETS = 20 };

int main(int argc, char **argv) {
  int64_t reps = argc > 1 ? atoll(argv[1]) : 500;
  int64_t ncpus = argc > 2 ? atoll(argv[2]) : 16;
  if (argc > 3 || reps < 1 || ncpus < 1 || ncpus > BAL_NODE_MAX_CPUS) {
    fprintf(stderr, "usage: bench_node_lend [REPS] [NCPUS]   (default 500 16; NCPUS 1 .. %d)\n",
            BAL_NODE_MAX_CPUS);
    return 2;
  }
  char reg[64];
  if (bench_node_registry(reg, sizeof reg, "lend", ncpus) != BAL_OK) return 1;
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = reg;
  bal_node_proc *p;
  bal_node_manager *m;
  int rc = bal_node_attach(&cfg, &p);
  if (rc == BAL_OK) rc = bal_node_manager_open(reg, &m);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_lend: attach: %s\n", bal_strerror(rc));
    bal_node_registry_destroy(reg);
    return 1;
  }
  bal_node_mask mask;
  bool changed;
  bal_node_poll(p, &mask, &changed); /* the first poll reports the attach */
  double *lend_ns = malloc(sizeof(double) * (size_t)reps);
  double *base_ns = malloc(sizeof(double) * (size_t)reps);
  double *set_ns = malloc(sizeof(double) * (size_t)reps);
  if (!lend_ns || !base_ns || !set_ns) return 1;
  int64_t bad = 0;
  for (int64_t r = 0; r < reps; r++) {
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < BATCH; i++) {
      bad += bal_node_poll(p, NULL, &changed) != BAL_OK || changed;
      bad += bal_node_poll(p, NULL, &changed) != BAL_OK || changed;
    }
    int64_t t1 = bench_now_ns();
    for (int i = 0; i < BATCH; i++) {
      bad += bal_node_lend(p) != ncpus;
      bad += bal_node_reclaim(p) != ncpus;
    }
    int64_t t2 = bench_now_ns();
    for (int i = 0; i < SETS; i++) bad += bal_node_manager_set(m, getpid(), &mask, 0) != BAL_OK;
    int64_t t3 = bench_now_ns();
    bal_node_poll(p, NULL, &changed); /* take the gen the pairs moved: the baseline stays a fast path */
    base_ns[r] = (double)(t1 - t0) / BATCH;
    lend_ns[r] = (double)(t2 - t1) / BATCH;
    set_ns[r] = (double)(t3 - t2) / SETS;
  }
  bal_node_manager_close(m);
  bal_node_detach(p);
  bal_node_registry_destroy(reg);
  if (bad) {
    fprintf(stderr, "bench_node_lend: %lld calls failed or lent a wrong count\n", (long long)bad);
    return 1;
  }
  double lend = bench_median(lend_ns, reps), base = bench_median(base_ns, reps),
         set = bench_median(set_ns, reps);
  printf("bal_node_lend + bal_node_reclaim, nothing died: median of %lld x %d pairs, "
         "%lld virtual CPUs, all lent\n", (long long)reps, BATCH, (long long)ncpus);
  printf("  lend + reclaim              %9.1f ns per pair\n", lend);
  printf("  baseline: 2 x poll          %9.1f ns\n", base);
  printf("  bal_node_manager_set        %9.1f ns per call (x %d per repetition)\n", set, SETS);
  bench_print_load();
  free(lend_ns);
  free(base_ns);
  free(set_ns);
  return 0;
}
