/* for: loops that learn from their last call (bal_for_learn). Exactly-once
 * execution under learned deals (many seeds, pool sizes 1..8, more workers
 * than CPUs, random delays, lengths and grains that change between calls),
 * the profile's memory bound, range changes, abrupt-change detection, the
 * heavy item dealt first, and misuse of a handle.
 * BALLAST_STRESS_SCALE (default 1) multiplies the number of rounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <ballast/ballast.h>

#include "core/clock.h"
#include "core/rng.h"
#include "for/learn.h"
#include "for_check.h"

/* learn.h's BAL__LEARN_DROP: a prediction error above it drops the profile. */
#define BAL_LOOP_TEST_DROP 0.05

/* Several loop sites on one pool, each called repeatedly with its own
 * costs; lengths and grains sometimes change so profiles are resampled. */
static void exactly_once_under_learning(void **state) {
  (void)state;
  for (int threads = 1; threads <= 8; threads++) {
    bal_pool *pool;
    assert_int_equal(bal_pool_create(threads, &pool), BAL_OK);
    enum { SITES = 3 };
    bal_loop *loops[SITES];
    int64_t len[SITES], begin[SITES], grain[SITES];
    bal__rng rng;
    bal__rng_seed(&rng, 0x1ea2u + (uint64_t)threads);
    for (int s = 0; s < SITES; s++) {
      assert_int_equal(bal_loop_create(&loops[s]), BAL_OK);
      len[s] = 1 + (int64_t)bal__rng_below(&rng, 30000);
      begin[s] = (int64_t)bal__rng_below(&rng, 2000000) - 1000000;
      grain[s] = s == 2 ? 1 + (int64_t)bal__rng_below(&rng, 200) : 0;
    }
    for (int call = 0; call < 12 * for_stress_scale(); call++) {
      int s = call % SITES;
      if (bal__rng_below(&rng, 5) == 0) len[s] = 1 + (int64_t)bal__rng_below(&rng, 30000);
      if (bal__rng_below(&rng, 7) == 0) begin[s] += (int64_t)bal__rng_below(&rng, 100) - 50;
      hit_map m;
      hit_map_init(&m, begin[s], begin[s] + len[s], threads);
      m.sleep_one_in = 1 + (int64_t)bal__rng_below(&rng, 30);
      m.max_sleep_ns = 1 + (int64_t)bal__rng_below(&rng, 100000);
      int rc = bal_for_learn(pool, loops[s], begin[s], begin[s] + len[s], grain[s], hit_body, &m);
      int64_t errors = hit_map_errors(&m);
      if (rc != BAL_OK || errors || atomic_load(&m.bad_worker_id))
        fail_msg("pool %d site %d call %d [%lld, +%lld) grain %lld: rc %d, %lld not once",
                 threads, s, call, (long long)begin[s], (long long)len[s], (long long)grain[s],
                 rc, (long long)errors);
      hit_map_free(&m);
    }
    bal_loop_info info;
    assert_int_equal(bal_loop_get_info(loops[0], &info), BAL_OK);
    if (threads > 1) assert_true(info.learned_calls > 0); /* the learned deal ran */
    for (int s = 0; s < SITES; s++) bal_loop_destroy(loops[s]);
    bal_pool_destroy(pool);
  }
}

/* A body whose cost sits in a few items, checked for exactly once, and
 * with grain > 0 for whole grains at multiples of the grain. */
typedef struct heavy_loop {
  hit_map map;
  int64_t heavy_at[3];   /* loop offsets of the heavy items (-1: none) */
  int64_t heavy_ns;
  int64_t light_ns;      /* per item */
  int64_t grain;         /* > 0: check every body call's alignment */
  atomic_int misaligned;
  atomic_int started[8]; /* items each worker started so far */
  atomic_int heavy_rank; /* items its worker had started before heavy_at[0] */
} heavy_loop;

