/**
 * @file ballast/for.h
 * @brief `for` module: a parallel loop over an index range, balanced by
 *        lock-free work stealing on index ranges, run by a persistent pool.
 *
 * How it balances: bal_for() cuts [begin, end) into blocks (about 32 per
 * worker on long loops) and deals them to the workers in rounds, so that
 * every worker owns a block in every region of the range and all of them
 * pass through each region at about the same time. Each worker takes chunks
 * of its blocks in order with one atomic add; while another worker lags
 * two rounds or more behind (woken late, preempted), it first takes chunks
 * from that one's next blocks, one compare-and-swap each, so the range is
 * still reached in about its index order. A worker that runs dry steals
 * the upper half of another worker's remaining blocks with a single
 * compare-and-swap and then serves them as its own (so they can be stolen
 * in turn). Chunk sizes adapt to the measured cost of the body, so 1 ns
 * bodies run in long chunks while a loop whose cost sits in a handful of
 * items is still split finely. The deal depends only on the length, the
 * grain and the pool size (for a pool attached to a node registry: the
 * workers active at the call's entry, see bal_pool_config). See
 * docs/for.md for the user guide.
 *
 * Threading model: a pool of `n` workers is `n - 1` background threads plus
 * the thread that calls bal_for(), which takes part as worker 0. Calls on one
 * pool from several non-worker threads are serialized (each runs with the
 * whole pool). A bal_for() issued from inside a loop body (on any pool) runs
 * its range serially in the calling worker: it never deadlocks and
 * bal_worker_id() keeps returning the outer worker's index inside it.
 */
#ifndef BALLAST_FOR_H
#define BALLAST_FOR_H

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/node.h>

BAL_BEGIN_DECLS

/** Opaque thread pool. */
typedef struct bal_pool bal_pool;

/** Largest pool size bal_pool_create() accepts. */
#define BAL_POOL_MAX_THREADS 1024

/**
 * Create a pool of persistent worker threads.
 * @param nthreads number of workers, counting the calling thread of each
 *        bal_for(); 0 means the value of the environment variable
 *        BALLAST_NUM_THREADS if set, else the number of CPUs this process
 *        may run on (its affinity mask) — or, for a pool attached to a node
 *        registry (BALLAST_NODE=1), the registry's CPU count.
 * @param out receives the pool on success; untouched on error.
 *
 * The environment variable BALLAST_BIND places the background workers
 * (worker i >= 1; the calling thread is the application's and is never
 * moved): "core" binds worker i to physical core i modulo the cores (via
 * hwloc when Ballast was built with it, else CPU i of the affinity mask),
 * "pu" to hardware thread i, "none" or unset leaves placement to the OS.
 * @return BAL_OK; BAL_EINVAL if out is NULL, nthreads < 0 or
 *         > #BAL_POOL_MAX_THREADS, BALLAST_NUM_THREADS is set but not a
 *         decimal integer in [1, BAL_POOL_MAX_THREADS] (strictly: no sign,
 *         whitespace or leading zero; set but empty is refused too), or
 *         BALLAST_BIND has another value (empty included); each logged at
 *         BAL_LOG_ERROR naming the variable and what it accepts; BAL_ENOMEM; BAL_ESYS if a thread could not be started
 *         (nothing is leaked).
 * Same as bal_pool_create_with() with the defaults and this nthreads (so
 * BALLAST_NODE=1 attaches it too).
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_pool_create(int nthreads, bal_pool **out);

/**
 * How to create a pool; initialise with bal_pool_config_init().
 *
 * ## Pools that follow a node registry's mask (node.h)
 * A pool *attached* to a node registry runs each bal_for() on exactly the
 * CPUs of the process's current mask:
 *  - **Capacity** — the threads, bal_pool_size(), the range of
 *    bal_worker_id() — is fixed at creation: `nthreads`, or with
 *    `nthreads == 0` the registry's CPU count (a virtual registry of N CPUs
 *    gives N workers, so a 2-core machine can host a 16-worker pool).
 *  - **Active workers** are workers 0 .. a − 1 with
 *    a = min(|mask|, capacity) (bal_pool_active()); an empty mask (the
 *    process was removed by a manager) leaves worker 0 alone. The others
 *    are **parked**: asleep on a condition variable, not spinning.
 *  - **When the mask is read**: at entry into every bal_for() (so a new mask
 *    holds from the first chunk of the next call), and between chunks at
 *    most every 100 µs by whichever worker finishes a chunk first, so a long
 *    loop adapts within the call: a worker that is no longer active leaves
 *    after its current chunk (what remains of its range stays stealable by
 *    the active ones) and parks; a grow wakes the workers that become
 *    active and they join the running call as thieves. Each loop is dealt
 *    (see above) to the workers active at its entry.
 *  - **Binding** (real-CPU registries only; virtual registries bind
 *    nothing): active worker k >= 1 is bound to the k-th CPU (from 0, in
 *    ascending order) of the mask, and the calling thread (worker 0) to the
 *    whole mask — so it normally runs on the mask's first CPU, which no
 *    background worker takes. This replaces BALLAST_BIND for attached
 *    pools. The calling thread keeps that binding after the call.
 *  - **Several pools in one process** share the process's single
 *    attachment (node.h allows one per process; the pools count
 *    references to it, the last bal_pool_destroy() detaches): each pool
 *    runs on the whole mask, as two unattached pools share the machine, and
 *    a change read by any pool's poll applies to all of them at their next
 *    check. A pool created while another is attached shares that
 *    attachment even if its own configuration names another registry.
 *  - **Statistics**: bal_for_last_stats() of a worker parked during the
 *    whole call are zero; a worker that parked or woke during the call
 *    reports what it did while active.
 *  - **Cost** when no registry is attached: one predictable branch per
 *    chunk. Attached and nothing changes: at entry one poll (a flag, an
 *    atomic load of the registry's word and a 128-byte copy), per chunk
 *    three loads of words that change only with the mask (when the next
 *    poll is due, whether to rebind, the active count).
 *  - The process's own threads other than the pool's are not moved.
 */
