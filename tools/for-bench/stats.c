/* Statistics over rounds (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The row with the highest median (the fastest baseline) over the rounds
 * of one parity. */
static int fastest_on(const double *const *rows, int nrows, int reps, int parity, double *scratch) {
  int best = 0;
  double best_m = 0;
  for (int b = 0; b < nrows; b++) {
    int n = 0;
    for (int r = parity; r < reps; r += 2) scratch[n++] = rows[b][r];
    double m = bench_median(scratch, n);
    if (b == 0 || m > best_m) best = b, best_m = m;
  }
  return best;
}

double bench_heldout_ratio(const double *const *rows, int nrows, int reps, int *picked_even,
                           int *picked_odd) {
  if (reps < 2 || nrows < 1) return NAN;
  double *v = malloc((size_t)reps * sizeof *v);
  if (!v) return NAN;
  /* Even rounds against the pick of the odd ones, and the other way. */
  int pick[2] = {fastest_on(rows, nrows, reps, 1, v), fastest_on(rows, nrows, reps, 0, v)};
  for (int r = 0; r < reps; r++) v[r] = rows[pick[r % 2]][r];
  double m = bench_median(v, reps);
  free(v);
  if (picked_even) *picked_even = pick[0];
  if (picked_odd) *picked_odd = pick[1];
  return m;
}
