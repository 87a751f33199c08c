/* Loops that learn from their last call: the handle, the profile-driven
 * deal and the update after each call. Design: learn.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "for/learn.h"
#include "for/pool.h"

int bal_loop_create(bal_loop **out) {
  if (!out) return BAL_EINVAL;
  bal_loop *loop = calloc(1, sizeof *loop);
  if (!loop) return BAL_ENOMEM;
  atomic_init(&loop->busy, false);
  loop->info.bytes = (int64_t)sizeof *loop;
  loop->info.last_error = -1;
  *out = loop;
  return BAL_OK;
}

void bal_loop_destroy(bal_loop *loop) { free(loop); }

static bool acquire(bal_loop *loop) {
  return !atomic_exchange_explicit(&loop->busy, true, memory_order_acquire);
}

static void release(bal_loop *loop) {
  atomic_store_explicit(&loop->busy, false, memory_order_release);
}

int bal_loop_reset(bal_loop *loop) {
  if (!loop) return BAL_EINVAL;
  if (!acquire(loop)) return BAL_EBUSY;
  loop->pool = NULL;
  loop->blocks = 0;
  memset(&loop->info, 0, sizeof loop->info);
  loop->info.bytes = (int64_t)sizeof *loop;
  loop->info.last_error = -1;
  release(loop);
  return BAL_OK;
}

int bal_loop_get_info(bal_loop *loop, bal_loop_info *out) {
  if (!loop || !out) return BAL_EINVAL;
  if (!acquire(loop)) return BAL_EBUSY;
  *out = loop->info;
  release(loop);
  return BAL_OK;
}

int bal_for_learn(bal_pool *pool, bal_loop *loop, int64_t begin, int64_t end, int64_t grain,
                  bal_for_body body, void *arg) {
  if (!loop) return BAL_EINVAL;
  if (!acquire(loop)) return BAL_EBUSY;
  int rc = BAL_EINVAL;
  if (!loop->pool || loop->pool == pool) {
    rc = bal__for_run(pool, begin, end, grain, body, arg, loop);
    /* Bound only by a call that was accepted. */
    if (rc == BAL_OK && pool) loop->pool = pool;
  }
  release(loop);
  return rc;
}

/* Units per block for a loop of u units dealt in grains of q: whole
 * grains, few enough blocks to fit the handle. */
static uint32_t block_units(uint32_t u, uint32_t q) {
  uint64_t s = ((uint64_t)u + BAL__LEARN_MAX_BLOCKS - 1) / BAL__LEARN_MAX_BLOCKS;
  s = (s + q - 1) / q * q;
  return s ? (uint32_t)s : q;
}

/* Map the profile onto `blocks` blocks of `block` units over `units` units,
 * by relative position, assuming each old block's cost is spread evenly
 * over it. Written into acc (scratch here), then back into cost. */
static void resample(bal_loop *loop, uint32_t units, uint32_t block, uint32_t blocks) {
  double old_u = loop->units, new_u = units;
  uint32_t i = 0;
  for (uint32_t j = 0; j < blocks; j++) {
    /* New block j, as a fraction of the range: [lo, hi). */
    double lo = (double)j * block / new_u;
    double hi = fmin((double)(j + 1) * block, new_u) / new_u, sum = 0;
    while (i < loop->blocks) {
      double olo = (double)i * loop->block / old_u;
      double ohi = fmin((double)(i + 1) * loop->block, old_u) / old_u;
      double a = fmax(lo, olo), b = fmin(hi, ohi);
      if (b > a && ohi > olo) sum += loop->cost[i] * (b - a) / (ohi - olo);
      if (ohi > hi) break; /* old block i reaches into the next new block */
      i++;
    }
    atomic_store_explicit(&loop->acc[j], (uint64_t)llround(sum), memory_order_relaxed);
  }
  for (uint32_t j = 0; j < blocks; j++)
    loop->cost[j] = (float)atomic_load_explicit(&loop->acc[j], memory_order_relaxed);
  loop->units = units;
  loop->block = block;
  loop->blocks = blocks;
}