static void heavy_body(int64_t begin, int64_t end, void *arg) {
  heavy_loop *h = arg;
  int64_t b = h->map.begin;
  if (h->grain > 0 && ((begin - b) % h->grain != 0 || (end - begin != h->grain && end != h->map.end)))
    atomic_fetch_add(&h->misaligned, 1);
  hit_body(begin, end, &h->map);
  int64_t ns = 0;
  for (int64_t i = begin; i < end; i++) {
    int rank = atomic_fetch_add(&h->started[bal_worker_id() & 7], 1);
    if (i - b == h->heavy_at[0]) atomic_store(&h->heavy_rank, rank);
    for (int k = 0; k < 3; k++)
      if (i - b == h->heavy_at[k]) ns += h->heavy_ns;
    ns += h->light_ns;
  }
  if (ns) bal__sleep_ns(ns);
}

static void heavy_init(heavy_loop *h, int64_t begin, int64_t len, int threads, int64_t at) {
  hit_map_init(&h->map, begin, begin + len, threads);
  h->heavy_at[0] = at;
  h->heavy_at[1] = h->heavy_at[2] = -1;
  h->heavy_ns = 0;
  h->light_ns = 0;
  h->grain = 0;
  atomic_init(&h->misaligned, 0);
  for (int w = 0; w < 8; w++) atomic_init(&h->started[w], 0);
  atomic_init(&h->heavy_rank, -1);
}

static void run_heavy(bal_pool *pool, bal_loop *loop, heavy_loop *h) {
  assert_int_equal(bal_for_learn(pool, loop, h->map.begin, h->map.end, h->grain, heavy_body, h),
                   BAL_OK);
  assert_int_equal(hit_map_errors(&h->map), 0);
  assert_int_equal(atomic_load(&h->misaligned), 0);
}

/* Learned from the first calls, the heavy item at 92% of the range starts
 * first in its worker (one-shot deals reach it late). The second call may
 * start a few light items before it: the first measured it smeared over
 * the chunk that held it. A background worker that the OS does not run for
 * a whole slice's time (TSan on a loaded machine) can have its range
 * stolen, heavy item included, before it starts: so the check asks for one
 * call of three, and deal_is_balanced_and_heavy_first checks the deal
 * itself without timing. */
static void heavy_item_starts_first(void **state) {
  (void)state;
  bal_pool *pool;
  bal_loop *loop;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  int first = 0;
  for (int call = 0; call < 5; call++) {
    heavy_loop h;
    heavy_init(&h, 100, 400, 2, 368);
    h.heavy_ns = 20000000;
    h.light_ns = 100000;
    run_heavy(pool, loop, &h);
    /* Its slice starts with it, and thieves take from the other end: it
     * is the first item its worker runs. */
    if (call > 1 && atomic_load(&h.heavy_rank) == 0) first++;
    hit_map_free(&h.map);
  }
  assert_true(first >= 1);
  bal_loop_info info;
  assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
  assert_int_equal(info.calls, 5);
  assert_int_equal(info.learned_calls, 4);
  bal_loop_destroy(loop);
  bal_pool_destroy(pool);
}

/* A loop whose first (unlearned) deal of `units` units on `workers`
 * workers set the geometry of its profile: every block costs `each`,
 * then the test sets its own costs and calls install(). */
static bal_loop *profile_loop(uint32_t units, uint32_t workers, float each,
                              bal__for_segment *segs) {
  bal_loop *loop;
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  assert_false(bal__for_learn_deal(loop, units, 1, workers, segs));
  for (uint32_t j = 0; j < loop->m_blocks; j++) loop->cost[j] = each;
  return loop;
}

/* Make the costs written into loop->cost the profile the next deal uses. */
static void install(bal_loop *loop) {
  loop->units = loop->m_units;
  loop->block = loop->m_block;
  loop->blocks = loop->m_blocks;
}

/* The deal from a given profile, without running anything: slices of
 * equal predicted cost (to within one block), tiling the range in order,
 * each starting at its heavy block when it has one. */
