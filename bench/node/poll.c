/* bench_node_poll: the cost of bal_node_poll() when nothing changed, the
 * check a malleable program makes at every malleability point. One process
 * attached to a registry of 16 virtual CPUs polls in batches of 1,000
 * calls; each repetition times a batch of polls and, interleaved, a batch
 * of the same loop calling a function that only copies a mask (the
 * baseline: what any "give me the current mask" call costs at least). The
 * figures are medians over the repetitions of ns per call.
 *
 * Usage: bench_node_poll [REPS]   (default 1000 repetitions) */
#include <ballast/ballast.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_node.h"

enum { BATCH = 1000 };

/* The baseline: a call that copies the mask and clears the flag, as
 * bal_node_poll() does when nothing changed, without reading the
 * generation counter (a pread() since the truncation check, node.h). */
__attribute__((noinline)) static int copy_mask(const bal_node_mask *src, bal_node_mask *mask,
                                               bool *changed) {
  *mask = *src;
  *changed = false;
  return BAL_OK;
}

int main(int argc, char **argv) {
  int64_t reps = bench_reps(argc, argv, 1000, "bench_node_poll");
  if (reps < 0) return 2;
  char reg[64];
  if (bench_node_registry(reg, sizeof reg, "poll", 16) != BAL_OK) return 1;
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = reg;
  bal_node_proc *p;
  int rc = bal_node_attach(&cfg, &p);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_poll: attach: %s\n", bal_strerror(rc));
    bal_node_registry_destroy(reg);
    return 1;
  }
  bal_node_mask mask, src;
  bool changed;
  bal_node_poll(p, &src, &changed); /* the first poll reports the attach */
  double *poll_ns = malloc(sizeof(double) * (size_t)reps);
  double *null_ns = malloc(sizeof(double) * (size_t)reps);
  double *base_ns = malloc(sizeof(double) * (size_t)reps);
  if (!poll_ns || !null_ns || !base_ns) return 1;
  int64_t bad = 0;
  for (int64_t r = 0; r < reps; r++) {
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < BATCH; i++) bad += copy_mask(&src, &mask, &changed) != BAL_OK || changed;
    int64_t t1 = bench_now_ns();
    for (int i = 0; i < BATCH; i++) bad += bal_node_poll(p, &mask, &changed) != BAL_OK || changed;
    int64_t t2 = bench_now_ns();
    for (int i = 0; i < BATCH; i++) bad += bal_node_poll(p, NULL, &changed) != BAL_OK || changed;
    int64_t t3 = bench_now_ns();
    base_ns[r] = (double)(t1 - t0) / BATCH;
    poll_ns[r] = (double)(t2 - t1) / BATCH;
    null_ns[r] = (double)(t3 - t2) / BATCH;
  }
  bal_node_detach(p);
  bal_node_registry_destroy(reg);
  if (bad) {
    fprintf(stderr, "bench_node_poll: %lld polls failed or reported a change\n", (long long)bad);
    return 1;
  }
  double poll = bench_median(poll_ns, reps), pnull = bench_median(null_ns, reps),
         base = bench_median(base_ns, reps);
  printf("bal_node_poll, nothing changed: median of %lld x %d calls, 16 virtual CPUs\n",
         (long long)reps, BATCH);
  printf("  poll(mask, changed)   %8.1f ns\n", poll);
  printf("  poll(NULL, changed)   %8.1f ns\n", pnull);
  printf("  baseline: mask copy   %8.1f ns   (poll / baseline = %.2f)\n", base, poll / base);
  bench_print_load();
  free(poll_ns);
  free(null_ns);
  free(base_ns);
  return 0;
}