bool bal__for_learn_deal(bal_loop *loop, uint32_t units, uint32_t quantum, uint32_t dealt,
                         bal__for_segment *segs) {
  uint32_t s = block_units(units, quantum);
  uint32_t k = (uint32_t)(((uint64_t)units + s - 1) / s);
  bool dealt_here = false;
  if (loop->blocks && (loop->units != units || loop->block != s || loop->blocks != k))
    resample(loop, units, s, k);
  double total = 0;
  for (uint32_t j = 0; j < loop->blocks; j++) total += loop->cost[j];
  loop->dealt_ns = 0;
  if (loop->blocks && total > 0 && dealt > 1) {
    loop->dealt_ns = total;
    /* Slice i ends at the block boundary whose prefix cost is nearest to
     * (i + 1) * total / dealt. */
    uint32_t j = 0, first = 0;
    double prefix = 0;
    for (uint32_t i = 0; i < dealt; i++) {
      uint32_t stop = k;
      if (i + 1 < dealt) {
        double target = total * (i + 1) / dealt;
        while (j < k && prefix + loop->cost[j] <= target) prefix += loop->cost[j++];
        /* Block j straddles the target: take it if that lands closer. */
        if (j < k && prefix + loop->cost[j] - target < target - prefix) prefix += loop->cost[j++];
        stop = j;
      }
      uint32_t heavy = first;
      double sum = 0;
      for (uint32_t b = first; b < stop; b++) {
        sum += loop->cost[b];
        if (loop->cost[b] > loop->cost[heavy]) heavy = b;
      }
      /* Start at the head of the heavy run holding the heaviest block:
       * a heavy region (or two equal items) spans several blocks, and
       * rotating to its costliest block alone would leave the blocks of
       * the run before it to the very end of the slice (two 124 ms items
       * side by side: the first ran last, 1.14 x the ideal call). */
      double heavy_cost = BAL__LEARN_HEAVY * sum / (stop - first);
      while (heavy > first && loop->cost[heavy - 1] > heavy_cost) heavy--;
      uint32_t a = first * s, e = stop == k ? units : stop * s;
      /* A grain that ends the loop short must stay last in dealt order,
       * or the takes after it would no longer start at whole grains. */
      bool keep_order = heavy == first || (e == units && units % quantum != 0) ||
                        loop->cost[heavy] <= heavy_cost;
      uint32_t h = keep_order ? a : heavy * s;
      segs[i].origin = i;
      segs[i].begin = a;
      segs[i].end = e;
      segs[i].tail = a + (e - h); /* dealt offsets from here wrap to a */
      segs[i].tail_at = h;
      first = stop;
    }
    dealt_here = true;
    loop->info.learned_calls++;
  }
  loop->m_units = units;
  loop->m_block = s;
  loop->m_blocks = k;
  for (uint32_t j = 0; j < k; j++) atomic_store_explicit(&loop->acc[j], 0, memory_order_relaxed);
  return dealt_here;
}

void bal__for_learn_measure(bal_loop *loop, uint32_t at, uint32_t len, double ns) {
  uint32_t s = loop->m_block, b0 = at / s, b1 = (at + len - 1) / s;
  if (b0 == b1) {
    atomic_fetch_add_explicit(&loop->acc[b0], (uint64_t)llround(ns), memory_order_relaxed);
    return;
  }
  double per = ns / len;
  uint32_t head = (b0 + 1) * s - at, tail = at + len - b1 * s;
  atomic_fetch_add_explicit(&loop->acc[b0], (uint64_t)llround(per * head), memory_order_relaxed);
  uint64_t whole = (uint64_t)llround(per * s);
  /* Covered whole by this chunk: no other worker writes these blocks. */
  for (uint32_t b = b0 + 1; b < b1; b++)
    atomic_store_explicit(&loop->acc[b],
                          atomic_load_explicit(&loop->acc[b], memory_order_relaxed) + whole,
                          memory_order_relaxed);
  atomic_fetch_add_explicit(&loop->acc[b1], (uint64_t)llround(per * tail), memory_order_relaxed);
}

/* How far the prediction was from what the call measured: the earth
 * mover's distance between the two normalised profiles, with the range as
 * [0, 1] (the share of the work that moved times how far it moved; the
 * integral of the distance between their cumulative shares). The deal cuts
 * the range at quantiles of the predicted cumulative cost, so this is what
 * a wrong prediction costs it; a heavy item measured smeared over a few
 * neighbouring units barely moves it, unlike a per-region comparison. */
static double distance(const bal_loop *loop, double predicted, double measured) {
  double d = 0, cp = 0, cm = 0;
  uint32_t k = loop->m_blocks, s = loop->m_block;
  for (uint32_t j = 0; j < k; j++) {
    cp += loop->cost[j] / predicted;
    cm += (double)atomic_load_explicit(&loop->acc[j], memory_order_relaxed) / measured;
    uint32_t len = j + 1 == k ? loop->m_units - j * s : s;
    d += fabs(cp - cm) * len;
  }
  return d / loop->m_units;
}

