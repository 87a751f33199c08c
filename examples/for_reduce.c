/* A parallel reduction with bal_for: sum f(i) over [0, n) where the cost of
 * f grows with i (a skewed loop). Each worker adds into its own padded slot,
 * indexed by bal_worker_id(), so the body needs no atomics.
 *
 * Build (installed Ballast):  cc for_reduce.c $(pkg-config --cflags --libs ballast)
 * Run:                        ./for_reduce [n]           */
#include <ballast/ballast.h>
#include <stdio.h>
#include <stdlib.h>

struct partial {
  _Alignas(64) double sum; /* one cache line per worker: no false sharing */
};

struct job {
  struct partial *partials;
};

/* Cost grows with i: item i does i % 2000 inner steps. */
static double f(int64_t i) {
  double x = 0.0;
  for (int64_t k = 0; k < i % 2000; k++) x += 1.0 / (double)(k + i + 1);
  return x;
}

static void body(int64_t begin, int64_t end, void *arg) {
  struct job *job = arg;
  double local = 0.0;
  for (int64_t i = begin; i < end; i++) local += f(i);
  job->partials[bal_worker_id()].sum += local;
}

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? strtoll(argv[1], NULL, 10) : 200000;
  bal_pool *pool;
  int rc = bal_pool_create(0, &pool); /* 0: BALLAST_NUM_THREADS or all CPUs */
  if (rc != BAL_OK) {
    fprintf(stderr, "bal_pool_create: %s\n", bal_strerror(rc));
    return 1;
  }
  int p = bal_pool_size(pool);
  struct job job = {calloc((size_t)p, sizeof(struct partial))};
  if (!job.partials) return 1;

  rc = bal_for(pool, 0, n, 0 /* automatic grain */, body, &job);
  if (rc != BAL_OK) {
    fprintf(stderr, "bal_for: %s\n", bal_strerror(rc));
    return 1;
  }
  double total = 0.0;
  for (int w = 0; w < p; w++) total += job.partials[w].sum;

  bal_for_stats st;
  bal_for_last_stats(pool, -1, &st);
  printf("sum = %.6f over %lld items on %d workers: %.3f s, %lld chunks, %lld steals\n", total,
         (long long)n, p, st.wall_seconds, (long long)st.chunks, (long long)st.steals_won);
  free(job.partials);
  bal_pool_destroy(pool);
  return 0;
}
