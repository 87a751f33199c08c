/* "morton": the string of items in Morton (Z) order [Morton 1966]: the
 * key interleaves the bits of the cell coordinates, x in the lowest bit of
 * each group. Cheap, but the curve jumps between quadrants, so a piece may
 * be two or more separate patches; "hilbert" keeps pieces connected. */
#include "partition_internal.h"
#include "spread.h"

static uint64_t morton_key(int dim, const uint32_t *cell, int l) {
  uint64_t k = dim == 2 ? bal__part_spread2(cell[0]) | bal__part_spread2(cell[1]) << 1
                        : bal__part_spread3(cell[0]) | bal__part_spread3(cell[1]) << 1 |
                              bal__part_spread3(cell[2]) << 2;
  return k & ~(((uint64_t)1 << (dim * l)) - 1);
}

static void morton_cell(int dim, uint64_t key, uint32_t *cell) {
  for (int d = 0; d < dim; d++)
    cell[d] = dim == 2 ? bal__part_compact2(key >> d) : bal__part_compact3(key >> d);
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, morton_key);
}

static const bal__part_curve curve = {morton_key, morton_cell};

const bal__part_method bal__part_morton = {"morton", BAL_PARTITION_REGION_CURVE, false, &curve,
                                           plan, bal__part_sfc_place, bal__part_sfc_release};
