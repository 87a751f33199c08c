/* "hilbert": the string of items in Hilbert order [Hilbert 1891]; cells
 * consecutive on the curve share a face, so every piece of the string is
 * one connected patch. Keys by Skilling's transpose method [Skilling 2004]:
 * undo the curve's rotations and reflections level by level from the top
 * bit, Gray-code the result, and read the bits level by level with the
 * first dimension most significant. O(bits * dim) per item, without
 * branches on the bits (they are as good as random: a branch per bit cost
 * more than the arithmetic). */
#include "partition_internal.h"
#include "spread.h"

static uint64_t hilbert_key(int dim, const uint32_t *cell) {
  uint32_t x[3] = {cell[0], cell[1], dim == 3 ? cell[2] : 0};
  const uint32_t top = 1u << (BAL_PARTITION_CURVE_BITS - 1);
  for (uint32_t q = top; q > 1; q >>= 1) {
    uint32_t low = q - 1;
    for (int i = 0; i < dim; i++) {
      /* bit set: reflect the low bits of x[0]; clear: swap them with x[i]'s */
      uint32_t set = 0u - ((x[i] & q) != 0);
      uint32_t t = (x[0] ^ x[i]) & low & ~set;
      x[0] ^= (low & set) | t;
      x[i] ^= t;
    }
  }
  for (int i = 1; i < dim; i++) x[i] ^= x[i - 1];
  uint32_t flip = 0;
  for (uint32_t q = top; q > 1; q >>= 1)
    if (x[dim - 1] & q) flip ^= q - 1;
  for (int i = 0; i < dim; i++) x[i] ^= flip;
  if (dim == 2) return bal__part_spread2(x[0]) << 1 | bal__part_spread2(x[1]);
  return bal__part_spread3(x[0]) << 2 | bal__part_spread3(x[1]) << 1 | bal__part_spread3(x[2]);
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, hilbert_key);
}

const bal__part_method bal__part_hilbert = {"hilbert", BAL_PARTITION_REGION_CURVE, false, plan,
                                            bal__part_sfc_place, bal__part_sfc_release};