typedef struct bal_pool_config {
  int nthreads; /**< workers, as bal_pool_create()'s argument (default 0) */
  const bal_node_attach_config *node; /**< NULL (default): not attached
                               (unless BALLAST_NODE=1, see bal_pool_create_with());
                               else attach to the node registry this way */
} bal_pool_config;

/**
 * Defaults: nthreads 0, node NULL.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_pool_config_init(bal_pool_config *cfg);

/**
 * Create a pool as configured (see bal_pool_config for attached pools).
 * With cfg->node NULL and the environment variable BALLAST_NODE set to
 * "1", the pool attaches with the default attach configuration (registry
 * $BALLAST_NODE_REGISTRY), so unmodified bal_for() programs follow a node
 * manager; if that fails (no registry named or reachable, the process
 * already attached by other means, ...) the pool runs unattached and the
 * reason is logged through bal_log at BAL_LOG_WARN — the variable never
 * makes creation fail. BALLAST_NODE unset or "0" attaches nothing; any
 * other value attaches nothing either and is logged at BAL_LOG_WARN.
 * @param cfg the configuration (NULL: the defaults).
 * @param out receives the pool; untouched on error.
 * @return as bal_pool_create(), plus, with cfg->node non-NULL and no other
 *         pool of this process attached, the error of bal_node_attach()
 *         (BAL_EINVAL, BAL_ENOTFOUND, BAL_EPERM, BAL_EFORMAT, BAL_EBUSY,
 *         BAL_ENOMEM, BAL_ESYS): an explicit request to attach that fails
 *         creates no pool.
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_pool_create_with(const bal_pool_config *cfg, bal_pool **out);

/**
 * Stop and join the pool's threads and free it. NULL is ignored.
 * Must not be called while a bal_for() on this pool is running, nor from
 * inside a loop body.
 */
BAL_API void bal_pool_destroy(bal_pool *pool);

/**
 * @return the number of workers of the pool (>= 1), or BAL_EINVAL if pool
 *         is NULL. Thread-safety: safe.
 */
BAL_API int bal_pool_size(const bal_pool *pool);

