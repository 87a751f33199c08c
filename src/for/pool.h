/* Private: the state of a `for` pool, shared by the files of the module (a
 * parallel loop balanced by lock-free work stealing on index ranges):
 *   pool.c    public API of pools: create (size from BALLAST_NUM_THREADS or
 *             the CPUs, placement from BALLAST_BIND), destroy, size; the
 *             background threads, how they wait for a call, join and leave
 *             it (bal__for_pool_dispatch)
 *   loop.c    bal_for(): argument checks, the initial deal, and the loop
 *             every worker runs (bal__for_work): take, steal, finish
 *   layout.h  the deal: which blocks of the loop each worker starts with,
 *             and which loop indices an offset of a range names
 *   range.h   one worker's remaining range in one atomic word: the owner's
 *             take (fetch_add) and the thief's half (CAS)
 *   follow.c  pools attached to a node registry (ballast/node.h): one
 *             shared attachment per process, polling, adopting a new mask
 *             (active workers, rebinding)
 *   bind.c    BALLAST_BIND placement of background workers (hwloc if
 *             present, bind.h)
 *   stats.c   bal_for_last_stats()
 *   steer.c   where a background worker that slept wakes up: on a CPU
 *             other than the caller's (steer.h)
 *   learn.c   bal_for_learn() and its bal_loop: a per-loop-site cost
 *             profile, measured per chunk, that deals the next call
 *             (learn.h)
 *
 * The life of one index range. bal_for(pool, begin, end, grain, body, arg)
 * (loop.c) takes call_lock, so calls on one pool run one at a time, and
 * writes the call: [begin, end) in units (one index per unit, several when
 * the loop exceeds 2^31 indices), the smallest piece (the grain, or one
 * unit when grain 0 asks for adaptive chunks). An attached pool first polls
 * its registry (bal__for_follow, follow.c) so the loop is dealt to the
 * workers active now. bal__for_layout_init (layout.h) cuts the units into
 * blocks dealt in rounds, and each worker's blocks become its initial range
 * in ranges[] (range.h), `remaining` counting every unit.
 * bal__for_pool_dispatch (pool.c) opens the call and wakes the background
 * workers, which join it (join_call) while the caller works as worker 0.
 * Every worker runs bal__for_work: it drains its own range from the low end
 * (bal__for_range_take) in chunks of the grain or, with grain 0, chunks
 * sized so that one body call lasts about 20 us (run_chunk), mapping each
 * chunk to loop indices one block at a time (bal__for_layout_piece). At
 * each of its blocks it looks at the others' progress: while one lags two
 * rounds or more behind (late to wake, preempted, or slowed by costly
 * items), it first takes chunks from that one's low end (help_laggard), so
 * the loop is still reached in about its index order. When it runs dry it
 * steals
 * (steal_round): the upper half of a random victim's range in one CAS
 * (bal__for_range_steal), which becomes the thief's own range and can be
 * stolen again. Finished units are subtracted from `remaining` once per
 * range drained. After a few rounds that find every range empty a
 * background worker leaves the call; the caller waits (wait_for_completion)
 * until `remaining` is 0, then closes the call and waits for the last
 * participants to leave, so the call's state can be reused.
 *
 * The node mask. An attached pool (bal_pool_config.node, or BALLAST_NODE=1)
 * polls its registry at bal_for() entry and, inside a call, between chunks
 * at most every BAL__FOR_POLL_INTERVAL_NS (bal__for_follow_tick). A new mask
 * sets `active` (workers [active, size) park, the others run) and bumps
 * layout_version, so workers rebind within the mask on a real-CPU registry.
 * A worker parked in the middle of a call leaves its range behind for
 * the thieves, who take it whole, last short grain included, since its
 * owner takes nothing more (bal__for_range_steal_all); a grow wakes parked
 * workers, which join the running call as thieves, and moves the epoch, so
 * that a worker made inactive outside a call (it waits for an epoch, not
 * in park()) joins the running call too. A worker that left a
 * call parked goes through park() before it waits for another call, so a
 * grow that came meanwhile brings it back into the running call, to its
 * range; and the thread that adopts a shrink wakes the caller if a newly
 * parked worker, already out of the call, still holds units
 * (bal__for_orphaned), so that the caller steals them whole. Either way
 * the caller never sleeps past a range only its parked owner could take. */
