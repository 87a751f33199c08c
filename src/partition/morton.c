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

static void morton_nbr_keys(int dim, const uint32_t *corner, int l, uint64_t *keys) {
  const int64_t side = (int64_t)1 << BAL_PARTITION_CURVE_BITS, s = (int64_t)1 << l;
  int ndir = dim == 2 ? 9 : 27;
  for (int dir = 0; dir < ndir; dir++) {
    uint32_t n[3] = {0, 0, 0};
    bool inside = true, self = true;
    for (int d = 0, code = dir; d < dim; d++, code /= 3) {
      int64_t v = (int64_t)corner[d] + (int64_t)(code % 3 - 1) * s;
      inside &= v >= 0 && v < side;
      self &= code % 3 == 1;
      n[d] = (uint32_t)(v >= 0 && v < side ? v : 0);
    }
    keys[dir] = inside && !self ? morton_key(dim, n, l) : UINT64_MAX;
  }
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, morton_key);
}

static const bal__part_curve curve = {morton_key, morton_cell, morton_nbr_keys};

const bal__part_method bal__part_morton = {"morton", BAL_PARTITION_REGION_CURVE, false, &curve,
                                           plan, bal__part_sfc_place, bal__part_sfc_release};