/**
 * @return the number of workers active now: the capacity
 *         (bal_pool_size()) when the pool is not attached to a node
 *         registry, else min(|mask|, capacity) for the mask the pool last
 *         read (at least 1); BAL_EINVAL if pool is NULL.
 * Thread-safety: safe (a snapshot; it may change during a bal_for()).
 */
BAL_API int bal_pool_active(const bal_pool *pool);

/**
 * Loop body: process every index of [begin, end) (never empty). Called
 * concurrently from several workers with disjoint ranges.
 */
typedef void (*bal_for_body)(int64_t begin, int64_t end, void *arg);

/**
 * Run body over [begin, end) in parallel; return when every index has been
 * processed exactly once.
 * @param pool  the pool whose workers run the loop (caller is worker 0).
 * @param begin first index.
 * @param end   one past the last index; end - begin must fit in int64_t.
 * @param grain smallest piece a worker takes or steals, in indices: on
 *        ranges of up to 2^31 indices (and grains up to 2^30) every body
 *        call then gets exactly `grain` indices starting at begin + a
 *        multiple of `grain`, except the call that ends the range; 0 =
 *        automatic: pieces adapt to the
 *        measured cost of the body (long for cheap bodies, single indices
 *        for expensive ones) and a call may end anywhere.
 * @param body  the loop body.
 * @param arg   passed to body unchanged.
 * @return BAL_OK (also for an empty range, with nothing run); BAL_EINVAL
 *         with nothing run if pool or body is NULL, begin > end, grain < 0,
 *         or end - begin overflows int64_t.
 * Thread-safety: callable from any thread that is not one of this pool's
 * background workers; concurrent calls on one pool are serialized. From
 * inside a body (any pool) the range runs serially in the calling worker.
 */
BAL_API int bal_for(bal_pool *pool, int64_t begin, int64_t end, int64_t grain,
                    bal_for_body body, void *arg);

/**
 * @return the index in [0, bal_pool_size()) of the calling worker while it
 *         runs a loop body, -1 anywhere else. Lets bodies accumulate
 *         per-worker partial results without atomics.
 * Thread-safety: safe; the value is per thread.
 */
BAL_API int bal_worker_id(void);

/** What one worker did during a bal_for() call. */
typedef struct bal_for_stats {
  int64_t items;            /**< indices this worker processed */
  int64_t chunks;           /**< body invocations */
  int64_t steals_attempted; /**< compare-and-swap attempts on victims' ranges */
  int64_t steals_won;       /**< successful steals */
  double busy_seconds;      /**< time spent inside the body */
  double wall_seconds;      /**< duration of the whole call (same for all workers) */
} bal_for_stats;

/**
 * Statistics of the most recent bal_for() on this pool that ran in parallel
 * (empty, failed and nested serial calls do not replace them).
 * @param pool   the pool.
 * @param worker a worker index in [0, size), or -1 for the sum over all
 *        workers (wall_seconds is then the call's duration).
 * @param out    receives the statistics.
 * @return BAL_OK; BAL_EINVAL if pool or out is NULL or worker is out of
 *         range; BAL_ENOTSUP if no parallel call has completed yet.
 * Thread-safety: safe while no bal_for() runs on the pool; a concurrent call
 * may give a mix of two calls' figures.
 */
BAL_API int bal_for_last_stats(const bal_pool *pool, int worker, bal_for_stats *out);

