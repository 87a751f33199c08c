/* The C side of bench/fortran/for_overhead.f90: the same trivial loop body
 * as the Fortran one, run by bal_for from C, and a monotonic clock. */
#include <ballast/for.h>
#include <stdint.h>
#include <time.h>

double bench_now(void);
int bench_c_for(bal_pool *pool, int64_t n, int64_t *partial);

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Adds the length of its range to the worker's padded slot (8 int64 apart),
 * exactly what the Fortran body does. */
static void body(int64_t lo, int64_t hi, void *arg) {
  int64_t *partial = arg;
  partial[8 * bal_worker_id()] += hi - lo;
}

int bench_c_for(bal_pool *pool, int64_t n, int64_t *partial) {
  return bal_for(pool, 0, n, 0, body, partial);
}
