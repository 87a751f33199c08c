/* "hilbert": the string of items in Hilbert order [Hilbert 1891]; cells
 * consecutive on the curve share a face, so every piece of the string is
 * one connected patch. Keys by Skilling's transpose method [Skilling 2004]:
 * undo the curve's rotations and reflections level by level from the top
 * bit, Gray-code the result, and read the bits level by level with the
 * first dimension most significant. O(bits * dim) per item, without
 * branches on the bits (they are as good as random: a branch per bit cost
 * more than the arithmetic).
 *
 * Every step at level q only changes bits below q, and is chosen by bits
 * at q and above, so the key's bits from level l up depend only on the
 * cell's bits from level l up and on the steps above level l: the first
 * key of an aligned block of side 2^l skips the l lowest levels. */
#include "partition_internal.h"
#include "spread.h"

static uint64_t hilbert_key(int dim, const uint32_t *cell, int l) {
  uint32_t x[3] = {cell[0], cell[1], dim == 3 ? cell[2] : 0};
  const uint32_t top = 1u << (BAL_PARTITION_CURVE_BITS - 1), bottom = 1u << l;
  for (uint32_t q = top; q > bottom; q >>= 1) {
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
  /* flip every bit below each set bit of the last word above the bottom
   * level: bit j of flip is the parity of those set bits above j, a
   * suffix parity in five shifts rather than a loop over the levels */
  uint32_t flip = (x[dim - 1] & ~((bottom << 1) - 1)) >> 1;
  for (int sh = 1; sh < 32; sh <<= 1) flip ^= flip >> sh;
  for (int i = 0; i < dim; i++) x[i] = (x[i] ^ flip) & ~(bottom - 1);
  if (dim == 2) return bal__part_spread2(x[0]) << 1 | bal__part_spread2(x[1]);
  return bal__part_spread3(x[0]) << 2 | bal__part_spread3(x[1]) << 1 | bal__part_spread3(x[2]);
}

/* The inverse, for the neighbour lists: split the key into its dim
 * transposed words, undo the Gray code, then redo each level's step from
 * the bottom level up. Each step (reflect or swap the bits below q,
 * chosen by bit q, which the step leaves as it is) is its own inverse, so
 * applying the steps in reverse order undoes them. */
static void hilbert_cell(int dim, uint64_t key, uint32_t *cell) {
  uint32_t x[3] = {0, 0, 0};
  for (int i = 0; i < dim; i++)
    x[i] = dim == 2 ? bal__part_compact2(key >> (1 - i)) : bal__part_compact3(key >> (2 - i));
  uint32_t t = x[dim - 1] >> 1;
  for (int i = dim - 1; i > 0; i--) x[i] ^= x[i - 1];
  x[0] ^= t;
  const uint32_t end = 1u << BAL_PARTITION_CURVE_BITS;
  for (uint32_t q = 2; q != end; q <<= 1) {
    uint32_t low = q - 1;
    for (int i = dim - 1; i >= 0; i--) {
      uint32_t set = 0u - ((x[i] & q) != 0);
      uint32_t s = (x[0] ^ x[i]) & low & ~set;
      x[0] ^= (low & set) | s;
      x[i] ^= s;
    }
  }
  for (int i = 0; i < dim; i++) cell[i] = x[i];
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  return bal__part_sfc_plan(c, pl, hilbert_key);
}

static const bal__part_curve curve = {hilbert_key, hilbert_cell};

const bal__part_method bal__part_hilbert = {"hilbert", BAL_PARTITION_REGION_CURVE, false, &curve,
                                            plan, bal__part_sfc_place, bal__part_sfc_release};