/**
 * @name Loops that learn from their last call
 * A loop called again and again over the same range (a time step) can be
 * dealt by what its items cost last time: a bal_loop remembers, for one
 * loop site, a cost profile of its range, and bal_for_learn() uses it.
 *
 * What is kept: the range cut into at most 4096 blocks (whole grains) and
 * the measured nanoseconds of each — fixed memory, under 64 KiB per handle
 * whatever the range (bal_loop_info.bytes). It is measured per chunk from
 * the clock reads the loop makes anyway, not per item.
 *
 * How the next call is dealt: each worker gets a contiguous slice of the
 * range whose predicted cost is 1/P of the total; a slice whose heaviest
 * block costs more than twice its mean starts at that block (and wraps to
 * the slice's start), so predicted-heavy items start first. Work stealing
 * runs as in bal_for() and corrects what the prediction got wrong, except
 * that a thief whose victim holds a block predicted clearly heavier than
 * the rest of its range starts its part there (heaviest first). The
 * first call (no profile yet) is dealt as bal_for() deals.
 *
 * How the profile follows the loop: a call's measurement is averaged with
 * the prediction it was dealt by while the two agree; when they differ a
 * lot (the share of the work that moved times how far it moved, the range
 * taken as [0, 1], exceeds 0.05: a quarter of the work moved by a fifth of
 * the range) the old profile is dropped and the measurement alone is
 * kept, so an abrupt change costs one call. A call with another length or
 * grain maps the profile by relative position in the range (index
 * begin + x*(end - begin) keeps the cost density it had); the same length
 * at other bounds keeps it as it is.
 * @{
 */

/** Opaque per-loop-site memory for bal_for_learn(). */
typedef struct bal_loop bal_loop;

/** What a bal_loop has learned, see bal_loop_get_info(). */
typedef struct bal_loop_info {
  int64_t calls;          /**< parallel calls that measured the loop */
  int64_t learned_calls;  /**< of which dealt from a profile */
  int64_t drops;          /**< profiles dropped because they stopped predicting */
  int64_t blocks;         /**< blocks of the current profile (0: none yet) */
  int64_t bytes;          /**< memory of the handle, fixed at creation */
  double last_error;      /**< how far the last call's prediction was from
                               what it measured: the share of the work it put
                               elsewhere times how far, the range taken as
                               [0, 1] (earth mover's distance, in [0, 1]);
                               -1 if that call had no prediction */
} bal_loop_info;

/**
 * Create an empty loop memory (no profile, bound to no pool yet).
 * @param out receives the handle; untouched on error.
 * @return BAL_OK; BAL_EINVAL if out is NULL; BAL_ENOMEM.
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_loop_create(bal_loop **out);

/**
 * Free a loop memory. NULL is ignored. Not while a bal_for_learn() uses it.
 */
BAL_API void bal_loop_destroy(bal_loop *loop);

/**
 * Forget the profile and the pool the handle was bound to (the next call
 * may use another pool).
 * @return BAL_OK; BAL_EINVAL if loop is NULL; BAL_EBUSY if a
 *         bal_for_learn() is using it now (nothing changed).
 * Thread-safety: safe; fails rather than waits when the handle is in use.
 */
BAL_API int bal_loop_reset(bal_loop *loop);

/**
 * Copy what the handle has learned into *out.
 * @return BAL_OK; BAL_EINVAL if loop or out is NULL; BAL_EBUSY if a
 *         bal_for_learn() is using it now.
 * Thread-safety: as bal_loop_reset().
 */
BAL_API int bal_loop_get_info(bal_loop *loop, bal_loop_info *out);

/**
 * bal_for() dealt by the loop's profile, measuring the call to update it.
 * Same arguments, indices, grain guarantee and exactly-once execution as
 * bal_for(); the result must not depend on which worker runs an index.
 * @param loop the loop site's memory. The first call binds it to `pool`.
 * @return BAL_OK (also for an empty range: nothing run, nothing learned);
 *         BAL_EINVAL with nothing run for bal_for()'s bad arguments, a NULL
 *         loop, or a loop bound to another pool (see bal_loop_reset());
 *         BAL_EBUSY with nothing run if another thread's call is using the
 *         same loop (one handle per loop site and thread: calls are not
 *         queued, as a second caller racing on one profile is a bug).
 * From inside a loop body (any pool) the range runs serially in the
 * calling worker, as with bal_for(), and nothing is learned.
 * Thread-safety: as bal_for() for the pool; a loop handle is used by one
 * call at a time.
 */
BAL_API int bal_for_learn(bal_pool *pool, bal_loop *loop, int64_t begin, int64_t end,
                          int64_t grain, bal_for_body body, void *arg);

/** @} */

BAL_END_DECLS

#endif /* BALLAST_FOR_H */
