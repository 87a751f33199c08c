/* DLB_Bench workload generation (see workload.h). */
#include "workload.h"

#include "core/rng.h"

#include <ballast/steal.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A stateless hash of x: one SplitMix64 step from state x. */
static uint64_t mix(uint64_t x) { return bal__splitmix64(&x); }
static double unit(uint64_t x) { return (double)(mix(x) >> 11) * 0x1.0p-53; }

const char *const dlb_dist_names[] = {"gaussian", "uniform", "single", "random", NULL};

const char *dlb_dist_name(dlb_dist d) { return dlb_dist_names[d]; }

double dlb_unit(uint64_t seed, uint64_t i) { return unit(seed * 0x9E3779B97F4A7C15ull + i + 0xE57); }

/* A rank's remainder after the floor of its exact share. */
typedef struct rem {
  double frac;
  int rank;
} rem;

/* Larger remainder first, then lower rank: a total order, so the result
 * does not depend on qsort's algorithm. */
static int by_rem_desc(const void *a, const void *b) {
  const rem *x = a, *y = b;
  if (x->frac != y->frac) return x->frac > y->frac ? -1 : 1;
  return (x->rank > y->rank) - (x->rank < y->rank);
}

void dlb_counts(const dlb_params *prm, int p, int iter, long long *counts) {
  double *w = malloc((size_t)p * sizeof *w);
  double total_w = 0;
  double shift = fmod((double)iter * prm->drift, 10.0);
  for (int r = 0; r < p; r++) {
    /* Where rank r's point was in iteration 0: the distribution moved by
     * `shift` since, so rank r now holds what that point held. */
    double x = 10.0 * (r + 0.5) / p - shift;
    if (x < 0) x += 10.0;
    int r0 = (int)(x * p / 10.0);
    if (r0 >= p) r0 = p - 1;
    switch (prm->dist) {
    /* μ = 5, σ = 0.5 over x in [0, 10): ranks within ±1σ (10% of them)
     * hold ~68% of the tasks. */
    case DIST_GAUSSIAN: w[r] = exp(-0.5 * (x - 5.0) * (x - 5.0) / 0.25); break;
    case DIST_UNIFORM: w[r] = 1.0; break;
    case DIST_SINGLE: w[r] = r0 == 0; break;
    case DIST_RANDOM: w[r] = unit(prm->seed * 0x100000001B3ull + (uint64_t)r0); break;
    }
    total_w += w[r];
  }
  if (total_w <= 0) {
    for (int r = 0; r < p; r++) w[r] = 1.0;
    total_w = p;
  }
  long long total = llround(prm->tasks_per_rank * p), given = 0;
  rem *by_rem = malloc((size_t)p * sizeof *by_rem);
  for (int r = 0; r < p; r++) {
    double exact = (double)total * w[r] / total_w;
    counts[r] = (long long)floor(exact);
    by_rem[r] = (rem){exact - (double)counts[r], r};
    given += counts[r];
  }
  /* Largest remainders get the leftover tasks (ties: lower rank). Sorted
   * once, O(p log p): picking the largest one leftover at a time was
   * O(p) per leftover task, up to p of them on each of p simulated ranks,
   * the bulk of a 3,584-rank simulation's setup. */
  if (given < total) qsort(by_rem, (size_t)p, sizeof *by_rem, by_rem_desc);
  for (int i = 0; given < total && i < p; i++, given++) counts[by_rem[i].rank]++;
  free(by_rem);
  free(w);
}

uint64_t dlb_first_gid(const long long *counts, int r) {
  uint64_t g = 0;
  for (int i = 0; i < r; i++) g += (uint64_t)counts[i];
  return g;
}

size_t dlb_input_len(const dlb_params *prm) {
  double per = prm->tasks_per_rank > 0 ? prm->bytes_per_rank / prm->tasks_per_rank : 0;
  size_t n = (size_t)per;
  return n < sizeof(dlb_task_hdr) ? sizeof(dlb_task_hdr) : n;
}

uint64_t dlb_checksum(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

size_t dlb_checked_len(size_t len) {
#ifdef BALLAST_SMPI
  /* Only this prefix of an input survives an SMPI build (ballast/steal.h). */
  return len < (size_t)BALLAST_SMPI_TASK_BYTES_KEPT ? len : (size_t)BALLAST_SMPI_TASK_BYTES_KEPT;
#else
  return len;
#endif
}

uint64_t dlb_make_input(const dlb_params *prm, int iter, uint64_t gid, unsigned char *buf,
                        size_t len) {
  len = dlb_checked_len(len);
  /* Iteration 0 keeps the key of the single-iteration benchmark, so its
   * published figures stay reproducible. */
  uint64_t key = prm->seed ^ mix(gid + 0x51ED + (uint64_t)iter * 0xD1B54A32D192ED03ull);
  double mean = prm->tasks_per_rank > 0 ? prm->work_per_rank / prm->tasks_per_rank : 0;
  dlb_task_hdr h = {gid, mean * (1.0 + prm->spread * (2.0 * unit(key) - 1.0))};
  memcpy(buf, &h, sizeof h);
  uint64_t x = mix(key + 1);
  for (size_t i = sizeof h; i < len; i++) {
    if ((i & 7) == 0) x = mix(x);
    buf[i] = (unsigned char)(x >> (8 * (i & 7)));
  }
  return dlb_checksum(buf, len);
}
