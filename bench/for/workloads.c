#include "workloads.h"

#include "core/rng.h"

#include <math.h>
#include <string.h>

static const char *const names[WL_COUNT] = {"uniform", "ramp", "bump", "exp", "heavy"};

const char *workload_name(workload_id w) { return (unsigned)w < WL_COUNT ? names[w] : "?"; }

bool workload_parse(const char *name, workload_id *out) {
  for (int w = 0; w < WL_COUNT; w++)
    if (!strcmp(name, names[w])) {
      *out = (workload_id)w;
      return true;
    }
  return false;
}


/* Gaussian bump b + a*g(x), x = item position in [-0.5, 0.5), sigma 0.025:
 * b and a are solved so that the mean is 1 and the central n/10 items carry
 * exactly 70% of the total; then b ~ 0.3 (>= the floor) and the peak ~ 11. */
static void bump(int64_t n, double *s) {
  const double sigma = 0.025;
  int64_t nin = n / 10, c0 = (n - nin) / 2;
  double gall = 0, gin = 0;
  for (int64_t i = 0; i < n; i++) {
    double x = ((double)i + 0.5) / (double)n - 0.5;
    s[i] = exp(-x * x / (2 * sigma * sigma));
    gall += s[i];
    if (i >= c0 && i < c0 + nin) gin += s[i];
  }
  /* b*n + a*gall = n;  b*nin + a*gin = 0.7*n */
  double det = (double)n * gin - (double)nin * gall;
  double b = ((double)n * gin - 0.7 * (double)n * gall) / det;
  double a = ((double)n * 0.7 * (double)n - (double)nin * (double)n) / det;
  for (int64_t i = 0; i < n; i++) s[i] = b + a * s[i];
}

void workload_shape(workload_id w, int64_t n, uint64_t seed, double *s) {
  switch (w) {
  case WL_UNIFORM:
  case WL_COUNT:
    for (int64_t i = 0; i < n; i++) s[i] = 1.0;
    break;
  case WL_RAMP:
    for (int64_t i = 0; i < n; i++)
      s[i] = WORKLOAD_FLOOR + 2 * (1 - WORKLOAD_FLOOR) * ((double)i + 0.5) / (double)n;
    break;
  case WL_BUMP:
    bump(n, s);
    break;
  case WL_EXP: {
    uint64_t st = seed;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
      double u = (double)(bal__splitmix64(&st) >> 11) * 0x1.0p-53; /* [0, 1) */
      s[i] = -log1p(-u);
      sum += s[i];
    }
    for (int64_t i = 0; i < n; i++)
      s[i] = WORKLOAD_FLOOR + (1 - WORKLOAD_FLOOR) * s[i] * (double)n / sum;
    break;
  }
  case WL_HEAVY:
    /* Item 0: a heavy item can only finish by the ideal time if it starts
     * at once, and the first item is the one every schedule starts with. */
    s[0] = (double)n / 2;
    for (int64_t i = 1; i < n; i++) s[i] = (double)n / 2 / (double)(n - 1);
    break;
  }
}
