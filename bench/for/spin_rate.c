/* How fast for-bench's spin kernel really runs on this host, by burst
 * length (docs/BENCHMARKS.md, "The spin calibration on this host"): the
 * rate a spin-mode item sees decides how long it takes against what was
 * requested, and so whether the lower bound for-bench prints is reachable.
 * For each burst length (0.09 to 89 ms, 4x apart), ROUNDS timed bursts of
 * kernel_spin, the lengths interleaved round by round so that a disturbance
 * falls on all of them alike; with THREADS = 2 a second thread spins the
 * same bursts at the same time (both are timed). Prints per length the
 * best, median and mean rate in iterations/ns and, last, the two rates
 * of for-bench's calibration: the best of short bursts
 * (kernel_calibrate_spin) and the sustained rate of THREADS pool threads
 * that for-bench converts with (kernel_calibrate_spin_sustained).
 * Usage: bench_for_spin_rate [ROUNDS (default 15)] [THREADS 1|2 (default 1)] */
#include "kernels.h"
#include "stats.h"

#include "core/clock.h"

#include <ballast/for.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define LENGTHS 6
static const double burst_ms[LENGTHS] = {0.0875, 0.35, 1.4, 5.6, 22.4, 89.6};

static volatile uint64_t sink;

/* A second thread that spins the burst it is handed, for THREADS = 2. */
static atomic_llong partner_iters; /* > 0: spin this many; -1: quit */
static atomic_int partner_done;
static double partner_rate;

static double timed_burst(uint64_t iters) {
  double t0 = bal__now_s();
  sink = kernel_spin(sink, iters);
  return (double)iters / ((bal__now_s() - t0) * 1e9);
}

static void *partner(void *arg) {
  (void)arg;
  for (;;) {
    long long n;
    while ((n = atomic_load(&partner_iters)) == 0) {
    }
    if (n < 0) return NULL;
    partner_rate = timed_burst((uint64_t)n);
    atomic_store(&partner_iters, 0);
    atomic_store(&partner_done, 1);
  }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 15, threads = argc > 2 ? atoi(argv[2]) : 1;
  if (rounds < 1 || rounds > 1000 || (threads != 1 && threads != 2)) {
    fprintf(stderr, "usage: bench_for_spin_rate [ROUNDS 1..1000] [THREADS 1|2]\n");
    return 2;
  }
  double guess = kernel_calibrate_spin();
  pthread_t th;
  if (threads == 2 && pthread_create(&th, NULL, partner, NULL) != 0) {
    fprintf(stderr, "bench_for_spin_rate: cannot start the second thread\n");
    return 1;
  }
  int per_round = threads; /* samples per length per round */
  double *rate = malloc(sizeof *rate * (size_t)(LENGTHS * rounds * per_round));
  if (!rate) return 1;
  for (int r = 0; r < rounds; r++)
    for (int l = 0; l < LENGTHS; l++) {
      uint64_t iters = (uint64_t)(burst_ms[l] * 1e6 * guess);
      double *slot = &rate[(l * rounds + r) * per_round];
      if (threads == 2) {
        atomic_store(&partner_done, 0);
        atomic_store(&partner_iters, (long long)iters);
      }
      slot[0] = timed_burst(iters);
      if (threads == 2) {
        while (!atomic_load(&partner_done)) {
        }
        slot[1] = partner_rate;
      }
    }
  if (threads == 2) {
    atomic_store(&partner_iters, -1);
    pthread_join(th, NULL);
  }
  printf("%-10s %8s %8s %8s   (iterations/ns, %d rounds, %d thread%s)\n", "burst_ms", "best", "median",
         "mean", rounds, threads, threads > 1 ? "s" : "");
  for (int l = 0; l < LENGTHS; l++) {
    double *v = &rate[l * rounds * per_round];
    int n = rounds * per_round;
    double best = 0, sum = 0;
    for (int i = 0; i < n; i++) {
      best = v[i] > best ? v[i] : best;
      sum += v[i];
    }
    double mean = sum / n;
    printf("%-10.4g %8.4f %8.4f %8.4f\n", burst_ms[l], best, bench_median(v, n), mean);
  }
  printf("short bursts, best: %.4f (before the bursts), %.4f (after)\n", guess, kernel_calibrate_spin());
  bal_pool *pool;
  if (bal_pool_create(threads, &pool) == BAL_OK) {
    double short_best = kernel_calibrate_spin();
    printf("sustained, %d pool thread%s: %.4f (short bursts just before: %.4f)\n", threads,
           threads > 1 ? "s" : "", kernel_calibrate_spin_sustained(pool, short_best), short_best);
    bal_pool_destroy(pool);
  }
  free(rate);
  return 0;
}