static void deal_is_balanced_and_heavy_first(void **state) {
  (void)state;
  enum { UNITS = 10000, WORKERS = 3 };
  /* A first deal sets the geometry: 4096 blocks max, so 3 units each. */
  bal__for_segment segs[WORKERS];
  bal_loop *loop = profile_loop(UNITS, WORKERS, 1, segs);
  uint32_t k = loop->m_blocks, s = loop->m_block;
  assert_int_equal(s, 3);
  uint32_t heavy = k * 9 / 10;
  loop->cost[heavy] = (float)(k / 4); /* a fifth of the work, inside the last slice */
  install(loop);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  double total = k - 1 + (double)(k / 4), target = total / WORKERS;
  uint32_t at = 0;
  int rotated = 0;
  for (int i = 0; i < WORKERS; i++) {
    assert_int_equal(segs[i].begin, at);
    assert_true(segs[i].end >= segs[i].begin);
    double cost = 0;
    for (uint32_t j = segs[i].begin / s; j * s < segs[i].end; j++) cost += loop->cost[j];
    /* Within one light block of the target. */
    assert_true(cost <= target + 1.0 && cost >= target - 1.0);
    if (segs[i].begin <= heavy * s && heavy * s < segs[i].end) {
      assert_true(heavy * s > segs[i].begin);       /* inside the slice, */
      assert_int_equal(segs[i].tail_at, heavy * s); /* which starts at it */
      assert_int_equal(segs[i].tail, segs[i].begin + (segs[i].end - heavy * s));
      rotated++;
    } else {
      assert_int_equal(segs[i].tail, segs[i].end); /* light slices keep their order */
    }
    at = segs[i].end;
  }
  assert_int_equal(at, UNITS);
  assert_int_equal(rotated, 1);
  bal_loop_destroy(loop);
}

/* Two heavy items side by side (block's three 124 ms items, measured a
 * little apart): the slice that holds them starts at the first, not at
 * the one measured heavier, or the first would run last of its slice. */
static void a_heavy_run_starts_at_its_head(void **state) {
  (void)state;
  enum { UNITS = 150, WORKERS = 2 };
  bal__for_segment segs[WORKERS];
  bal_loop *loop = profile_loop(UNITS, WORKERS, 1.55f, segs);
  assert_int_equal(loop->m_block, 1);
  loop->cost[90] = 124.1f;
  loop->cost[91] = 124.1f;
  loop->cost[92] = 124.2f; /* the noise that picked it */
  install(loop);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  /* Half the cost is 300.1: slice 0 is [0, 91) (263.6), slice 1 [91, 150)
   * (336.6). Each starts at its heavy run's head: 90, and 91 (its first
   * block: no rotation), not 92. */
  assert_int_equal(segs[0].begin, 0);
  assert_int_equal(segs[0].end, 91);
  assert_int_equal(segs[0].tail_at, 90);
  assert_int_equal(segs[1].begin, 91);
  assert_int_equal(segs[1].tail_at, 91);
  assert_int_equal(segs[1].tail, segs[1].end);
  bal_loop_destroy(loop);
}

/* Where a thief cuts a learned range: at the block predicted heaviest
 * after the owner's next one, when it stands out, so that it starts now
 * instead of after the light items before it; else nowhere special. The
 * profile is one unit per block, a slice rotated to its heaviest block and
 * a second heavy block near the slice's end (as lognorm's 150 items
 * are). */
static void thief_cuts_at_the_heaviest_block(void **state) {
  (void)state;
  enum { UNITS = 150, WORKERS = 2 };
  bal__for_segment segs[WORKERS];
  bal_loop *loop = profile_loop(UNITS, WORKERS, 1, segs);
  assert_int_equal(loop->m_block, 1);
  loop->cost[91] = 250; /* rotated to the front of its slice */
  loop->cost[147] = 60;
  loop->cost[20] = 30;  /* in the first slice, ahead of its rotation point */
  loop->cost[10] = 40;
  install(loop);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  /* Find the dealt offset of loop unit u in segment g. */
  for (int i = 0; i < WORKERS; i++) {
    const bal__for_segment *g = &segs[i];
    uint32_t heavy2 = UINT32_MAX, first_at;
    bal__for_learn_piece(g, g->begin, g->end, &first_at);
    for (uint32_t v = g->begin; v < g->end; v++) {
      uint32_t at;
      bal__for_learn_piece(g, v, v + 1, &at);
      if (at == 147 || (at == 20 && first_at == 10)) heavy2 = v;
    }
    /* The owner took its first (heaviest) block: the thief's part starts
     * at the second heaviest block of what is left. */
    uint32_t cut = bal__for_learn_steal_cut(loop, g, g->begin + 1, g->end, 1);
    if (first_at == 91) assert_int_equal(cut, heavy2);
    if (first_at == 10) assert_int_equal(cut, heavy2);
    /* A range of light blocks only: no cut, the usual half. */
    if (heavy2 != UINT32_MAX) assert_int_equal(bal__for_learn_steal_cut(loop, g, heavy2 + 1, g->end, 1), g->end);
  }
  /* Whole grains from lo: with a grain of 4, the cut is rounded down. */
  uint32_t at;
  const bal__for_segment *g = segs[0].begin <= 147 && 147 < segs[0].end ? &segs[0] : &segs[1];
  bal__for_learn_piece(g, g->begin, g->begin + 1, &at);
  assert_int_equal(at, 91);
  uint32_t cut = bal__for_learn_steal_cut(loop, g, g->begin + 2, g->end, 4);
  assert_int_equal((cut - (g->begin + 2)) % 4, 0);
  assert_true(cut <= g->begin + (147 - 91) && cut > g->begin + (147 - 91) - 4);
  bal_loop_destroy(loop);
}

