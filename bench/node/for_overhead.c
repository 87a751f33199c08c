/* bench_node_for: what attaching a pool to a node registry costs a short
 * bal_for() when the mask does not change. Three pools of 2 workers in one
 * process: one attached to a registry of 2 virtual CPUs (capacity 2, no
 * binding, so only the attachment differs) and two unattached. Each
 * repetition runs the same ~50 us loop (100 items of calibrated arithmetic,
 * grain automatic) once on each pool, in a rotating order, and times each
 * call. Reported: the medians of the times, and the median over the
 * repetitions of the attached/unattached ratio within each (against each
 * unattached pool), and of the same ratio between the two unattached
 * pools (the method's noise floor, a same-run baseline: on this shared
 * machine one pool's threads are at times placed worse than another's
 * for a whole run).
 *
 * Usage: bench_node_for [REPS]   (default 5000) */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_node.h"

enum { ITEMS = 100 };

static volatile uint64_t sink;
static uint64_t item_steps = 1000;

static void body(int64_t b, int64_t e, void *arg) {
  (void)arg;
  uint64_t x = 0;
  for (int64_t i = b; i < e; i++) x += bench_spin(item_steps, (uint64_t)i + 1);
  sink = x;
}

static double time_call(bal_pool *p) {
  int64_t t0 = bench_now_ns();
  bal_for(p, 0, ITEMS, 0, body, NULL);
  return (double)(bench_now_ns() - t0) * 1e-3;
}

int main(int argc, char **argv) {
  int64_t reps = bench_reps(argc, argv, 5000, "bench_node_for");
  if (reps < 0) return 2;
  unsetenv("BALLAST_NODE"); /* the unattached pools stay unattached */
  char reg[64];
  if (bench_node_registry(reg, sizeof reg, "for", 2) != BAL_OK) return 1;
  bal_node_attach_config ac;
  bal_node_attach_config_init(&ac);
  ac.registry = reg;
  bal_pool_config pc;
  bal_pool_config_init(&pc);
  pc.nthreads = 2;
  bal_pool *pool[3] = {NULL, NULL, NULL}; /* attached, unattached, unattached */
  int rc = bal_pool_create_with(&pc, &pool[1]);
  if (rc == BAL_OK) rc = bal_pool_create_with(&pc, &pool[2]);
  pc.node = &ac;
  if (rc == BAL_OK) rc = bal_pool_create_with(&pc, &pool[0]);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_for: pools: %s\n", bal_strerror(rc));
    for (int k = 0; k < 3; k++) bal_pool_destroy(pool[k]);
    bal_node_registry_destroy(reg);
    return 1;
  }
  /* Calibrate the items so that a call on 2 workers takes about 50 us. */
  for (int round = 0; round < 20; round++) { /* halfway each time: calls have a fixed part */
    double t[51];
    for (int r = 0; r < 51; r++) t[r] = time_call(pool[1]);
    double med = bench_median(t, 51);
    if (med > 47.5 && med < 52.5) break;
    double f = 50.0 / (med > 1 ? med : 1);
    item_steps = (uint64_t)((double)item_steps * (1 + f) / 2);
    if (item_steps < 1) item_steps = 1;
  }
  double *us[3];
  for (int k = 0; k < 3; k++) us[k] = malloc(sizeof(double) * (size_t)reps);
  double *pair = malloc(sizeof(double) * (size_t)reps);
  if (!us[0] || !us[1] || !us[2] || !pair) return 1;
  for (int64_t r = 0; r < reps; r++)
    for (int k = 0; k < 3; k++) {
      int which = (int)((r + k) % 3); /* rotate who goes first */
      us[which][r] = time_call(pool[which]);
    }
  /* Paired ratios: under load whole repetitions slow down together (a
   * core taken away doubles every pool's time), which moves the medians of
   * the times but not the ratio within a repetition. */
  for (int64_t r = 0; r < reps; r++) pair[r] = us[0][r] / us[1][r];
  double pair_med = bench_median(pair, reps);
  for (int64_t r = 0; r < reps; r++) pair[r] = us[0][r] / us[2][r];
  double pair2_med = bench_median(pair, reps);
  for (int64_t r = 0; r < reps; r++) pair[r] = us[2][r] / us[1][r];
  double floor_med = bench_median(pair, reps);
  double a = bench_median(us[0], reps), u = bench_median(us[1], reps),
         u2 = bench_median(us[2], reps);
  printf("bal_for of %d items (~50 us on 2 workers), %lld repetitions, interleaved\n", ITEMS,
         (long long)reps);
  printf("  attached (2 virtual CPUs)   median %8.2f us\n", a);
  printf("  unattached                  median %8.2f us\n", u);
  printf("  unattached, second pool     median %8.2f us\n", u2);
  printf("  attached / unattached       %.4f  median of per-repetition ratios (of medians %.4f)\n",
         pair_med, a / u);
  printf("  attached / second pool      %.4f  (of medians %.4f)\n", pair2_med, a / u2);
  printf("  second pool / unattached    %.4f  the same between the two unattached pools: the\n"
         "                                      method's noise floor (of medians %.4f)\n",
         floor_med, u2 / u);
  bench_print_load();
  for (int k = 0; k < 3; k++) {
    bal_pool_destroy(pool[k]);
    free(us[k]);
  }
  free(pair);
  bal_node_registry_destroy(reg);
  return 0;
}
