#include "workloads.h"

#include "core/rng.h"

#include <math.h>
#include <string.h>

static const char *const names[WL_COUNT] = {"uniform", "ramp", "bump", "exp",
                                                "heavy",   "mid",  "block", "lognorm"};

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

/* Uniform [0, 1) from the 53 high bits of a splitmix64 draw. */
static double uniform01(uint64_t *state) {
  return (double)(bal__splitmix64(state) >> 11) * 0x1.0p-53;
}

/* Rescale raw positive costs r[0..n) to WORKLOAD_FLOOR + (1 - WORKLOAD_FLOOR)
 * times their normalized value: mean 1, nothing below the floor. */
static void floor_and_normalize(int64_t n, double *r) {
  double sum = 0;
  for (int64_t i = 0; i < n; i++) sum += r[i];
  for (int64_t i = 0; i < n; i++)
    r[i] = WORKLOAD_FLOOR + (1 - WORKLOAD_FLOOR) * r[i] * (double)n / sum;
}

/* One heavy item holding `share` of the total at position `at` (a fraction
 * of the range); the others share the rest equally. */
static void one_heavy(int64_t n, double share, double at, double *s) {
  int64_t k = (int64_t)(at * (double)n);
  for (int64_t i = 0; i < n; i++) s[i] = (1 - share) * (double)n / (double)(n - 1);
  s[k] = share * (double)n;
}

void workload_shape(workload_id w, int64_t n, uint64_t seed, double mid_at, double mid_share,
                    double *s) {
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
    for (int64_t i = 0; i < n; i++) s[i] = -log1p(-uniform01(&st));
    floor_and_normalize(n, s);
    break;
  }
  case WL_HEAVY:
    /* Item 0: a heavy item can only finish by the ideal time if it starts
     * at once, and the first item is the one every schedule starts with. */
    s[0] = (double)n / 2;
    for (int64_t i = 1; i < n; i++) s[i] = (double)n / 2 / (double)(n - 1);
    break;
  case WL_MID:
    /* At its default place (40%, WORKLOAD_MID_AT) and P = 2 a contiguous
     * split per worker reaches it after 60% of the ideal time (it is 80%
     * into the first half), so it ends 10% late; a dynamic schedule reaches
     * it after 30% and finishes it in time. --heavy-at moves it,
     * --heavy-share sets its share. */
    one_heavy(n, mid_share, mid_at, s);
    break;
  case WL_BLOCK: {
    /* b items of cost 80 c and n - b of cost c, mean 1: the block holds 62%
     * of the work and the other items cost 0.39 (above the floor). */
    int64_t b = n / 50 > 0 ? n / 50 : 1, k0 = (int64_t)(0.60 * (double)n);
    double c = (double)n / ((double)(n - b) + 80.0 * (double)b);
    for (int64_t i = 0; i < n; i++) s[i] = i >= k0 && i < k0 + b ? 80 * c : c;
    break;
  }
  case WL_LOGNORM: {
    /* exp(2 Z), Z standard normal (Box-Muller), from its own stream of the
     * seed: a heavy tail (the largest of 10^5 items is ~10^3 times the
     * mean) scattered at random positions. */
    uint64_t st = seed ^ UINT64_C(0x6c6f676e6f726d00);
    for (int64_t i = 0; i < n; i++) {
      double u1 = 1 - uniform01(&st), u2 = uniform01(&st); /* u1 in (0, 1] */
      s[i] = exp(2.0 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
    }
    floor_and_normalize(n, s);
    break;
  }
}
}