/* A profile that predicts a long run of heavy blocks where the items are
 * light: the worker takes them in one-unit pieces, each far under the
 * chunk target. Those fast short pieces must not grow its adaptive chunk:
 * they once doubled it at every piece, so that the light region after
 * them went in one body call of thousands of items (milliseconds no thief
 * could reach). Items cost ~1 us each here, so a chunk needs only ~16;
 * load only shrinks chunks (they halve on slow calls). */
enum { MIS_UNITS = 40960 };
static atomic_long mis_longest;
static void light_body(int64_t begin, int64_t end, void *arg) {
  (void)arg;
  for (int64_t i = begin; i < end; i++) {
    int64_t until = bal__now_ns() + 1000;
    while (bal__now_ns() < until) {
    }
  }
  long len = (long)(end - begin), seen = atomic_load(&mis_longest);
  while (len > seen && !atomic_compare_exchange_weak(&mis_longest, &seen, len)) {
  }
}

static void mispredicted_heavy_blocks_keep_chunks_short(void **state) {
  (void)state;
  bal_pool *pool;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  bal_loop *loop;
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  /* The profile's geometry for this length: 4096 blocks of 10 units. */
  loop->units = MIS_UNITS;
  loop->block = 10;
  loop->blocks = 4096;
  for (uint32_t j = 0; j < 4096; j++) loop->cost[j] = j >= 100 && j < 200 ? 1e6f : 1e4f;
  atomic_store(&mis_longest, 0);
  assert_int_equal(bal_for_learn(pool, loop, 0, MIS_UNITS, 0, light_body, NULL), BAL_OK);
  bal_loop_info info;
  assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
  assert_int_equal(info.learned_calls, 1); /* it was dealt by that profile */
  long longest = atomic_load(&mis_longest);
  if (longest > 256) fail_msg("a body call ran %ld items of ~1 us (at most 256 expected)", longest);
  bal_loop_destroy(loop);
  bal_pool_destroy(pool);
}

/* Costs that move abruptly are detected by the first call on them (a
 * drop: its measurement replaces the profile), and two calls later the
 * profile predicts again. The first call on costs it never saw measures a
 * heavy item smeared over the chunk that held it (the chunk was sized for
 * light items); the next, whose chunks the profile sizes, sharpens it,
 * which may count as one more drop. */
static void abrupt_change_is_dropped(void **state) {
  (void)state;
  bal_pool *pool;
  bal_loop *loop;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  int64_t at[] = {60, 60, 60, 340, 340, 340};
  bal_loop_info info;
  int64_t drops_before = 0;
  for (int call = 0; call < 6; call++) {
    heavy_loop h;
    heavy_init(&h, 0, 400, 2, at[call]);
    h.heavy_ns = 15000000; /* light items cost next to nothing */
    run_heavy(pool, loop, &h);
    hit_map_free(&h.map);
    assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
    if (getenv("BALLAST_TEST_VERBOSE"))
      printf("call %d: error %.3f drops %lld\n", call, info.last_error, (long long)info.drops);
    if (call == 2) {
      assert_true(info.last_error < BAL_LOOP_TEST_DROP);
      drops_before = info.drops;
    }
    if (call == 3) {
      assert_true(info.last_error > BAL_LOOP_TEST_DROP);
      assert_int_equal(info.drops, drops_before + 1);
    }
  }
  assert_true(info.last_error < BAL_LOOP_TEST_DROP);
  bal_loop_destroy(loop);
  bal_pool_destroy(pool);
}

