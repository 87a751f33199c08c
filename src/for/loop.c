/* bal_for(): argument checks, the initial deal (layout.h), and the loop
 * every worker runs (take from its own range, steal when dry, stop when all
 * done). */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "for/learn.h"
#include "for/pool.h"

/* Adaptive chunking (grain 0): a worker sizes the piece it takes so that one
 * body call lasts about TARGET_CHUNK_NS. The clock read per chunk (~50 ns on
 * a VM) is then < 0.5% of the work, while the only work thieves cannot
 * reach — the chunk the owner is executing — stays a few tens of
 * microseconds. Doubling/halving converges in a handful of chunks. */
#define TARGET_CHUNK_NS 20000

/* Consecutive steal rounds that find every range empty before a worker
 * stops looking for work in this call. */
#define LEAVE_AFTER_ROUNDS 4

/* How long the caller polls for the last chunks to finish before it sleeps. */
#define CALLER_SPIN_NS 20000

static inline int64_t unit_to_index(const bal__for_call *c, uint32_t u) {
  if (u >= c->units) return c->end;
  /* u * unit <= end - begin, so the sum lands in [begin, end]; unsigned
   * arithmetic avoids signed overflow for ranges that span zero. */
  return (int64_t)((uint64_t)c->begin + (uint64_t)u * c->unit);
}

/* Dealt offsets [v, end) of g begin with a run of consecutive loop offsets:
 * its length (>= 1) and first loop offset (layout.h's deal, or a learned
 * deal's rotated slice, learn.h). */
static inline uint32_t piece(const bal__for_call *c, const bal__for_segment *g, uint32_t v,
                             uint32_t end, uint32_t *at) {
  if (!c->learned) return bal__for_layout_piece(&c->layout, g, v, end, at);
  return bal__for_learn_piece(g, v, end, at);
}

/* The worker whose initial range holds dealt offset v (a learned deal). */
static const bal__for_segment *learned_origin(const bal_pool *pool, uint32_t v) {
  uint32_t lo = 0, hi = pool->call.layout.workers - 1; /* initial[0].begin = 0 <= v */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (pool->workers[mid].initial.begin <= v)
      lo = mid;
    else
      hi = mid - 1;
  }
  return &pool->workers[lo].initial;
}

/* Run the n units taken at dealt offset `first` of segment g: one body
 * call per block they cover (usually one). */
static void run_chunk(bal_pool *pool, bal__for_worker *w, const bal__for_segment *g,
                      uint32_t first, uint32_t n, int64_t *clock_ns) {
  const bal__for_call *c = &pool->call;
  for (uint32_t v = first, end = first + n; v < end;) {
    uint32_t at, len = piece(c, g, v, end, &at);
    int64_t lo = unit_to_index(c, at), hi = unit_to_index(c, at + len);
    c->body(lo, hi, c->arg);
    w->stats.items += hi - lo;
    w->stats.chunks++;
    v += len;
  }
  int64_t now = bal__now_ns();
  int64_t dt = now - *clock_ns;
  *clock_ns = now;
  w->stats.busy_seconds += (double)dt * 1e-9;
  if (c->learn) {
    /* The chunk's time, spread over the loop units it ran. */
    for (uint32_t v = first, end = first + n; v < end;) {
      uint32_t at, len = piece(c, g, v, end, &at);
      bal__for_learn_measure(c->learn, at, len, (double)dt * len / n);
      v += len;
    }
  }
  if (!c->adaptive) return;
  /* Grow only after a chunk of the full size: a shorter one (the end of a
   * range or of a laggard's block, a piece a learned profile sized) says
   * nothing about the full size, and growing after every fast short piece
   * once let one chunk take milliseconds of work no thief could reach. */
  if (dt < c->chunk_ns / 2 && n >= w->chunk_units && w->chunk_units < BAL__RANGE_MAX_TAKE / 2)
    w->chunk_units *= 2;
  else if (dt > 2 * c->chunk_ns && w->chunk_units > c->min_units)
    w->chunk_units = w->chunk_units / 2 > c->min_units ? w->chunk_units / 2 : c->min_units;
}

