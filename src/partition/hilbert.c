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

/* The steps of the bit positions hi down to lo + 1. Always inlined, and
 * its one caller (steps_key) passes a constant dim, so that the words
 * stay in registers and the loop over them unrolls: through one copy for
 * every dim a partition of 10^6 cells into 1,024 parts took 1.6x as long
 * (0.43 s against 0.27 s; docs/BENCHMARKS.md). */
static inline __attribute__((always_inline)) void steps(int dim, uint32_t *x, int hi, int lo) {
  for (int j = hi; j > lo; j--) {
    uint32_t q = 1u << j, low = q - 1;
    for (int i = 0; i < dim; i++) {
      /* bit set: reflect the low bits of x[0]; clear: swap them with x[i]'s */
      uint32_t set = 0u - ((x[i] & q) != 0);
      uint32_t t = (x[0] ^ x[i]) & low & ~set;
      x[0] ^= (low & set) | t;
      x[i] ^= t;
    }
  }
}

/* Gray code, bits below level l cleared, and the bits read into a key.
 * Inlined like steps(). */
static inline __attribute__((always_inline)) uint64_t finish(int dim, uint32_t *x, int l) {
  const uint32_t bottom = 1u << l;
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

/* The steps from bit position hi down, then the key: each with the
 * dimension a constant, for steps() and finish() to unroll. */
static uint64_t steps_key(int dim, uint32_t *x, int hi, int l) {
  if (dim == 2) {
    steps(2, x, hi, l);
    return finish(2, x, l);
  }
  steps(3, x, hi, l);
  return finish(3, x, l);
}

static uint64_t hilbert_key(int dim, const uint32_t *cell, int l) {
  uint32_t x[3] = {cell[0], cell[1], dim == 3 ? cell[2] : 0};
  return steps_key(dim, x, BAL_PARTITION_CURVE_BITS - 1, l);
}

/* The first keys of the same-size neighbours of a block, sharing the
 * block's steps. A neighbour agrees with the block's corner above its
 * highest differing bit h, so the steps above h are the block's, and
 * together they act on the bits at h and below as a permutation of the
 * words and a reflection of some of them: recorded per level while the
 * block's own key is computed, then applied to the neighbour's low bits,
 * which leaves only the steps from h down (h - l levels: none when the
 * step to the neighbour carries past no bit of the corner) instead of all
 * BAL_PARTITION_CURVE_BITS - l. */
static void hilbert_nbr_keys(int dim, const uint32_t *corner, int l, uint64_t *keys) {
  enum { B = BAL_PARTITION_CURVE_BITS };
  uint32_t x[3] = {corner[0], corner[1], dim == 3 ? corner[2] : 0};
  unsigned char perm[B][3], refl[B]; /* before the steps of position j */
  unsigned char pi[3] = {0, 1, 2}, f = 0; /* f: bit i set = word i reflected */
  for (int j = B - 1; j >= l; j--) {
    for (int i = 0; i < 3; i++) perm[j][i] = pi[i];
    refl[j] = f;
    if (j == l) break;
    uint32_t q = 1u << j, low = q - 1;
    for (int i = 0; i < dim; i++) {
      if (x[i] & q) {
        x[0] ^= low;
        f ^= 1;
      } else if (i > 0) {
        uint32_t t = (x[0] ^ x[i]) & low;
        x[0] ^= t;
        x[i] ^= t;
        unsigned char s = pi[0];
        pi[0] = pi[i];
        pi[i] = s;
        unsigned char f0 = f & 1, fi = (f >> i) & 1;
        f = (unsigned char)((f & ~(1u | 1u << i)) | fi | f0 << i);
      }
    }
  }
  const int64_t side = (int64_t)1 << B, s = (int64_t)1 << l;
  int ndir = dim == 2 ? 9 : 27;
  for (int dir = 0; dir < ndir; dir++) {
    uint32_t n[3] = {0, 0, 0}, diff = 0;
    bool inside = true;
    for (int d = 0, code = dir; d < dim; d++, code /= 3) {
      int64_t v = (int64_t)corner[d] + (int64_t)(code % 3 - 1) * s;
      inside &= v >= 0 && v < side;
      n[d] = (uint32_t)(v >= 0 && v < side ? v : 0);
      diff |= n[d] ^ corner[d];
    }
    if (!inside || diff == 0) {
      keys[dir] = UINT64_MAX;
      continue;
    }
    int h = 31 - __builtin_clz(diff);
    uint32_t lowmask = (uint32_t)((2ull << h) - 1), y[3] = {0, 0, 0};
    for (int i = 0; i < dim; i++) {
      uint32_t v = n[perm[h][i]] ^ (0u - ((refl[h] >> i) & 1u));
      y[i] = (x[i] & ~lowmask) | (v & lowmask);
    }
    keys[dir] = steps_key(dim, y, h, l);
  }
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

static const bal__part_curve curve = {hilbert_key, hilbert_cell, hilbert_nbr_keys};

const bal__part_method bal__part_hilbert = {"hilbert", BAL_PARTITION_REGION_CURVE, false, &curve,
                                            plan, bal__part_sfc_place, bal__part_sfc_release};