#ifndef BALLAST_FOR_POOL_H
#define BALLAST_FOR_POOL_H

#include <ballast/for.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/rng.h"
#include "for/bind.h"
#include "for/layout.h"
#include "for/range.h"

/* High bit of bal_pool.participants: the current call accepts no more
 * workers (it is finishing, or there is no call). */
#define BAL__CALL_CLOSED (UINT64_C(1) << 63)

/* One bal_for() call, as every participating worker sees it. Written by the
 * caller before the call opens, read-only while it is open. */
typedef struct bal__for_call {
  int64_t begin, end;  /* the index range */
  uint64_t unit;       /* indices per unit (1 unless the loop exceeds 2^31) */
  uint32_t units;      /* number of units in the loop */
  uint32_t min_units;  /* smallest piece taken or stolen, in units (>= 1) */
  bool adaptive;       /* grain 0: chunk sizes follow measured body cost */
  int64_t chunk_ns;    /* adaptive chunks aim at this many ns of body time */
  bal__for_layout layout; /* the initial deal, in units of min_units */
  struct bal_loop *learn; /* bal_for_learn(): measure into it (else NULL) */
  bool learned;           /* dealt by its profile: workers' segments are
                           * rotated slices (learn.h), not layout.h's */
  bal_for_body body;
  void *arg;
} bal__for_call;

/* Per-worker private state; one cache line apart from the others. */
typedef struct bal__for_worker {
  _Alignas(64) bal_for_stats stats; /* written by this worker during a call */
  bal__rng rng;                     /* victim selection */
  uint32_t chunk_units;             /* current adaptive chunk size */
  bal__for_segment seg;             /* initial range its current range lies in */
  bal__for_segment initial;         /* its own initial range (learned deals) */
  bool have_range;                  /* its range may still be taken from (range.h) */
  uint32_t next_scan;               /* own dealt offset where it next looks for laggards */
  int lag;                          /* a worker found rounds behind (loop.c), or -1 */
  uint64_t bound_version;           /* attached pools: the layout_version it is bound for */
  int id;
  struct bal_pool *pool;
  pthread_t thread;
  cpu_set_t *cpus; /* where to bind this background worker, or NULL */
  /* Steering a sleeping worker's wake-up (steer.h). */
  atomic_bool asleep;  /* waiting on wake_cond */
  atomic_bool steered; /* given one CPU by the dispatcher: restore `home` */
  bool home_valid;     /* `home` was read and holds more than one CPU */
  cpu_set_t home;      /* its CPU set when it started */
} bal__for_worker;

/* The process's attachment to a node registry, shared by its pools
 * (follow.c). */
typedef struct bal__for_node bal__for_node;

struct bal_pool {
  int size;
  bool oversubscribed;          /* more workers than CPUs: never spin long */
  bool steer;                   /* steer sleeping workers' wake-ups (steer.h) */
  pthread_mutex_t call_lock;    /* serializes concurrent bal_for() callers */

  /* Dispatch: workers wait for `epoch` to change (spin briefly, then sleep). */
  pthread_mutex_t wake_lock;
  pthread_cond_t wake_cond;
  _Atomic uint64_t epoch;
  atomic_int sleepers;
  atomic_bool shutdown;

  /* The current call. `participants` counts workers inside it (the caller
   * not included) plus the CLOSED bit; `remaining` counts units not yet
   * reported done (workers report in batches, when their range runs dry). */
  _Alignas(64) _Atomic uint64_t participants;
  _Alignas(64) _Atomic uint64_t remaining;
  /* The caller sleeps here when it has nothing left to do but wait, until
   * every unit is done or a worker leaving the call orphans a range. */
  atomic_bool caller_waiting;
  _Atomic uint64_t orphans;
  pthread_mutex_t done_lock;
  pthread_cond_t done_cond;
  _Alignas(64) bal__for_call call;
  double last_wall_seconds;
  bool have_stats;

  bal__for_range *ranges;   /* size entries, one per worker (dealt offsets) */
  bal__for_worker *workers; /* size entries; [0] is the calling thread's */
  cpu_set_t *bind_sets; /* BALLAST_BIND placement, or NULL */