/* Loops twice and four times as long with their heavy items at the same
 * relative places are predicted by the resampled profile (no drop); the
 * grain's alignment holds. */
static void range_change_maps_the_profile(void **state) {
  (void)state;
  bal_pool *pool;
  bal_loop *loop;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  int64_t lens[] = {300, 300, 300, 600, 600, 1205};
  int64_t drops_before = 0;
  for (int call = 0; call < 6; call++) {
    heavy_loop h;
    /* Close together: a sleep that overshoots on a loaded machine moves
     * work only between them, not far. */
    heavy_init(&h, -50, lens[call], 2, lens[call] * 3 / 4);
    h.heavy_at[1] = lens[call] * 7 / 10;
    h.heavy_ns = 10000000; /* light items cost next to nothing */
    h.grain = call == 5 ? 4 : 0;
    run_heavy(pool, loop, &h);
    hit_map_free(&h.map);
    bal_loop_info info;
    assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
    if (getenv("BALLAST_TEST_VERBOSE"))
      printf("call %d: error %.3f drops %lld\n", call, info.last_error, (long long)info.drops);
    assert_int_equal(info.learned_calls, call);
    if (call == 2) drops_before = info.drops;
    if (call > 2) {
      assert_int_equal(info.drops, drops_before);
      assert_true(info.last_error >= 0 && info.last_error < BAL_LOOP_TEST_DROP);
    }
  }
  bal_loop_destroy(loop);
  bal_pool_destroy(pool);
}

static void noop_body(int64_t begin, int64_t end, void *arg) {
  (void)begin, (void)end, (void)arg;
}

/* The profile's memory does not grow with the range. */
static void memory_is_bounded(void **state) {
  (void)state;
  bal_pool *pool;
  bal_loop *loop;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  int64_t lens[] = {1, 10, 100000, INT64_C(1) << 40, INT64_MAX};
  for (int i = 0; i < 5; i++) {
    int64_t begin = i == 4 ? INT64_MIN : 0;
    assert_int_equal(bal_for_learn(pool, loop, begin, begin + lens[i], 0, noop_body, NULL), BAL_OK);
    bal_loop_info info;
    assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
    assert_true(info.bytes <= 64 * 1024);
    assert_true(info.blocks <= 4096);
  }
  bal_loop_destroy(loop);
  bal_pool_destroy(pool);
}

/* Misuse: NULL handle, another pool, a handle busy in another call. */
typedef struct busy_probe {
  bal_pool *pool;
  bal_loop *loop;
  atomic_int stage; /* 1: the long call is running; 2: the probe is done */
  int probe_rc, nested_rc, reset_rc;
} busy_probe;

static void waiting_body(int64_t begin, int64_t end, void *arg) {
  busy_probe *p = arg;
  (void)end;
  if (begin != 0) return;
  /* Nested on the same handle from inside its own call: busy too. */
  p->nested_rc = bal_for_learn(p->pool, p->loop, 0, 10, 0, noop_body, NULL);
  atomic_store(&p->stage, 1);
  while (atomic_load(&p->stage) != 2) bal__sleep_ns(100000);
}

static void *prober(void *arg) {
  busy_probe *p = arg;
  while (atomic_load(&p->stage) != 1) bal__sleep_ns(100000);
  p->probe_rc = bal_for_learn(p->pool, p->loop, 0, 100, 0, noop_body, NULL);
  p->reset_rc = bal_loop_reset(p->loop);
  atomic_store(&p->stage, 2);
  return NULL;
}