/* Laggards. The deal makes every worker cross every region of the loop at
 * about the same time only if they all run at the same pace. A worker that
 * joins the call late (woken from sleep: a large part of a loop of a few
 * milliseconds) or is preempted for a while holds back its blocks, and
 * without help nobody reaches them until the others have drained their
 * own ranges and steal, from the top: a costly item early in its blocks
 * then starts after about half of the loop instead of after its position's
 * share, as under a dynamic schedule, and the call ends late by the
 * difference. So at each of its own blocks a worker looks at up to
 * LAG_SCAN others; while one's next unit lies two rounds or more behind
 * its own, it takes chunks from that one's low end (one CAS each) before
 * going on with its own block. One round of slack leaves workers that
 * keep pace alone (they never touch each other's words), and keeps the
 * laggard at most about one block behind: the loop is reached in about its
 * index order whoever runs. Learned deals (slices, not rounds) and loops
 * dealt without rounds (one slice per worker) skip this. */
#define LAG_SCAN 4

/* The round of the next unit of range word `word` (a range lies inside
 * one worker's initial range, whose segment *g receives), or false when
 * the range is empty. */
static bool range_round(const bal__for_layout *L, uint64_t word, bal__for_segment *g,
                        uint32_t *round) {
  uint32_t lo = (uint32_t)word, hi = (uint32_t)(word >> 32);
  if (lo >= hi) return false;
  *g = bal__for_layout_segment(L, bal__for_layout_origin(L, lo));
  *round = bal__for_layout_round(L, g, lo);
  return true;
}

/* The worker whose next unit lies furthest behind `round`, at least two
 * rounds, among up to LAG_SCAN others from a random one; -1 if none. */
static int find_laggard(bal_pool *pool, bal__for_worker *w, uint32_t round) {
  const bal__for_layout *L = &pool->call.layout;
  int size = pool->size, best = -1, scan = size - 1 < LAG_SCAN ? size - 1 : LAG_SCAN;
  uint32_t best_round = round;
  int start = (int)bal__rng_below(&w->rng, (uint64_t)size);
  for (int k = 0, seen = 0; k < size && seen < scan; k++) {
    int v = (start + k) % size;
    if (v == w->id) continue;
    seen++;
    bal__for_segment g;
    uint32_t r;
    uint64_t word = atomic_load_explicit(&pool->ranges[v].word, memory_order_relaxed);
    if (range_round(L, word, &g, &r) && r + 1 < best_round) {
      best = v;
      best_round = r + 1;
    }
  }
  return best;
}

/* Before the owner's next take from its own range: if a laggard holds
 * units of an earlier round, run one chunk of them (up to the end of the
 * laggard's block) and return true; *done counts them. */
static bool help_laggard(bal_pool *pool, bal__for_worker *w, int64_t *clock_ns, uint64_t *done) {
  const bal__for_call *c = &pool->call;
  const bal__for_layout *L = &c->layout;
  uint64_t mine = atomic_load_explicit(&pool->ranges[w->id].word, memory_order_relaxed);
  uint32_t lo = (uint32_t)mine, hi = (uint32_t)(mine >> 32);
  if (lo >= hi) return false;
  uint32_t round = bal__for_layout_round(L, &w->seg, lo);
  if (lo >= w->next_scan) {
    /* Next at its next block; in the tail (round R), not again. */
    w->next_scan = lo < w->seg.tail ? w->seg.begin + (round + 1) * L->block : w->seg.end;
    w->lag = find_laggard(pool, w, round);
  }
  while (w->lag >= 0) {
    bal__for_range *r = &pool->ranges[w->lag];
    uint64_t old = atomic_load_explicit(&r->word, memory_order_relaxed);
    bal__for_segment g;
    uint32_t lag_round;
    if (!range_round(L, old, &g, &lag_round) || lag_round + 1 >= round) {
      w->lag = find_laggard(pool, w, round); /* caught up: any other one behind? */
      continue;
    }
    uint32_t vlo = (uint32_t)old, vhi = (uint32_t)(old >> 32);
    /* The end of its block (a laggard is never in the tail: round R). */
    uint32_t stop = g.begin + (lag_round + 1) * L->block;
    uint32_t n = (stop < vhi ? stop : vhi) - vlo;
    if (n > w->chunk_units) n = w->chunk_units / c->min_units * c->min_units;
    if (n == 0) break;
    if (!bal__for_range_take_low(r, old, n)) continue; /* its owner took, or a thief */
    run_chunk(pool, w, &g, vlo, n, clock_ns);
    *done += n;
    return true;
  }
  w->lag = -1;
  return false;
}