  /* Following a node registry's mask (follow.c). `node` is NULL for an
   * unattached pool: every hook below is behind that one branch. Workers
   * [0, active) are active, the others park on park_cond (under
   * wake_lock). `layout_version` grows whenever the pool adopts a new
   * mask; `adopted` is the node version it adopted. */
  bal__for_node *node;
  bool bind_node;              /* real-CPU registry: bind workers within the mask */
  pthread_cond_t park_cond;
  atomic_flag adopting;        /* one thread adopts a new mask at a time */
  pthread_mutex_t mask_lock;   /* guards mask */
  bal_node_mask mask;          /* the mask adopted at layout_version */
  _Alignas(64) atomic_int active; /* read per chunk by attached pools */
  _Atomic uint64_t layout_version;
  _Atomic int64_t next_poll_ns;
  _Atomic uint64_t adopted;
};

/* bal_for() and, with `learn` non-NULL, bal_for_learn() (loop.c): check
 * the arguments, deal, run, and for `learn` update its profile. */
int bal__for_run(struct bal_pool *pool, int64_t begin, int64_t end, int64_t grain,
                 bal_for_body body, void *arg, struct bal_loop *learn);

/* Run the balanced loop of the pool's current call as worker `self` until
 * every unit is done (loop.c). Returns true when the worker left because it
 * was parked (attached pools; never worker 0). */
bool bal__for_work(struct bal_pool *pool, int self);

/* A range may hold units nobody will take unless the caller steals them (a
 * parked worker's): count an orphan and wake the caller if it sleeps in
 * wait_for_completion, so that it steals again (loop.c). */
void bal__for_orphaned(struct bal_pool *pool);

/* Move the epoch and wake the workers that wait for it (pool.c): for a new
 * call, at shutdown, and when an attached pool grows, so that a worker
 * that left the last call while active joins the running one. */
void bal__for_pool_wake(struct bal_pool *pool);

/* Wake the background workers for a new call and wait until every worker
 * that joined it has left (pool.c); meanwhile the caller works as worker 0. */
void bal__for_pool_dispatch(struct bal_pool *pool);

/* follow.c: attach to the process's shared node attachment (cfg non-NULL:
 * explicitly, errors returned; NULL: from BALLAST_NODE=1, failures logged
 * and *out left NULL). Sets *ncpus and *is_virtual when attached. */
int bal__for_node_acquire(const bal_node_attach_config *cfg, bal__for_node **out, int64_t *ncpus,
                          bool *is_virtual);
void bal__for_node_release(bal__for_node *node);
/* follow.c: the attachment's handle, for lending (src/pop/lend.c); valid
 * while the caller holds a reference. */
bal_node_proc *bal__for_node_proc(const bal__for_node *node);

/* follow.c: read the node's mask and adopt it if it changed. `entry`: at
 * bal_for() entry (waits for another pool's poll instead of skipping). */
void bal__for_follow(struct bal_pool *pool, bool entry, int64_t now_ns);

/* follow.c: bind worker w within the pool's current mask (real registries). */
void bal__for_rebind(struct bal_pool *pool, bal__for_worker *w);

/* Minimum time between two polls inside a call. */
#define BAL__FOR_POLL_INTERVAL_NS 100000

/* Attached pools, between chunks: poll when due, rebind when the mask
 * moved; returns whether worker w must leave the call (it is parked). */
static inline bool bal__for_follow_tick(struct bal_pool *pool, bal__for_worker *w, int64_t now_ns) {
  if (now_ns >= atomic_load_explicit(&pool->next_poll_ns, memory_order_relaxed))
    bal__for_follow(pool, false, now_ns);
  if (pool->bind_node &&
      w->bound_version != atomic_load_explicit(&pool->layout_version, memory_order_acquire))
    bal__for_rebind(pool, w);
  return w->id >= atomic_load_explicit(&pool->active, memory_order_acquire);
}

/* Index of the calling worker while it is inside a call, else -1. */
extern _Thread_local int bal__for_tls_worker_id;

/* CPU-friendly busy-wait hint. */
static inline void bal__for_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