static void misuse_gets_error_codes(void **state) {
  (void)state;
  bal_pool *pool, *other;
  bal_loop *loop;
  assert_int_equal(bal_pool_create(2, &pool), BAL_OK);
  assert_int_equal(bal_pool_create(2, &other), BAL_OK);
  assert_int_equal(bal_loop_create(&loop), BAL_OK);
  assert_int_equal(bal_loop_create(NULL), BAL_EINVAL);
  assert_int_equal(bal_for_learn(pool, NULL, 0, 10, 0, noop_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_loop_reset(NULL), BAL_EINVAL);
  bal_loop_info info;
  assert_int_equal(bal_loop_get_info(NULL, &info), BAL_EINVAL);
  assert_int_equal(bal_loop_get_info(loop, NULL), BAL_EINVAL);
  /* Bad arguments bind nothing: the handle still takes any pool. */
  assert_int_equal(bal_for_learn(other, loop, 10, 0, 0, noop_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_for_learn(pool, loop, 0, 10, 0, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_for_learn(pool, loop, 0, 1000, 0, noop_body, NULL), BAL_OK);
  assert_int_equal(bal_for_learn(other, loop, 0, 1000, 0, noop_body, NULL), BAL_EINVAL);
  assert_int_equal(bal_loop_reset(loop), BAL_OK);
  assert_int_equal(bal_for_learn(other, loop, 0, 1000, 0, noop_body, NULL), BAL_OK);
  assert_int_equal(bal_loop_reset(loop), BAL_OK);

  busy_probe p = {.pool = pool, .loop = loop};
  atomic_init(&p.stage, 0);
  pthread_t tid;
  assert_int_equal(pthread_create(&tid, NULL, prober, &p), 0);
  assert_int_equal(bal_for_learn(pool, loop, 0, 2, 1, waiting_body, &p), BAL_OK);
  pthread_join(tid, NULL);
  assert_int_equal(p.nested_rc, BAL_EBUSY);
  assert_int_equal(p.probe_rc, BAL_EBUSY);
  assert_int_equal(p.reset_rc, BAL_EBUSY);
  assert_int_equal(bal_loop_get_info(loop, &info), BAL_OK);
  assert_int_equal(info.calls, 1);
  bal_loop_destroy(loop);
  bal_loop_destroy(NULL);
  bal_pool_destroy(other);
  bal_pool_destroy(pool);
}

/* The chunk target of a learned call (from the total its deal split)
 * grows with the predicted time per worker (sqrt(2 * per-chunk cost *
 * time)), never below the one-shot target nor above the cap. */
static void chunk_target_follows_the_predicted_time(void **state) {
  (void)state;
  enum { UNITS = 8192, WORKERS = 2 };
  bal__for_segment segs[WORKERS];
  /* 1 ns per block: far below the floor. */
  bal_loop *loop = profile_loop(UNITS, WORKERS, 1, segs);
  install(loop);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  assert_int_equal(bal__for_learn_chunk_ns(loop, WORKERS, 20000), 20000);
  /* 50 ms per worker: sqrt(2 * cost * 5e7). */
  for (uint32_t j = 0; j < loop->blocks; j++) loop->cost[j] = (float)(1e8 / loop->blocks);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  double want = sqrt(2.0 * BAL__LEARN_CHUNK_COST_NS * 5e7);
  int64_t got = bal__for_learn_chunk_ns(loop, WORKERS, 20000);
  assert_true(got > 20000 && fabs((double)got - want) < 0.01 * want);
  /* Twice the workers: a shorter time each, a shorter chunk. */
  assert_true(bal__for_learn_chunk_ns(loop, 2 * WORKERS, 20000) < got);
  /* 100 s per worker: the cap. */
  for (uint32_t j = 0; j < loop->blocks; j++) loop->cost[j] = (float)(2e11 / loop->blocks);
  assert_true(bal__for_learn_deal(loop, UNITS, 1, WORKERS, segs));
  assert_int_equal(bal__for_learn_chunk_ns(loop, WORKERS, 20000), BAL__LEARN_MAX_CHUNK_NS);
  bal_loop_destroy(loop);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exactly_once_under_learning),
      cmocka_unit_test(heavy_item_starts_first),
      cmocka_unit_test(deal_is_balanced_and_heavy_first),
      cmocka_unit_test(a_heavy_run_starts_at_its_head),
      cmocka_unit_test(thief_cuts_at_the_heaviest_block),
      cmocka_unit_test(mispredicted_heavy_blocks_keep_chunks_short),
      cmocka_unit_test(abrupt_change_is_dropped),
      cmocka_unit_test(range_change_maps_the_profile),
      cmocka_unit_test(memory_is_bounded),
      cmocka_unit_test(misuse_gets_error_codes),
      cmocka_unit_test(chunk_target_follows_the_predicted_time),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