/* Drain the worker's own range; returns the number of units it executed.
 * Clears w->have_range once the range answered empty; an attached pool's
 * worker that is parked meanwhile stops after its current chunk with
 * have_range still set (the rest of its range stays stealable). */
static uint64_t drain_own(bal_pool *pool, bal__for_worker *w) {
  bal__for_range *mine = &pool->ranges[w->id];
  uint64_t done = 0;
  int64_t clock_ns = bal__now_ns();
  uint32_t first, n;
  const bal__for_call *c = &pool->call;
  bool helps = !c->learned && c->layout.rounds > 0;
  for (;;) {
    if (helps && help_laggard(pool, w, &clock_ns, &done)) {
      if (pool->node && bal__for_follow_tick(pool, w, clock_ns)) return done;
      continue;
    }
    uint32_t k = w->chunk_units;
    if (c->learned && c->adaptive) {
      /* Size the chunk by the profile too, so a predicted-heavy item runs
       * (and is measured) nearly alone. Only this worker moves lo (learned
       * deals take no help from the low end). */
      uint64_t word = atomic_load_explicit(&mine->word, memory_order_relaxed);
      uint32_t lo = (uint32_t)word, hi = (uint32_t)(word >> 32), at;
      if (lo < hi && lo >= w->seg.begin && lo < w->seg.end) {
        piece(c, &w->seg, lo, lo + 1, &at);
        k = bal__for_learn_chunk(c->learn, at, k, c->chunk_ns);
      }
    }
    if ((n = bal__for_range_take(mine, k, &first)) == 0) break;
    run_chunk(pool, w, &w->seg, first, n, &clock_ns);
    done += n;
    if (pool->node && bal__for_follow_tick(pool, w, clock_ns)) return done;
  }
  w->have_range = false;
  return done;
}

/* A learned deal: steal from the victim's heaviest predicted block on, if
 * one stands out (learn.h). Returns as bal__for_range_steal, 0 when no
 * block stands out. */
static int64_t steal_learned(bal_pool *pool, int victim, uint32_t *first) {
  bal__for_range *r = &pool->ranges[victim];
  uint64_t old = atomic_load_explicit(&r->word, memory_order_relaxed);
  uint32_t lo = (uint32_t)old, hi = (uint32_t)(old >> 32);
  if (lo >= hi) return 0;
  uint32_t cut = bal__for_learn_steal_cut(pool->call.learn, learned_origin(pool, lo), lo, hi,
                                          pool->call.min_units);
  if (cut >= hi) return 0;
  int64_t n = bal__for_range_steal_at(r, old, cut);
  if (n > 0) *first = cut;
  return n;
}

/* One pass over the other workers in random order. On success the stolen
 * units become this worker's range (so they can be stolen in turn); like
 * every range they lie inside one worker's initial range, whose segment
 * this worker now maps them with. */
static bool steal_round(bal_pool *pool, bal__for_worker *w) {
  int size = pool->size;
  int start = (int)bal__rng_below(&w->rng, (uint64_t)size);
  for (int k = 0; k < size; k++) {
    int victim = (start + k) % size;
    if (victim == w->id) continue;
    for (int tries = 0; tries < 4; tries++) {
      uint32_t first;
      int64_t n = pool->call.learned ? steal_learned(pool, victim, &first) : 0;
      if (n == 0) n = bal__for_range_steal(&pool->ranges[victim], pool->call.min_units, &first);
      /* A parked owner takes nothing more: its last short grain (which a
       * thief leaves to an active owner) is taken whole. */
      if (n == 0 && pool->node &&
          victim >= atomic_load_explicit(&pool->active, memory_order_acquire))
        n = bal__for_range_steal_all(&pool->ranges[victim], &first);
      if (n == 0) break;
      w->stats.steals_attempted++;
      if (n > 0) {
        w->stats.steals_won++;
        const bal__for_layout *L = &pool->call.layout;
        w->seg = pool->call.learned ? *learned_origin(pool, first)
                                    : bal__for_layout_segment(L, bal__for_layout_origin(L, first));
        bal__for_range_set(&pool->ranges[w->id], first, first + (uint32_t)n);
        w->next_scan = first; /* look for laggards from its first take */
        return true;
      }
    }
  }
  return false;
}

/* The caller (worker 0) has nothing left to take or steal: wait until the
 * others finish the pieces they are executing. Spin briefly (the tail is
 * usually one chunk, tens of microseconds), then sleep until whoever
 * reports the last units signals (report_done), instead of yielding in a
 * loop: on a shared machine a yielding caller returns a time slice late and
 * burns CPU the remaining workers could use. */