void bal__for_learn_finish(bal_loop *loop) {
  uint32_t k = loop->m_blocks;
  double measured = 0, predicted = 0;
  for (uint32_t j = 0; j < k; j++)
    measured += (double)atomic_load_explicit(&loop->acc[j], memory_order_relaxed);
  bool had = loop->blocks == k && loop->block == loop->m_block;
  if (had)
    for (uint32_t j = 0; j < k; j++) predicted += loop->cost[j];
  loop->info.calls++;
  if (measured <= 0) return; /* nothing measurable: keep what we had */
  bool keep_old = false;
  loop->info.last_error = -1;
  if (had && predicted > 0) {
    double d = distance(loop, predicted, measured);
    loop->info.last_error = d;
    if (d > BAL__LEARN_DROP)
      loop->info.drops++;
    else
      keep_old = true;
  }
  for (uint32_t j = 0; j < k; j++) {
    double m = (double)atomic_load_explicit(&loop->acc[j], memory_order_relaxed);
    /* Averaged in proportion, so a loop that got faster overall does not
     * mix two scales. */
    loop->cost[j] = (float)(keep_old ? (m + loop->cost[j] * measured / predicted) / 2 : m);
  }
  loop->units = loop->m_units;
  loop->block = loop->m_block;
  loop->blocks = k;
  loop->info.blocks = k;
}

uint32_t bal__for_learn_steal_cut(const bal_loop *loop, const bal__for_segment *g, uint32_t lo,
                                  uint32_t hi, uint32_t q) {
  uint32_t s = loop->block, cut = hi, nblocks = 0;
  double total = 0, heaviest = 0;
  for (uint32_t v = lo; v < hi;) {
    uint32_t at, len = bal__for_learn_piece(g, v, hi, &at);
    for (uint32_t b = at / s; b < loop->blocks && (uint64_t)b * s < (uint64_t)at + len; b++) {
      uint32_t b_lo = b * s, b_hi = b + 1 == loop->blocks ? loop->units : b_lo + s;
      uint32_t from = b_lo > at ? b_lo : at, to = b_hi < at + len ? b_hi : at + len;
      total += loop->cost[b] * (double)(to - from) / (double)(b_hi - b_lo);
      nblocks++;
      uint32_t dealt = v + (b_lo - at); /* where block b starts, if inside this run */
      if (b_lo > at && dealt > lo && loop->cost[b] > heaviest) {
        heaviest = loop->cost[b];
        cut = dealt;
      }
    }
    v += len;
  }
  if (cut >= hi || heaviest <= BAL__LEARN_HEAVY * total / nblocks) return hi;
  cut = lo + (cut - lo) / q * q; /* whole grains from lo, as every cut */
  return cut > lo ? cut : hi;
}

int64_t bal__for_learn_chunk_ns(const bal_loop *loop, uint32_t dealt, int64_t floor_ns) {
  double t = sqrt(2.0 * BAL__LEARN_CHUNK_COST_NS * loop->dealt_ns / (dealt ? dealt : 1));
  if (!(t > (double)floor_ns)) return floor_ns;
  return t < BAL__LEARN_MAX_CHUNK_NS ? (int64_t)t : BAL__LEARN_MAX_CHUNK_NS;
}

uint32_t bal__for_learn_chunk(const bal_loop *loop, uint32_t at, uint32_t k, int64_t target_ns) {
  uint32_t s = loop->block, n = 0;
  /* Only blocks whose units are predicted to cost a sizeable part of the
   * target each (a heavy item, or one measured smeared over its chunk)
   * shape the chunk: it stops before such a block, and within one takes
   * about target_ns worth. Elsewhere the adaptive size stands, so a block
   * that merely looked slow once (the worker was preempted) costs nothing.
   * The walk covers at most the blocks that k units span. */
  for (uint32_t b = at / s; b < loop->blocks && n < k; b++) {
    uint32_t b_end = b + 1 == loop->blocks ? loop->units : (b + 1) * s;
    uint32_t r = b_end - (at + n);
    if (r > k - n) r = k - n;
    double per = loop->cost[b] / (double)(b_end - b * s);
    if (per * BAL__LEARN_HEAVY_UNIT >= (double)target_ns) {
      if (n > 0) return n; /* the heavy block starts a chunk of its own */
      double want = ceil((double)target_ns / per);
      return want < 1 ? 1 : want < (double)r ? (uint32_t)want : r;
    }
    n += r;
  }
  return n < 1 ? 1 : n > k ? k : n;
}
