#include "kernels.h"

#include "core/clock.h"

#include <stdlib.h>

/* Many short trials: on shared cores, some of them run undisturbed (a
 * scheduler time slice is a few ms). */
#define CALIBRATION_TRIALS 41

/* Written to so that calibration results stay observable. */
static volatile uint64_t sink;

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

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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
