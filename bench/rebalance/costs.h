/* Skewed per-item cost distributions for the cut-quality benchmark. */
#ifndef BENCH_REBALANCE_COSTS_H
#define BENCH_REBALANCE_COSTS_H

#include <stdbool.h>
#include <stdint.h>

typedef enum cost_dist {
  COST_UNIFORM, /* U(0,1]: the mild case */
  COST_CUBIC,   /* U^3 * 100: most items cheap, a tail of expensive ones */
  COST_PARETO,  /* Pareto, shape 1.5: heavy tail, a few items cost thousands of times the median */
  COST_HOTSPOT, /* unit costs with one contiguous region 50x heavier: a moving front */
  COST_RAMP,    /* cost growing linearly along the chain (a triangular loop) */
  COST_NDIST
} cost_dist;

const char *cost_dist_name(cost_dist d);
bool cost_dist_parse(const char *name, cost_dist *out);

/* Fill w[0..n) with costs of distribution d, deterministic for a seed. */
void cost_fill(cost_dist d, uint64_t seed, int64_t n, double *w);

#endif
