/* Cost distributions (see costs.h). */
#include "costs.h"

#include <math.h>
#include <string.h>

#include "core/rng.h"

static const char *const names[COST_NDIST] = {"uniform", "cubic", "pareto", "hotspot", "ramp"};

const char *cost_dist_name(cost_dist d) { return d < COST_NDIST ? names[d] : "?"; }

bool cost_dist_parse(const char *name, cost_dist *out) {
  for (int d = 0; d < COST_NDIST; d++)
    if (!strcmp(name, names[d])) {
      *out = (cost_dist)d;
      return true;
    }
  return false;
}

void cost_fill(cost_dist d, uint64_t seed, int64_t n, double *w) {
  bal__rng r;
  bal__rng_seed(&r, seed);
  /* The hot region's place and width depend on the seed. */
  int64_t hot0 = (int64_t)bal__rng_below(&r, (uint64_t)n), hot_len = n / 20 + 1;
  for (int64_t j = 0; j < n; j++) {
    double u = 1.0 - bal__rng_uniform(&r); /* (0, 1]: no zero division below */
    switch (d) {
    case COST_UNIFORM: w[j] = u; break;
    case COST_CUBIC: w[j] = u * u * u * 100.0; break;
    case COST_PARETO: w[j] = pow(u, -1.0 / 1.5); break;
    case COST_HOTSPOT: w[j] = (j >= hot0 && j < hot0 + hot_len) ? 50.0 : 1.0; break;
    case COST_RAMP: w[j] = 1.0 + 10.0 * (double)j / (double)n + 0.1 * u; break;
    default: w[j] = 1.0;
    }
  }
}