static bool waiting_over(bal_pool *pool, uint64_t orphans) {
  return atomic_load(&pool->remaining) == 0 || atomic_load(&pool->orphans) != orphans;
}

/* Returns when every unit is done, or (attached pools) when a worker that
 * was parked left a range behind after the caller last looked: the caller
 * must then go back to stealing. */
static void wait_for_completion(bal_pool *pool, uint64_t orphans) {
  int64_t deadline = bal__now_ns() + (pool->oversubscribed ? 0 : CALLER_SPIN_NS);
  for (unsigned i = 1; !waiting_over(pool, orphans); i++) {
    bal__for_cpu_relax();
    if ((i & 63) == 0 && bal__now_ns() > deadline) break;
  }
  if (waiting_over(pool, orphans)) return;
  pthread_mutex_lock(&pool->done_lock);
  /* seq_cst: pairs with wake_caller's update-then-read, so either we see
   * the update or the updater sees us waiting. */
  atomic_store(&pool->caller_waiting, true);
  while (!waiting_over(pool, orphans)) pthread_cond_wait(&pool->done_cond, &pool->done_lock);
  atomic_store(&pool->caller_waiting, false);
  pthread_mutex_unlock(&pool->done_lock);
}

static void wake_caller(bal_pool *pool) {
  if (atomic_load(&pool->caller_waiting)) {
    pthread_mutex_lock(&pool->done_lock);
    pthread_cond_signal(&pool->done_cond);
    pthread_mutex_unlock(&pool->done_lock);
  }
}

void bal__for_orphaned(bal_pool *pool) {
  atomic_fetch_add(&pool->orphans, 1);
  wake_caller(pool);
}

/* Report `done` units finished; wake the caller if they were the last. */
static void report_done(bal_pool *pool, uint64_t done) {
  if (atomic_fetch_sub(&pool->remaining, done) != done) return;
  wake_caller(pool);
}

bool bal__for_work(bal_pool *pool, int self) {
  bal__for_worker *w = &pool->workers[self];
  bool left_parked = false;
  bal__for_tls_worker_id = self;
  /* w->have_range: the caller installed this worker's initial range (or an
   * empty one if it was parked at entry). Once drained, a range must not be
   * taken from again until a steal installs a new one: every take on an
   * empty range pushes lo further past hi (see range.h). It survives a
   * worker leaving and rejoining the call. */
  for (unsigned failed_rounds = 0;;) {
    if (w->have_range) {
      uint64_t done = drain_own(pool, w);
      /* Report in batches: one contended update per range drained, not per
       * item. */
      if (done) report_done(pool, done);
      if (w->have_range) {
        /* Parked during the drain: leave. If units remain in the range,
         * make sure the caller (never parked) is not asleep past them. */
        if (bal__for_range_size(&pool->ranges[self]) != 0) bal__for_orphaned(pool);
        left_parked = true;
        break;
      }
    }
    if (atomic_load_explicit(&pool->remaining, memory_order_acquire) == 0) break;
    if (pool->node && bal__for_follow_tick(pool, w, bal__now_ns())) {
      left_parked = true;
      break;
    }
    uint64_t orphans = atomic_load(&pool->orphans);
    if (steal_round(pool, w)) {
      w->have_range = true;
      failed_rounds = 0;
      continue;
    }
    /* Every range is empty: what is left is being executed. New stealable
     * work can only reappear in the instant between a thief's CAS and its
     * installing what it stole (or, attached, when a parked worker leaves
     * its range), so a few rounds cover it; after that a background worker
     * leaves the call (freeing its CPU) and the caller waits for the
     * stragglers. */
    if (++failed_rounds < LEAVE_AFTER_ROUNDS) {
      bal__for_cpu_relax();
      continue;
    }
    if (self != 0) break;
    wait_for_completion(pool, orphans);
    if (atomic_load_explicit(&pool->remaining, memory_order_acquire) == 0) break;
    failed_rounds = 0; /* a range was left behind: steal it */
  }
  bal__for_tls_worker_id = -1;
  return left_parked;
}

int bal_for(bal_pool *pool, int64_t begin, int64_t end, int64_t grain, bal_for_body body,
            void *arg) {
  return bal__for_run(pool, begin, end, grain, body, arg, NULL);
}

