/* Per-item cost profiles of the bal_for benchmark, deterministic from a seed.
 * A profile is a shape of mean exactly 1 (scaled by the mode's mean cost)
 * whose smallest item is at least WORKLOAD_FLOOR of the mean, so that sleeping
 * items never fall below the timer's useful resolution. */
#ifndef BALLAST_BENCH_FOR_WORKLOADS_H
#define BALLAST_BENCH_FOR_WORKLOADS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
  WL_UNIFORM, /* uniform tiny bodies (tiny kernel, no cost array) */
  WL_RAMP,    /* linear ramp: 0.2 .. 1.8 times the mean */
  WL_BUMP,    /* gaussian bump: the central 10% of items carry 70% of the cost */
  WL_EXP,     /* 0.2 + 0.8 * exponential(1) (normalized): random costs */
  WL_HEAVY,   /* item 0 holds half of the total, the rest share the other half */
  WL_MID,     /* the item at 40% of the range holds a quarter of the total */
  WL_BLOCK,   /* the 2% of items from 60% of the range cost 80 times the others */
  WL_LOGNORM, /* 0.2 + 0.8 * log-normal(sigma 2) (normalized), in random order */
  WL_COUNT
} workload_id;

/* Smallest item of every skewed shape, as a fraction of the mean. */
#define WORKLOAD_FLOOR 0.2
/* Smallest item count the skewed shapes accept. */
#define WORKLOAD_MIN_ITEMS 100

const char *workload_name(workload_id w);
/* Parse a workload name; false if unknown. */
bool workload_parse(const char *name, workload_id *out);

/* Default position of mid's heavy item, a fraction of the range. */
#define WORKLOAD_MID_AT 0.40

/* Default share of the work in mid's heavy item. */
#define WORKLOAD_MID_SHARE 0.25

/* Fill shape[0..n) (n >= WORKLOAD_MIN_ITEMS) with the profile of w (mean 1);
 * mid_at in [0, 1) places mid's heavy item, mid_share in (0, 1) is its
 * share of the work. */
void workload_shape(workload_id w, int64_t n, uint64_t seed, double mid_at, double mid_share,
                    double *shape);

#endif
