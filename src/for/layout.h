/* Private: how a loop's units are first dealt to the workers, and which
 * units an offset of a worker's range names.
 *
 * The units are cut into blocks and dealt to the P workers in rounds, as
 * cards are: in round j worker i gets block j*P + i, so the P blocks of a
 * round lie side by side in the loop. Each worker walks its blocks in round
 * order, so all workers pass through every region of the loop at about the
 * same time, as with a dynamic schedule: a costly item in the middle of the
 * loop starts once about its position's share of the other work is done,
 * instead of after everything before it in one worker's contiguous slice.
 * Blocks stay long (about U / (BAL__LAYOUT_ROUNDS * P) units), so a worker
 * still runs long contiguous stretches, and the deal depends only on the
 * length, the grain and the pool size, so repeated calls give a worker the
 * same indices (less what thieves move).
 *
 * The ranges of range.h stay contiguous, in *dealt* offsets: worker i's
 * blocks are consecutive there, in round order, and make up its initial
 * range [bal__for_layout_start(L, i), bal__for_layout_start(L, i + 1)).
 * Owners' takes and thieves' halves cut dealt offsets (so a thief takes the
 * victim's last rounds), and bal__for_layout_piece() maps dealt offsets to
 * loop offsets one block at a time. A range only ever shrinks or splits, so
 * it stays inside one worker's initial range: its origin, which the mapping
 * needs and bal__for_layout_origin() finds.
 *
 * Shape, for U units, P workers and grain q (1 when chunks adapt):
 *  - R rounds of P blocks of s units, s a multiple of q, then a last round
 *    (the tail) of T = U - R*P*s units dealt in whole grains, the lower
 *    workers first (the last grain may be short: it ends the loop). With
 *    R > 0, P*s <= T < 2*P*s, so no tail piece is much longer than a block.
 *  - R = 0 (the tail alone: one contiguous slice per worker) for loops
 *    shorter than two rounds of one grain per worker, and for P = 1.
 *  - Every block and tail piece starts at a multiple of q in both orders,
 *    so ranges that are cut at multiples of q (range.h) are taken in whole
 *    grains, each inside one block.
 * Every offset fits in 32 bits (U <= BAL__RANGE_MAX_UNITS); products are
 * formed in 64 bits. Cost: start and segment O(1), origin O(log P) (once
 * per steal), piece at most one division (once per body call).
 */
#ifndef BALLAST_FOR_LAYOUT_H
#define BALLAST_FOR_LAYOUT_H

#include <stdint.h>

/* Blocks per worker when the loop is long enough. An owner reaches a unit
 * at most one block (two in the tail) of its other work later than a
 * dynamic schedule would, i.e. about 1/ROUNDS of a worker's share, while
 * the blocks of a 10^5-item loop on 2 workers still hold ~1,500 items. */
#define BAL__LAYOUT_ROUNDS 32

typedef struct bal__for_layout {
  uint32_t units;   /* U */
  uint32_t workers; /* P */
  uint32_t quantum; /* q: the grain, in units */
  uint32_t block;   /* s */
  uint32_t rounds;  /* R */
  uint32_t tail;    /* T */
} bal__for_layout;

/* Worker i's initial range, as dealt offsets, with what the mapping of its
 * offsets needs. */
typedef struct bal__for_segment {
  uint32_t origin;   /* i */
  uint32_t begin;    /* first dealt offset */
  uint32_t tail;     /* dealt offset where its tail piece starts */
  uint32_t end;      /* one past the last dealt offset */
  uint32_t tail_at;  /* loop offset of its tail piece */
} bal__for_segment;

/* Deal `units` (<= 2^31) units to `workers` (>= 1) workers in pieces that
 * are multiples of `quantum` (1 <= quantum <= 2^30). */
static inline void bal__for_layout_init(bal__for_layout *L, uint32_t units, uint32_t workers,
                                        uint32_t quantum) {
  uint64_t u = units, p = workers, q = quantum;
  uint64_t s = u / (BAL__LAYOUT_ROUNDS * p * q) * q;
  if (s == 0) s = q;
  uint64_t r = p > 1 && u / (p * s) >= 2 ? u / (p * s) - 1 : 0;
  L->units = units;
  L->workers = workers;
  L->quantum = quantum;
  L->block = (uint32_t)s;
  L->rounds = (uint32_t)r;
  L->tail = (uint32_t)(u - r * p * s);
}

/* Offset of worker i's tail piece (0 <= i <= P) within the tail: the first
 * ceil(i * grains / P) grains of the tail go to workers 0..i-1. */
static inline uint32_t bal__for_layout_tail_offset(const bal__for_layout *L, uint32_t i) {
  uint64_t q = L->quantum, grains = ((uint64_t)L->tail + q - 1) / q;
  uint64_t t = ((uint64_t)i * grains + L->workers - 1) / L->workers * q;
  return t < L->tail ? (uint32_t)t : L->tail;
}

/* First dealt offset of worker i's initial range (0 <= i <= P; i = P gives
 * U). Non-decreasing in i; equal values mean empty ranges. */
static inline uint32_t bal__for_layout_start(const bal__for_layout *L, uint32_t i) {
  return (uint32_t)((uint64_t)i * L->rounds * L->block) + bal__for_layout_tail_offset(L, i);
}

/* The origin of dealt offset v < U: the worker whose initial range holds it. */
static inline uint32_t bal__for_layout_origin(const bal__for_layout *L, uint32_t v) {
  uint32_t lo = 0, hi = L->workers - 1; /* start(0) = 0 <= v */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (bal__for_layout_start(L, mid) <= v)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static inline bal__for_segment bal__for_layout_segment(const bal__for_layout *L, uint32_t i) {
  bal__for_segment g;
  uint32_t body = (uint32_t)((uint64_t)L->rounds * L->workers * L->block);
  g.origin = i;
  g.begin = bal__for_layout_start(L, i);
  g.tail = g.begin + L->rounds * L->block;
  g.end = bal__for_layout_start(L, i + 1);
  g.tail_at = body + bal__for_layout_tail_offset(L, i);
  return g;
}

/* The round of dealt offset v of segment g (g->begin <= v < g->end): the
 * loop's blocks j*P .. j*P + P - 1 are round j, the tail round R, so owners
 * that walk their segments at the same pace are in the same round. */
static inline uint32_t bal__for_layout_round(const bal__for_layout *L, const bal__for_segment *g,
                                             uint32_t v) {
  return v < g->tail ? (v - g->begin) / L->block : L->rounds;
}

/* Dealt offsets [v, end) of segment g (g->begin <= v < end <= g->end) begin
 * with a run of consecutive loop offsets: return its length (>= 1; it stops
 * at the end of a block) and its first loop offset in *at. */
static inline uint32_t bal__for_layout_piece(const bal__for_layout *L, const bal__for_segment *g,
                                             uint32_t v, uint32_t end, uint32_t *at) {
  uint32_t stop;
  if (v < g->tail) {
    uint32_t off = v - g->begin, j = off / L->block;
    *at = (uint32_t)(((uint64_t)j * L->workers + g->origin) * L->block) + (off - j * L->block);
    stop = g->begin + (j + 1) * L->block;
  } else {
    *at = g->tail_at + (v - g->tail);
    stop = g->end;
  }
  return (end < stop ? end : stop) - v;
}

#endif
