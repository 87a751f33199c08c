/* Helpers shared by the node benchmarks (bench/node): a clock, medians,
 * the machine's load beside each figure, and a virtual registry. Header
 * only, so each benchmark stays one file plus this one. */
#ifndef BALLAST_BENCH_NODE_H
#define BALLAST_BENCH_NODE_H

#include <ballast/ballast.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in ns: one clock for every process of the machine, so a
 * time taken in one process can be compared with one taken in another. */
static inline int64_t bench_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int64_t n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The q-quantile of v[0..n) after bench_median() sorted it. */
static inline double bench_quantile_sorted(const double *v, int64_t n, double q) {
  int64_t i = (int64_t)(q * (double)(n - 1) + 0.5);
  return v[i];
}

/* The 1-minute load average, printed beside every figure: the machine is
 * shared, and a figure taken under load says so. */
static inline void bench_print_load(void) {
  double load[3];
  if (getloadavg(load, 3) == 3)
    printf("  load average: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

/* REPS, the one optional argument (default def); -1 after printing the
 * usage line if the arguments are wrong. */
static inline int64_t bench_reps(int argc, char **argv, int64_t def, const char *prog) {
  int64_t reps = argc > 1 ? atoll(argv[1]) : def;
  if (argc > 2 || reps < 1) {
    fprintf(stderr, "usage: %s [REPS]   (default %lld)\n", prog, (long long)def);
    return -1;
  }
  return reps;
}

/* n steps of a xorshift chain from x: work the compiler cannot drop. */
static inline uint64_t bench_spin(uint64_t n, uint64_t x) {
  for (uint64_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

/* Create a registry of ncpus virtual CPUs (0: this machine's real CPUs)
 * named "/bench-node-WHAT-PID" into name[size] (printing why not). */
static inline int bench_node_registry(char *name, size_t size, const char *what, int64_t ncpus) {
  snprintf(name, size, "/bench-node-%s-%ld", what, (long)getpid());
  bal_node_registry_config rc;
  bal_node_registry_config_init(&rc);
  rc.name = name;
  rc.virtual_cpus = ncpus;
  int code = bal_node_registry_create(&rc);
  if (code != BAL_OK) fprintf(stderr, "bench: registry %s: %s\n", name, bal_strerror(code));
  return code;
}

#endif
