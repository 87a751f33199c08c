/* Private: loops that learn from their last call (bal_for_learn, for.h).
 *
 * A bal_loop keeps a cost profile of its range: the range cut into at most
 * BAL__LEARN_MAX_BLOCKS equal blocks (whole grains), the predicted
 * nanoseconds of each. The memory is fixed whatever the range (the arrays
 * live inside the handle, < 64 KiB).
 *
 * Measuring (run_chunk, loop.c): the time of each chunk, which the loop
 * reads anyway, is spread over the loop units the chunk ran, and added to
 * the blocks they lie in: one add per block a chunk touches, an atomic one
 * only for the two end blocks, which another chunk may share (a block the
 * chunk covers whole is written by nobody else during the call). A chunk
 * that held a heavy item among light ones smears its time over them; so in
 * a learned call adaptive chunks stop before a block predicted heavy and
 * take it in pieces of about the chunk target (bal__for_learn_chunk), and
 * the next measurement is sharp.
 *
 * Dealing (bal__for_learn_deal): the workers get contiguous slices of
 * equal predicted cost (prefix sums over the blocks), so long loops still
 * run long contiguous stretches; a slice whose heaviest block is clearly
 * heavier than its mean is walked from that block to the slice end and
 * then from the slice start (a rotation), so a predicted-heavy item starts
 * at once instead of after the light items before it. In dealt offsets
 * (range.h) the slices are the loop's own offsets, rotated: stealing,
 * taking and the exactly-once argument are those of every call. A thief
 * cuts what it steals where the heaviest block of the victim's range
 * starts, when one is clearly heavier than the rest
 * (bal__for_learn_steal_cut): otherwise a costly item late in a slice
 * would start last, after the light items a thief walks before it.
 *
 * Learning (bal__for_learn_finish): what a call measured becomes the next
 * prediction, averaged with the old one while they agree; when they differ
 * by more than BAL__LEARN_DROP (the earth mover's distance between the two,
 * the range taken as [0, 1]: share of the work moved times how far) the old
 * profile stopped predicting and is dropped for the measurement alone. A new length or grain resamples the profile by
 * relative position in the range. */
#ifndef BALLAST_FOR_LEARN_H
#define BALLAST_FOR_LEARN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ballast/for.h>

#include "for/layout.h"

#define BAL__LEARN_MAX_BLOCKS 4096
/* A quarter of the work moved by a fifth of the range. Noise moves much
 * less; a slow drift (costs scaled by a smooth field, <= 10% per call)
 * moves < 0.01. */
#define BAL__LEARN_DROP 0.05
/* Rotate a slice to its heaviest block when that block costs more than
 * this many times the slice's mean block (below, noise would pick it). */
#define BAL__LEARN_HEAVY 2.0
/* A block whose units are each predicted to cost more than 1/this of the
 * adaptive chunk's target is taken in chunks sized by the prediction. */
#define BAL__LEARN_HEAVY_UNIT 4.0
/* What one chunk costs beyond its body (clock read, take, measurement),
 * on a VM; and the longest chunk a learned call aims at. */
#define BAL__LEARN_CHUNK_COST_NS 200.0
#define BAL__LEARN_MAX_CHUNK_NS 200000

struct bal_loop {
  atomic_bool busy;            /* a call is using the handle */
  const void *pool;            /* the pool of its first call, NULL before */
  /* The profile: `blocks` blocks of `block` units (the last may be
   * shorter) over a loop of `units` units; none while blocks == 0. */
  uint32_t units, block, blocks;
  float cost[BAL__LEARN_MAX_BLOCKS];
  /* The current call's measurement, same geometry as the call's deal. */
  uint32_t m_units, m_block, m_blocks;
  double dealt_ns; /* the predicted cost the last deal split (0: none) */
  _Atomic uint64_t acc[BAL__LEARN_MAX_BLOCKS];
  bal_loop_info info;
};

_Static_assert(sizeof(struct bal_loop) <= 64 * 1024, "a loop's profile is at most 64 KiB");

struct bal_pool;

/* Before a call on `dealt` workers: set up the measurement for the call's
 * geometry and, if the loop has a profile, deal it. Returns whether it
 * dealt (segs[0 .. dealt) then hold the workers' initial ranges, as
 * segments whose `tail` is where the rotation wraps, see piece in
 * loop.c); false leaves the deal to layout.h. */
bool bal__for_learn_deal(struct bal_loop *loop, uint32_t units, uint32_t quantum, uint32_t dealt,
                         bal__for_segment *segs);

/* After a call: turn the measurement into the next profile. */
void bal__for_learn_finish(struct bal_loop *loop);

/* Add `ns` spent running loop units [at, at + len) (len >= 1) to the
 * measurement. Called by workers during the call. */
void bal__for_learn_measure(struct bal_loop *loop, uint32_t at, uint32_t len, double ns);

/* Dealt offsets [v, end) of a learned segment g begin with a run of
 * consecutive loop units: its length (>= 1) and first loop unit. The
 * segment is its slice rotated to start at loop unit tail_at: dealt
 * [begin, tail) are loop [tail_at, end), dealt [tail, end) are loop
 * [begin, tail_at). */
static inline uint32_t bal__for_learn_piece(const bal__for_segment *g, uint32_t v, uint32_t end,
                                            uint32_t *at) {
  uint32_t stop;
  if (v < g->tail) {
    *at = g->tail_at + (v - g->begin);
    stop = g->tail;
  } else {
    *at = g->begin + (v - g->tail);
    stop = g->end;
  }
  return (end < stop ? end : stop) - v;
}

/* Where a thief should cut the range [lo, hi) (dealt offsets of learned
 * segment g, grains of q units) so that its part starts with the block
 * predicted heaviest: the dealt offset of the heaviest block that starts
 * after lo, when that block costs more than BAL__LEARN_HEAVY times the
 * range's mean block; else hi (no such block: steal as usual). Walks the
 * blocks of the range (at most BAL__LEARN_MAX_BLOCKS), once per steal. */
uint32_t bal__for_learn_steal_cut(const struct bal_loop *loop, const bal__for_segment *g,
                                  uint32_t lo, uint32_t hi, uint32_t q);

/* The adaptive chunk target of the call the loop was just dealt for, on
 * `dealt` workers: the length that balances the per-chunk cost (a clock
 * read, a take, the measurement: BAL__LEARN_CHUNK_COST_NS) against the
 * work left unreachable at the end (half a chunk), sqrt(2 * cost *
 * predicted time per worker), within [floor_ns, BAL__LEARN_MAX_CHUNK_NS].
 * The predicted total is the one bal__for_learn_deal split. */
int64_t bal__for_learn_chunk_ns(const struct bal_loop *loop, uint32_t dealt, int64_t floor_ns);

/* Units of a chunk starting at loop unit `at` (at most k, at least 1):
 * k, cut before a block predicted heavy (units costing over target_ns /
 * BAL__LEARN_HEAVY_UNIT each) or, inside one, about target_ns worth
 * (adaptive chunks of a learned deal). */
uint32_t bal__for_learn_chunk(const struct bal_loop *loop, uint32_t at, uint32_t k,
                              int64_t target_ns);

#endif
