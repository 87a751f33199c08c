/* Shared by the partition tests: random items, fields on grids, and the
 * invariants every result must satisfy. */
#ifndef BALLAST_TESTS_PARTITION_CHECK_H
#define BALLAST_TESTS_PARTITION_CHECK_H

#include <stdint.h>

#include <ballast/partition.h>

#include "core/rng.h"

/* n random points in the unit box (dim 2 or 3), clustered around a few
 * centres half of the time; weights in [0, 4) (some exactly 0) or NULL. */
void pc_points(bal__rng *rng, int dim, int64_t n, double *coords, double *w);

/* Cell centres of an nx x ny [x nz] grid over [0, nx] x [0, ny] [x [0, nz]]
 * (x fastest). */
void pc_grid_coords(int dim, const int64_t cells[3], double *coords);

/* Smooth weights on the grid cells: 1 + a linear gradient + a Gaussian
 * hotspot of height `peak` centred at (cx, cy[, cz]) (fractions of the
 * domain) with width `sigma` (fraction of the domain). */
void pc_field(int dim, const int64_t cells[3], double cx, double cy, double cz, double peak,
              double sigma, double *w);

/* Check every invariant of a result against its input (cmocka asserts):
 * owners in range; each item inside its part's box (box methods); regions
 * of curve methods consecutive; neighbour lists sorted, without self,
 * symmetric, and for boxes exactly the touching boxes; transfers equal to
 * the items whose owner changed, the same structs on both sides. */
void pc_check_result(const bal_partition_input *in, int parts, const int *part,
                     const bal_partition_result *r);

#endif
