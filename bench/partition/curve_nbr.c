/* What the spatial neighbour lists of the curve methods cost: the time of
 * bal_partition_compute() with a result handle (regions, neighbours)
 * against the same call without one (owners only: no neighbour lists), in
 * the same run, median of the repetitions, for "hilbert" and "morton".
 * Items uniformly random in the unit box, weights 1 + x. Times are the
 * process's CPU time (the calls are single-threaded), which other load on
 * a shared machine disturbs less than the wall clock.
 *
 *   bench_partition_curve_nbr DIM N PARTS REPS
 *
 * docs/BENCHMARKS.md, "partition: neighbours of curve pieces". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <ballast/partition.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, by_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static int parse(const char *s, long lo, long hi, long *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  long dim, n, parts, reps;
  if (argc != 5 || parse(argv[1], 2, 3, &dim) || parse(argv[2], 1, 100000000, &n) ||
      parse(argv[3], 1, BAL_PARTITION_MAX_PARTS, &parts) || parse(argv[4], 1, 1000, &reps) ||
      parts > n) {
    fprintf(stderr, "usage: %s DIM(2|3) N PARTS(<= N) REPS\n", argv[0]);
    return 2;
  }
  double *coords = malloc((size_t)(n * dim) * sizeof *coords);
  double *w = malloc((size_t)n * sizeof *w);
  int *part = malloc((size_t)n * sizeof *part);
  double *t_bare = malloc((size_t)reps * sizeof *t_bare);
  double *t_full = malloc((size_t)reps * sizeof *t_full);
  if (!coords || !w || !part || !t_bare || !t_full) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 1;
  }
  uint64_t x = 0x9e3779b97f4a7c15ull; /* xorshift64: the same items in every run */
  for (long i = 0; i < n * dim; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    coords[i] = (double)(x >> 11) * 0x1.0p-53;
  }
  for (long i = 0; i < n; i++) w[i] = 1.0 + coords[i * dim];
  printf("# dim %ld, n %ld, P %ld, %ld repetitions; CPU seconds, medians\n", dim, n, parts, reps);
  printf("%-8s %12s %12s %8s %8s %8s\n", "method", "owners_s", "result_s", "ratio", "nbr_avg",
         "nbr_max");
  const char *methods[] = {"hilbert", "morton"};
  for (int m = 0; m < 2; m++) {
    bal_partition_config cfg;
    bal_partition_config_init(&cfg);
    cfg.method = methods[m];
    cfg.parts = (int)parts;
    bal_partition_input in = {(int)dim, {0, 0, 0}, {1, 1, 1}, n, coords, w, NULL};
    int64_t sum = 0;
    int most = 0;
    for (long r = 0; r < reps; r++) {
      /* alternate the two so that drifts of a shared machine hit both */
      double t0 = now();
      int rc = bal_partition_compute(&in, &cfg, NULL, part, NULL);
      double t1 = now();
      bal_partition_result *res = NULL;
      if (rc == BAL_OK) rc = bal_partition_compute(&in, &cfg, NULL, part, &res);
      double t2 = now();
      if (rc != BAL_OK) {
        fprintf(stderr, "%s: %s: %s\n", argv[0], methods[m], bal_strerror(rc));
        return 1;
      }
      t_bare[r] = t1 - t0;
      t_full[r] = t2 - t1;
      sum = 0;
      most = 0;
      for (int k = 0; k < parts; k++) {
        int c = bal_partition_neighbors(res, k, NULL);
        sum += c;
        if (c > most) most = c;
      }
      bal_partition_result_destroy(res);
    }
    double b = median(t_bare, (int)reps), f = median(t_full, (int)reps);
    printf("%-8s %12.4f %12.4f %8.3f %8.2f %8d\n", methods[m], b, f, f / b,
           (double)sum / (double)parts, most);
  }
  free(coords);
  free(w);
  free(part);
  free(t_bare);
  free(t_full);
  return 0;
}
