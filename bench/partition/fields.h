/* The weight fields of bench_partition (docs/BENCHMARKS.md, "partition"):
 * cells of an nx x ny grid (x fastest) with a weight each, or clustered
 * points. Every field is a pure function of its arguments and seed, so a
 * rerun sees the same items. */
#ifndef BENCH_PARTITION_FIELDS_H
#define BENCH_PARTITION_FIELDS_H

#include <stdint.h>

typedef enum field_kind {
  FIELD_GRADIENT, /* 1 at one corner rising linearly to 10 at the opposite one */
  FIELD_HOTSPOT,  /* 1 + 50 exp(-r^2 / 2 s^2) around one centre, s = 5% of the width */
  FIELD_HOTSPOTS, /* four such hotspots at seeded places */
  FIELD_NOISE,    /* independent uniform weights in [0.5, 1.5) */
  FIELD_COUNT
} field_kind;

/* "gradient", "hotspot", "hotspots", "noise"; NULL past the end. */
const char *field_name(int kind);

/* Fill w[nx * ny] with the field, its centre moved to (cx, cy), fractions
 * of the width and height ((0.5, 0.5): in place). The hotspots move with
 * it, the gradient is evaluated at the moved position, and the noise is
 * the same pattern shifted by whole cells (wrapping around), so a move by
 * 1% of the width is a small change for the first three fields and a new
 * value in every cell for the noise. */
void field_fill(field_kind kind, int64_t nx, int64_t ny, double cx, double cy, uint64_t seed,
                double *w);

/* n points of weight 1 in [0, 1)^2, xy[2 j], xy[2 j + 1]: eight Gaussian
 * clusters (standard deviation 3% of the side) at seeded centres, 90% of
 * the points, over a uniform background, 10%. */
void field_points(int64_t n, uint64_t seed, double *xy, double *w);

#endif
