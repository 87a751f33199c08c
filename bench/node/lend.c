/* bench_node_lend: the cost of bal_node_lend() + bal_node_reclaim(), the
 * pair a process runs around every blocking MPI call with BALLAST_LEND=1,
 * when nothing died (docs/BENCHMARKS.md, "node"). One process attached to
 * a registry of N + 1 virtual CPUs, holding N of them, lends and reclaims
 * them in batches of 1,000 pairs: first with no borrower, then (after a
 * forked child holding the last CPU has borrowed all N once) with that one
 * borrower to tell at every reclaim (N = BAL_NODE_MAX_CPUS leaves no CPU
 * for the child: the registry has N CPUs and the second pass is skipped). Interleaved in each repetition, the
 * same loop calling bal_node_poll() twice when nothing changed (a same-run
 * baseline: the cheapest registry call), and a batch of 20
 * bal_node_manager_set() calls with the mask the process has (the locked
 * path with its search for dead processes, what lending must not cost).
 * Figures: medians over the repetitions of ns per call or pair.
 *
 * Usage: bench_node_lend [REPS] [NCPUS]   (default 500 repetitions, 16 CPUs) */
#include <ballast/ballast.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
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
  bool borrower = ncpus < BAL_NODE_MAX_CPUS;
  if (bench_node_registry(reg, sizeof reg, "lend", ncpus + borrower) != BAL_OK) return 1;
  bal_node_mask mine;
  bal_node_mask_zero(&mine);
  bal_node_mask_add(&mine, 0, ncpus - 1);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = reg;
  cfg.cpus = &mine;
  bal_node_proc *p;
  bal_node_manager *m;
  int rc = bal_node_attach(&cfg, &p);
  if (rc == BAL_OK) rc = bal_node_manager_open(reg, &m);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_lend: attach: %s\n", bal_strerror(rc));
    bal_node_registry_destroy(reg);
    return 1;
  }
  /* The borrower: attaches on the last CPU, borrows what the parent lends
   * once (told through `go`), then waits for the end (`done`). */
  int go[2], took[2], done[2];
  if (pipe(go) || pipe(took) || pipe(done)) return 1;
  pid_t child = borrower ? fork() : 0;
  if (borrower && child < 0) return 1;
  if (borrower && child == 0) {
    bal_node_attach_config cc;
    bal_node_attach_config_init(&cc);
    cc.registry = reg;
    bal_node_proc *q;
    char x = 0;
    if (bal_node_attach(&cc, &q) != BAL_OK || read(go[0], &x, 1) != 1) _exit(1);
    bal_node_mask got;
    bal_node_poll(q, &got, NULL);
    x = (char)(bal_node_mask_count(&got) == ncpus + 1);
    if (write(took[1], &x, 1) != 1 || read(done[0], &x, 1) < 0) _exit(1);
    bal_node_detach(q);
    _exit(0);
  }
  bool changed;
  bal_node_poll(p, NULL, &changed); /* the first poll reports the attach */
  double *lend_ns = malloc(sizeof(double) * (size_t)reps);
  double *borrowed_ns = malloc(sizeof(double) * (size_t)reps);
  double *base_ns = malloc(sizeof(double) * (size_t)reps);
  double *set_ns = malloc(sizeof(double) * (size_t)reps);
  if (!lend_ns || !borrowed_ns || !base_ns || !set_ns) return 1;
  int64_t bad = 0;
  /* Two passes: without a borrower, then with one. The borrower stays in
   * the lender's borrowers set (it never polls again), so every reclaim of
   * the second pass bumps its gen: the cost of telling one borrower. */
  for (int pass = 0; pass < 1 + borrower; pass++) {
    if (pass == 1) { /* lend once, let the child borrow everything, reclaim */
      char x = 0;
      bad += bal_node_lend(p) != ncpus;
      if (write(go[1], &x, 1) != 1 || read(took[0], &x, 1) != 1 || x != 1) bad++;
      bad += bal_node_reclaim(p) != ncpus;
    }
    double *pair_ns = pass == 0 ? lend_ns : borrowed_ns;
    for (int64_t r = 0; r < reps; r++) {
      bal_node_poll(p, NULL, &changed); /* take the gen the pairs moved: the baseline stays a fast path */
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
      for (int i = 0; i < SETS; i++) bad += bal_node_manager_set(m, getpid(), &mine, 0) != BAL_OK;
      int64_t t3 = bench_now_ns();
      if (pass == 0) {
        base_ns[r] = (double)(t1 - t0) / BATCH;
        set_ns[r] = (double)(t3 - t2) / SETS;
      }
      pair_ns[r] = (double)(t2 - t1) / BATCH;
    }
  }
  if (borrower) {
    char x = 0;
    if (write(done[1], &x, 1) != 1) bad++;
    int st;
    waitpid(child, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) bad++;
  }
  bal_node_manager_close(m);
  bal_node_detach(p);
  bal_node_registry_destroy(reg);
  if (bad) {
    fprintf(stderr, "bench_node_lend: %lld calls failed or lent a wrong count\n", (long long)bad);
    return 1;
  }
  double lend = bench_median(lend_ns, reps), borrowed = borrower ? bench_median(borrowed_ns, reps) : 0,
         base = bench_median(base_ns, reps), set = bench_median(set_ns, reps);
  printf("bal_node_lend + bal_node_reclaim, nothing died: median of %lld x %d pairs, "
         "%lld virtual CPUs, all lent\n", (long long)reps, BATCH, (long long)ncpus);
  printf("  lend + reclaim              %9.1f ns per pair\n", lend);
  if (borrower) printf("  ... with one borrower       %9.1f ns per pair\n", borrowed);
  else printf("  ... with one borrower             n/a (no CPU left for it)\n");
  printf("  baseline: 2 x poll          %9.1f ns\n", base);
  printf("  bal_node_manager_set        %9.1f ns per call (x %d per repetition)\n", set, SETS);
  bench_print_load();
  free(lend_ns);
  free(borrowed_ns);
  free(base_ns);
  free(set_ns);
  return 0;
}
