/**
 * @file ballast/for.h
 * @brief `for` module: a parallel loop over an index range, balanced by
 *        lock-free work stealing on index ranges, run by a persistent pool.
 *
 * How it balances: bal_for() cuts [begin, end) into blocks (about 32 per
 * worker on long loops) and deals them to the workers in rounds, so that
 * every worker owns a block in every region of the range and all of them
 * pass through each region at about the same time. Each worker takes chunks
 * of its blocks in order with one atomic add; a worker that runs dry steals
 * the upper half of another worker's remaining blocks with a single
 * compare-and-swap and then serves them as its own (so they can be stolen
 * in turn). Chunk sizes adapt to the measured cost of the body, so 1 ns
 * bodies run in long chunks while a loop whose cost sits in a handful of
 * items is still split finely. The deal depends only on the length, the
 * grain and the pool size. See docs/for.md for the user guide.
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
 *        may run on (its affinity mask).
 * @param out receives the pool on success; untouched on error.
 *
 * The environment variable BALLAST_BIND places the background workers
 * (worker i >= 1; the calling thread is the application's and is never
 * moved): "core" binds worker i to physical core i modulo the cores (via
 * hwloc when Ballast was built with it, else CPU i of the affinity mask),
 * "pu" to hardware thread i, "none" or unset leaves placement to the OS.
 * @return BAL_OK; BAL_EINVAL if out is NULL, nthreads < 0 or
 *         > #BAL_POOL_MAX_THREADS, BALLAST_NUM_THREADS is set but not an
 *         integer in [1, BAL_POOL_MAX_THREADS], or BALLAST_BIND has another
 *         value; BAL_ENOMEM; BAL_ESYS if a thread could not be started
 *         (nothing is leaked).
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_pool_create(int nthreads, bal_pool **out);

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

BAL_END_DECLS

#endif /* BALLAST_FOR_H */
