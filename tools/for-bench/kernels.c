#include "kernels.h"

#include "core/clock.h"
#include "stats.h"

#include <ballast/for.h>

#include <stdlib.h>

/* Many short trials: on shared cores, some of them run undisturbed (a
 * scheduler time slice is a few ms). */
#define CALIBRATION_TRIALS 41

/* Written to so that calibration results stay observable. */
static volatile uint64_t sink;

__attribute__((noinline)) uint64_t kernel_spin(uint64_t x, uint64_t iters) {
  for (uint64_t k = 0; k < iters; k++)
    x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return x;
}

double kernel_calibrate_spin(void) {
  const uint64_t iters = UINT64_C(1) << 18; /* ~0.5 ms per trial */
  double best = 0;
  uint64_t x = 1;
  for (int t = 0; t < CALIBRATION_TRIALS; t++) {
    double t0 = bal__now_s();
    x = kernel_spin(x, iters);
    double dt = bal__now_s() - t0;
    double rate = (double)iters / (dt * 1e9);
    if (rate > best) best = rate;
  }
  sink = x;
  return best;
}

/* Sustained: what the pool's P threads spin at together, in bursts of
 * SUSTAINED_BURST_NS, which include the timer ticks and the other exits
 * from the guest that a burst of 0.35 ms usually misses (on this project's
 * KVM guests the two differ by 2-4%: docs/BENCHMARKS.md, "The spin
 * calibration on this host"). The median of a group's bursts is the rate;
 * the best group's median is returned, so that another tenant running
 * through one group does not lower it. */
#define SUSTAINED_GROUPS 5
#define SUSTAINED_ROUNDS 5
#define SUSTAINED_BURST_NS 2000000.0

typedef struct {
  uint64_t iters;
  double *rate; /* one per index of the round */
} sustained_round;

static void sustained_body(int64_t lo, int64_t hi, void *arg) {
  sustained_round *r = arg;
  for (int64_t i = lo; i < hi; i++) {
    double t0 = bal__now_s();
    sink = kernel_spin(sink ^ (uint64_t)i, r->iters);
    r->rate[i] = (double)r->iters / ((bal__now_s() - t0) * 1e9);
  }
}

double kernel_calibrate_spin_sustained(bal_pool *pool, double guess) {
  int P = bal_pool_size(pool);
  int per_group = SUSTAINED_ROUNDS * P;
  double *v = malloc(sizeof *v * (size_t)per_group);
  if (!v) return guess;
  sustained_round r = {.iters = (uint64_t)(SUSTAINED_BURST_NS * guess)};
  double best = 0;
  for (int g = 0; g < SUSTAINED_GROUPS; g++) {
    for (int k = 0; k < SUSTAINED_ROUNDS; k++) {
      r.rate = &v[k * P];
      bal_for(pool, 0, P, 1, sustained_body, &r);
    }
    double m = bench_median(v, per_group);
    if (m > best) best = m;
  }
  free(v);
  return best > 0 ? best : guess;
}

double kernel_calibrate_tiny(void) {
  const int64_t n = INT64_C(1) << 18;
  double best = 1e30;
  uint64_t x = 1;
  for (int t = 0; t < CALIBRATION_TRIALS; t++) {
    double t0 = bal__now_s();
    for (int64_t i = 0; i < n; i++) x = kernel_tiny(x, i);
    double dt = bal__now_s() - t0;
    double per = dt * 1e9 / (double)n;
    if (per < best) best = per;
  }
  sink = x;
  return best;
}

double kernel_sleep_overshoot_ns(int64_t ns) {
  double v[21];
  for (int t = 0; t < 21; t++) {
    double t0 = bal__now_s();
    kernel_sleep(0, ns);
    v[t] = (bal__now_s() - t0) * 1e9 - (double)ns;
  }
  return bench_median(v, 21);
}