int bal__for_run(bal_pool *pool, int64_t begin, int64_t end, int64_t grain, bal_for_body body,
                 void *arg, bal_loop *learn) {
  if (!pool || !body || begin > end || grain < 0) return BAL_EINVAL;
  uint64_t len = (uint64_t)end - (uint64_t)begin;
  if (len > (uint64_t)INT64_MAX) return BAL_EINVAL;
  if (len == 0) return BAL_OK;
  if (bal__for_tls_worker_id >= 0) {
    /* Nested inside a body: the pool's workers are busy (maybe with the very
     * loop that called us), so waiting for them could deadlock. */
    body(begin, end, arg);
    return BAL_OK;
  }

  pthread_mutex_lock(&pool->call_lock);
  bal__for_call *c = &pool->call;
  c->begin = begin;
  c->end = end;
  /* Loops longer than 2^31 indices are addressed in units of several
   * indices so that offsets fit in 32 bits (see range.h). */
  c->unit = len <= BAL__RANGE_MAX_UNITS ? 1 : (len + BAL__RANGE_MAX_UNITS - 1) / BAL__RANGE_MAX_UNITS;
  c->units = (uint32_t)((len + c->unit - 1) / c->unit);
  uint64_t grain_units = grain == 0 ? 1 : ((uint64_t)grain + c->unit - 1) / c->unit;
  c->min_units = (uint32_t)(grain_units < BAL__RANGE_MAX_TAKE ? grain_units : BAL__RANGE_MAX_TAKE);
  c->adaptive = grain == 0;
  c->chunk_ns = TARGET_CHUNK_NS;
  c->body = body;
  c->arg = arg;

  /* The deal: worker i starts with its blocks of every round (layout.h);
   * the initial ranges tile the dealt offsets [0, units), remainder
   * included. */
  int size = pool->size, dealt = size;
  if (pool->node) {
    /* Attached: read the mask now, so that it holds from the first chunk,
     * and deal the loop to the workers active now; the others start with
     * empty ranges and join as thieves if a grow wakes them. */
    bal__for_follow(pool, true, bal__now_ns());
    dealt = atomic_load_explicit(&pool->active, memory_order_acquire);
    if (pool->bind_node &&
        pool->workers[0].bound_version !=
            atomic_load_explicit(&pool->layout_version, memory_order_acquire))
      bal__for_rebind(pool, &pool->workers[0]);
  }
  bal__for_layout_init(&c->layout, c->units, (uint32_t)dealt, c->min_units);
  c->learn = learn;
  c->learned = false;
  if (learn) {
    /* Segments go to the workers' `initial`, which learned_origin reads. */
    bal__for_segment segs_on_stack[16];
    bal__for_segment *segs = dealt <= 16 ? segs_on_stack : malloc(sizeof *segs * (size_t)dealt);
    if (segs) {
      c->learned = bal__for_learn_deal(learn, c->units, c->min_units, (uint32_t)dealt, segs);
      if (c->learned) c->chunk_ns = bal__for_learn_chunk_ns(learn, (uint32_t)dealt, TARGET_CHUNK_NS);
      for (int i = 0; c->learned && i < dealt; i++) pool->workers[i].initial = segs[i];
      if (segs != segs_on_stack) free(segs);
    }
  }
  for (int i = 0; i < size; i++) {
    bal__for_worker *w = &pool->workers[i];
    if (i < dealt) {
      w->seg = c->learned ? w->initial : bal__for_layout_segment(&c->layout, (uint32_t)i);
      bal__for_range_set(&pool->ranges[i], w->seg.begin, w->seg.end);
    } else {
      bal__for_range_set(&pool->ranges[i], 0, 0);
    }
    w->have_range = i < dealt;
    w->next_scan = i < dealt ? w->seg.begin : 0;
    w->lag = -1;
    memset(&w->stats, 0, sizeof w->stats);
    w->chunk_units = c->min_units;
  }
  atomic_store_explicit(&pool->remaining, c->units, memory_order_relaxed);

  int64_t start_ns = bal__now_ns();
  bal__for_pool_dispatch(pool);
  pool->last_wall_seconds = (double)(bal__now_ns() - start_ns) * 1e-9;
  pool->have_stats = true;
  if (learn) bal__for_learn_finish(learn);
  pthread_mutex_unlock(&pool->call_lock);
  return BAL_OK;
}
