/* Private: bit spreading shared by the curve keys (morton.c, hilbert.c):
 * the low BAL_PARTITION_CURVE_BITS (21) bits of v moved to every second
 * (2-D) or every third (3-D) bit, by the usual mask-and-shift steps
 * instead of a loop over the bits; and back (compact: the bits 0, 2, 4, ...
 * or 0, 3, 6, ... of v gathered into the low 21 bits), the same steps in
 * reverse order, for the cell of a key. */
#ifndef BALLAST_PARTITION_SPREAD_H
#define BALLAST_PARTITION_SPREAD_H

#include <stdint.h>

static inline uint64_t bal__part_spread2(uint64_t v) {
  v &= 0x1fffff;
  v = (v | (v << 16)) & 0x0000ffff0000ffffull;
  v = (v | (v << 8)) & 0x00ff00ff00ff00ffull;
  v = (v | (v << 4)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v << 2)) & 0x3333333333333333ull;
  v = (v | (v << 1)) & 0x5555555555555555ull;
  return v;
}

static inline uint64_t bal__part_spread3(uint64_t v) {
  v &= 0x1fffff;
  v = (v | (v << 32)) & 0x001f00000000ffffull;
  v = (v | (v << 16)) & 0x001f0000ff0000ffull;
  v = (v | (v << 8)) & 0x100f00f00f00f00full;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
  v = (v | (v << 2)) & 0x1249249249249249ull;
  return v;
}

static inline uint32_t bal__part_compact2(uint64_t v) {
  v &= 0x5555555555555555ull;
  v = (v | (v >> 1)) & 0x3333333333333333ull;
  v = (v | (v >> 2)) & 0x0f0f0f0f0f0f0f0full;
  v = (v | (v >> 4)) & 0x00ff00ff00ff00ffull;
  v = (v | (v >> 8)) & 0x0000ffff0000ffffull;
  v = (v | (v >> 16)) & 0x1fffff;
  return (uint32_t)v;
}

static inline uint32_t bal__part_compact3(uint64_t v) {
  v &= 0x1249249249249249ull;
  v = (v | (v >> 2)) & 0x10c30c30c30c30c3ull;
  v = (v | (v >> 4)) & 0x100f00f00f00f00full;
  v = (v | (v >> 8)) & 0x001f0000ff0000ffull;
  v = (v | (v >> 16)) & 0x001f00000000ffffull;
  v = (v | (v >> 32)) & 0x1fffff;
  return (uint32_t)v;
}

#endif
