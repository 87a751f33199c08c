/* partition: what an incremental step moves. A Gaussian hotspot on a
 * smooth gradient over an nx x ny grid is moved by a fraction of the
 * domain along x; for each method and tolerance, the step from the
 * current owners (with the previous result for the box methods) is
 * compared with a fresh partition of the new field (no `from`, no REMAP),
 * both relative to the same current owners. The counts are deterministic,
 * so one run per case is the measurement (docs/BENCHMARKS.md, "partition:
 * incremental steps").
 *
 * usage: bench_partition_steps [NX NY P SHIFT]   (default 400 250 16 0.01)
 * prints one line per (hotspot position, method, tolerance): fresh and
 * incremental moves, their ratio, the step's imbalance and the fresh one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ballast/partition.h>

static void field(int64_t nx, int64_t ny, double cx, double cy, double *w) {
  for (int64_t i = 0; i < nx * ny; i++) {
    double x = ((double)(i % nx) + 0.5) / (double)nx, y = ((double)(i / nx) + 0.5) / (double)ny;
    double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
    w[i] = 1.0 + x + y + 20.0 * exp(-r2 / (2.0 * 0.08 * 0.08));
  }
}

static double imbalance(const int64_t *cells, int64_t n, const double *w, int p, const int *part) {
  bal_partition_quality q;
  if (bal_partition_grid_quality(2, cells, n, w, p, part, &q) != BAL_OK) return NAN;
  return q.imbalance;
}

int main(int argc, char **argv) {
  int64_t nx = argc > 1 ? atoll(argv[1]) : 400, ny = argc > 2 ? atoll(argv[2]) : 250;
  int p = argc > 3 ? atoi(argv[3]) : 16;
  double shift = argc > 4 ? atof(argv[4]) : 0.01;
  if (nx < 1 || ny < 1 || p < 1 || p > nx * ny || !(shift >= 0.0)) {
    fprintf(stderr, "bench_partition_steps: usage: bench_partition_steps [NX NY P SHIFT]\n");
    return 2;
  }
  const int64_t cells[3] = {nx, ny, 1}, n = nx * ny;
  double *xy = malloc((size_t)n * 2 * sizeof *xy), *w0 = malloc((size_t)n * sizeof *w0);
  double *w1 = malloc((size_t)n * sizeof *w1);
  int *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
  int *c = malloc((size_t)n * sizeof *c);
  if (!xy || !w0 || !w1 || !a || !b || !c) return 1;
  for (int64_t i = 0; i < n; i++) {
    xy[2 * i] = (double)(i % nx) + 0.5;
    xy[2 * i + 1] = (double)(i / nx) + 0.5;
  }
  const double pos[][2] = {{0.3, 0.4}, {0.6, 0.7}, {0.5, 0.5}, {0.2, 0.8}};
  const double tols[] = {0.0, 0.02, 0.03, 0.04, 0.05};
  printf("# %lld x %lld cells, P = %d, hotspot moved by %.3f of the domain along x\n",
         (long long)nx, (long long)ny, p, shift);
  printf("# cx   cy   method     tol   fresh_moves  step_moves  ratio  step_imb  fresh_imb\n");
  for (size_t h = 0; h < sizeof pos / sizeof pos[0]; h++) {
    field(nx, ny, pos[h][0], pos[h][1], w0);
    field(nx, ny, pos[h][0] + shift, pos[h][1], w1);
    for (int m = 0; bal_partition_method_name(m); m++) {
      for (size_t t = 0; t < sizeof tols / sizeof tols[0]; t++) {
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = bal_partition_method_name(m);
        cfg.parts = p;
        cfg.tolerance = tols[t];
        bal_partition_input in = {2, {0, 0, 0}, {(double)nx, (double)ny, 0}, n, xy, w0, NULL};
        bal_partition_result *r0 = NULL;
        int rc = bal_partition_compute(&in, &cfg, NULL, a, &r0);
        in.weights = w1;
        if (rc == BAL_OK) rc = bal_partition_compute(&in, &cfg, NULL, b, NULL);
        in.from = a;
        if (rc == BAL_OK) rc = bal_partition_compute(&in, &cfg, r0, c, NULL);
        bal_partition_result_destroy(r0);
        if (rc != BAL_OK) {
          fprintf(stderr, "bench_partition_steps: %s: %s\n", cfg.method, bal_strerror(rc));
          return 1;
        }
        int64_t fresh = 0, step = 0;
        bal_partition_moved(n, NULL, a, b, &fresh, NULL);
        bal_partition_moved(n, NULL, a, c, &step, NULL);
        printf("%.2f %.2f %-10s %.2f %12lld %11lld %6.3f %9.4f %10.4f\n", pos[h][0], pos[h][1],
               cfg.method, tols[t], (long long)fresh, (long long)step,
               fresh ? (double)step / (double)fresh : 0.0, imbalance(cells, n, w1, p, c),
               imbalance(cells, n, w1, p, b));
      }
    }
  }
  free(xy);
  free(w0);
  free(w1);
  free(a);
  free(b);
  free(c);
  return 0;
}
