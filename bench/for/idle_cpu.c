/* bench_for_idle_cpu: CPU time bal_for spends per call on a loop whose
 * workers mostly wait: 150 items that sleep 4 ms, item 0 sleeping 150 ms,
 * three calls per pool size 2, 4, 8. A balancer that spins or yields while
 * the last item runs shows up here as CPU time far above the ~ms that
 * sleeping itself costs. Usage: bench_for_idle_cpu (no arguments). */
#include <ballast/ballast.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

static void body(int64_t b, int64_t e, void *arg) {
  (void)arg;
  for (int64_t i = b; i < e; i++) {
    struct timespec ts = {0, i == 0 ? 150000000L : 4000000L};
    nanosleep(&ts, NULL);
  }
}

static double cpu_seconds(void) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec * 1e-6 +
         (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec * 1e-6;
}

static double wall_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void) {
  enum { CALLS = 3 };
  for (int p = 2; p <= 8; p *= 2) {
    bal_pool *pool;
    int rc = bal_pool_create(p, &pool);
    if (rc != BAL_OK) {
      fprintf(stderr, "bench_for_idle_cpu: %s\n", bal_strerror(rc));
      return 1;
    }
    double c0 = cpu_seconds(), w0 = wall_seconds();
    for (int r = 0; r < CALLS; r++) bal_for(pool, 0, 150, 0, body, NULL);
    printf("P=%d: %.3f s wall per call, %.1f ms CPU per call\n", p,
           (wall_seconds() - w0) / CALLS, (cpu_seconds() - c0) / CALLS * 1e3);
    bal_pool_destroy(pool);
  }
  return 0;
}
