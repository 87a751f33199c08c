/* Private: the work-stealing range of one worker, as a single atomic word.
 *
 * A loop of `units` units is addressed by 32-bit unit offsets from the loop's
 * start (a unit is one index, or several for loops longer than 2^31 indices,
 * see loop.c). Every worker's remaining range [lo, hi) is packed into one
 * 64-bit word: lo in the low half, hi in the high half. Offsets are absolute
 * for the whole call, so a word's value alone says which units it holds; a
 * compare-and-swap that succeeds on a value therefore claims exactly what
 * that value describes, whatever happened in between (no ABA hazard, no base
 * pointer to re-read, no 128-bit atomics).
 *
 *  - The owner takes k units from the low end with one fetch_add on lo:
 *    wait-free, never retried. If thieves emptied the range meanwhile, lo
 *    overshoots hi once (by at most k) and the word reads as empty until the
 *    owner installs a new range; thieves never CAS an empty word.
 *  - A worker that is rounds ahead of a lagging owner (loop.c) takes whole
 *    grains from the low end with one CAS on the word, never past hi: lo
 *    stays <= hi, and the owner's next take starts after what it took.
 *  - A thief takes the upper half from the high end with one CAS on hi,
 *    cut at a whole number of grains of q units from lo. If lo and hi are
 *    multiples of q (hi may also be the loop's end) and the owner takes
 *    exactly q at a time, every range stays so: each take is one whole
 *    grain, which for/layout.h keeps inside one block.
 * Invariants that keep the arithmetic inside 32 bits: hi <= 2^31 and
 * k, q <= 2^30, and the owner stops taking after its first empty answer, so
 * lo <= hi + k < 2^32 and the add never carries into hi.
 * Offsets here are dealt offsets (for/layout.h); the range neither knows
 * nor cares which loop indices they name.
 */
#ifndef BALLAST_FOR_RANGE_H
#define BALLAST_FOR_RANGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define BAL__RANGE_MAX_UNITS (UINT32_C(1) << 31)
#define BAL__RANGE_MAX_TAKE (UINT32_C(1) << 30)

typedef struct bal__for_range {
  _Alignas(64) _Atomic uint64_t word;
  char pad[64 - sizeof(uint64_t)]; /* one range per cache line */
} bal__for_range;

static inline uint64_t bal__for_range_pack(uint32_t lo, uint32_t hi) {
  return ((uint64_t)hi << 32) | lo;
}

/* Install [lo, hi) as the range (owner only, or before the call opens). */
static inline void bal__for_range_set(bal__for_range *r, uint32_t lo, uint32_t hi) {
  atomic_store_explicit(&r->word, bal__for_range_pack(lo, hi), memory_order_release);
}

/* Owner: take up to k (1 <= k <= BAL__RANGE_MAX_TAKE) units from the low end.
 * Returns the number taken (0 when the range is empty: the owner must then
 * stop taking from it) and their first offset in *first. */
static inline uint32_t bal__for_range_take(bal__for_range *r, uint32_t k, uint32_t *first) {
  uint64_t old = atomic_fetch_add_explicit(&r->word, k, memory_order_acq_rel);
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  if (lo >= hi) return 0;
  *first = lo;
  return hi - lo < k ? hi - lo : k;
}

/* Thief: try to take the upper half of the range in grains of q units
 * (1 <= q <= BAL__RANGE_MAX_TAKE): of its c = ceil((hi - lo) / q) grains
 * counted from lo (the top one may be short), the upper ceil(c / 2),
 * provided they hold at least q units. With q = 1: the upper half, rounded
 * up. Returns the number of units stolen (0: nothing worth stealing, -1:
 * lost a race, worth retrying) and their first offset. */
static inline int64_t bal__for_range_steal(bal__for_range *r, uint32_t q, uint32_t *first) {
  uint64_t old = atomic_load_explicit(&r->word, memory_order_relaxed);
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  if (lo >= hi) return 0;
  uint32_t avail = hi - lo;
  uint32_t grains = avail / q + (avail % q != 0);
  uint32_t n = avail - grains / 2 * q;
  if (n < q) return 0;
  if (!atomic_compare_exchange_strong_explicit(&r->word, &old, bal__for_range_pack(lo, hi - n),
                                               memory_order_acq_rel, memory_order_relaxed))
    return -1;
  *first = hi - n;
  return n;
}

/* Helper: take the n units [lo, lo + n) from the low end of a range that
 * read `old` = [lo, hi), lo + n <= hi; n is whole grains unless it ends at
 * hi. Returns false (nothing taken) when the word changed since. */
static inline bool bal__for_range_take_low(bal__for_range *r, uint64_t old, uint32_t n) {
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  return atomic_compare_exchange_strong_explicit(&r->word, &old, bal__for_range_pack(lo + n, hi),
                                                 memory_order_acq_rel, memory_order_relaxed);
}

/* Thief: take [cut, hi) of a range that read `old` = [lo, hi), lo < cut <
 * hi, cut whole grains from lo (a learned deal's cut, learn.h). Returns
 * the number of units stolen, -1 when the word changed since. */
static inline int64_t bal__for_range_steal_at(bal__for_range *r, uint64_t old, uint32_t cut) {
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  if (!atomic_compare_exchange_strong_explicit(&r->word, &old, bal__for_range_pack(lo, cut),
                                               memory_order_acq_rel, memory_order_relaxed))
    return -1;
  return hi - cut;
}

/* Thief, from a parked owner (which takes nothing more): take the whole
 * range, also a last grain shorter than q that bal__for_range_steal()
 * leaves to the owner. Same return values. */
static inline int64_t bal__for_range_steal_all(bal__for_range *r, uint32_t *first) {
  uint64_t old = atomic_load_explicit(&r->word, memory_order_relaxed);
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  if (lo >= hi) return 0;
  if (!atomic_compare_exchange_strong_explicit(&r->word, &old, bal__for_range_pack(lo, lo),
                                               memory_order_acq_rel, memory_order_relaxed))
    return -1;
  *first = lo;
  return hi - lo;
}

/* Units still in the range (a racy snapshot; 0 when empty). */
static inline uint32_t bal__for_range_size(const bal__for_range *r) {
  uint64_t w = atomic_load_explicit(&((bal__for_range *)r)->word, memory_order_relaxed);
  uint32_t lo = (uint32_t)w, hi = (uint32_t)(w >> 32);
  return lo >= hi ? 0 : hi - lo;
}

#endif
