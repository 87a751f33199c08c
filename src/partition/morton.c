/* "morton": the string of items in Morton (Z) order [Morton 1966]: the
 * key interleaves the bits of the cell coordinates, x in the lowest bit of
 * each group. Cheap, but the curve jumps between quadrants, so a piece may
 * be two or more separate patches; "hilbert" keeps pieces connected. */
#include "partition_internal.h"

/* Spread the low 21 bits of v to every second (2-D) or third (3-D) bit. */
static uint64_t spread2(uint64_t v) {
  v &= 0x1fffff;
  v = (v | (v << 16)) & 0x0000ffff0000ffffull;
  v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
  v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

static uint64_t spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | (v << 32)) & 0x001f00000000ffffull;
  v = (v | (v << 16)) & 0x001f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

static uint64_t morton_key(int dim, const uint32_t *cell) {
  if (dim == 2) return spread2(cell[0]) | spread2(cell[1]) << 1;
  return spread3(cell[0]) | spread3(cell[1]) << 1 | spread3(cell[2]) << 2;
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, morton_key);
}

const bal__part_method bal__part_morton = {"morton", BAL_PARTITION_REGION_CURVE, false, plan,
                                           bal__part_sfc_place, bal__part_sfc_release};
