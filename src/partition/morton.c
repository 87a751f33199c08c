/* "morton": the string of items in Morton (Z) order [Morton 1966]: the
 * key interleaves the bits of the cell coordinates, x in the lowest bit of
 * each group. Cheap, but the curve jumps between quadrants, so a piece may
 * be two or more separate patches; "hilbert" keeps pieces connected. */
#include "partition_internal.h"
#include "spread.h"

static uint64_t morton_key(int dim, const uint32_t *cell) {
  if (dim == 2) return bal__part_spread2(cell[0]) | bal__part_spread2(cell[1]) << 1;
  return bal__part_spread3(cell[0]) | bal__part_spread3(cell[1]) << 1 |
         bal__part_spread3(cell[2]) << 2;
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, morton_key);
}

const bal__part_method bal__part_morton = {"morton", BAL_PARTITION_REGION_CURVE, false, plan,
                                           bal__part_sfc_place, bal__part_sfc_release};
