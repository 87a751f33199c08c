/**
 * @file ballast/rebalance.h
 * @brief `rebalance` module: iterative rebalancing of domain-decomposed MPI
 *        codes ([POP LB], [Siegell 1997]): measure each rank's computation
 *        rate, filter it, decide whether moving work pays off, and move
 *        work packages through application callbacks.
 *
 * Model: every rank holds a sequence of work items (rows, cells,
 * particles); the first item is its LOW end, the last its HIGH end. The
 * application calls bal_rebalance_step() once per iteration on every rank
 * with the time it spent computing and the number of items it processed.
 * Most calls only accumulate the measurement (no communication). Every
 * `interval` iterations (chosen automatically, [Siegell 1997] §5.2) the
 * ranks exchange their filtered rates (items per second) and item counts,
 * all compute the same decision, and, when the projected step time drops
 * by more than the threshold and the predicted benefit outweighs the
 * predicted movement cost, move items. The balancer (config field
 * `balancer`, a name; bal_rebalance_balancer_name() lists them) says how:
 *  - "string" (default): the global sequence of items (rank 0's items,
 *    then rank 1's, ...) is cut into contiguous pieces; items move only
 *    between neighbouring ranks (rank i's HIGH end to rank i+1's LOW end or
 *    back), one direction per pair (the shifts S[i] of [POP LB]). Global
 *    order is preserved.
 *  - "direct": overloaded ranks send items from their HIGH end directly to
 *    underloaded ranks, which append them at their HIGH end, in one step
 *    (the master-directed moves of [Siegell 1997] §2.1). Global order is
 *    not preserved.
 *  - "none": measure and decide as "string" would, never move (a baseline).
 * Targets are proportional to the rates and integer-optimal (the smallest
 * possible projected step time).
 *
 * Errors are collective: whatever goes wrong on one rank (bad timing,
 * inconsistent count, failed callback) is returned by the same call on
 * every rank with the same code, and no item is lost or duplicated.
 *
 * The pure building blocks the balancer is made of (chains-on-chains cuts,
 * proportional targets, string shifts, direct transfer plans, the rate
 * filter, the move decision, period selection and the grain size of
 * pipelined loops) are in ballast/rebalance_plan.h, which this header
 * includes and which needs no MPI. See docs/rebalance.md for the user
 * guide.
 *
 * Threading: the balancer makes MPI calls only from the thread that calls
 * its functions; MPI_THREAD_SINGLE is enough. This header needs <mpi.h>; the
 * functions it declares (beyond rebalance_plan.h's) are in the library only
 * when Ballast was built with MPI (BALLAST_HAVE_REBALANCE in
 * ballast/features.h).
 */
#ifndef BALLAST_REBALANCE_H
#define BALLAST_REBALANCE_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/rebalance_plan.h>

BAL_BEGIN_DECLS

/** Opaque balancer bound to one communicator. */
typedef struct bal_rebalance bal_rebalance;

/** An end of a rank's local item sequence. */
typedef enum bal_rebalance_end {
  BAL_REBALANCE_LOW = 0, /**< the first items */
  BAL_REBALANCE_HIGH = 1 /**< the last items */
} bal_rebalance_end;

/** Pass as compute_s to bal_rebalance_step() to let Ballast measure the
 *  compute time (wall time since bal_rebalance_mark() or the previous step). */
#define BAL_REBALANCE_MEASURE (-1.0)
/** Pass as items to bal_rebalance_step(): "every item this rank holds"
 *  (the count callback's value). */
#define BAL_REBALANCE_ALL ((int64_t)-1)

/**
 * Application callbacks that move items. Every callback returns 0 on
 * success and any other value on failure (Ballast then returns
 * BAL_ECALLBACK on every rank). `arg` is passed to each of them.
 *
 * Protocol of one migration (so that a failure anywhere leaves every
 * rank's items as they were):
 *  1. pack_size/pack copy the outgoing items into Ballast's buffers; the
 *     items stay in place. All ranks agree that packing succeeded.
 *  2. Ballast exchanges the packages (all of them held in memory at once:
 *     the outgoing ones and the incoming ones, nothing else).
 *  3. unpack inserts each received package at the given end. It must be
 *     all-or-nothing: on failure it leaves the items as they were. All
 *     ranks agree that unpacking succeeded; if not, each rank calls remove
 *     to take back the packages it had already unpacked.
 *  4. remove drops the items that were sent.
 * A rank never sends and receives at the same end in one migration.
 */
typedef struct bal_rebalance_callbacks {
  /** Number of items this rank holds now (required). */
  int (*count)(int64_t *n, void *arg);
  /** Bytes pack() needs for the `count` items that are `skip` items away
   *  from `end` (optional: NULL means count * item_bytes). */
  int (*pack_size)(bal_rebalance_end end, int64_t skip, int64_t count, size_t *bytes, void *arg);
  /** Copy, without removing them, the `count` items that are `skip` items
   *  away from `end` into buf (`bytes` as returned by pack_size), in their
   *  sequence order. From HIGH with skip s that is items [n-s-count, n-s). */
  int (*pack)(bal_rebalance_end end, int64_t skip, int64_t count, void *buf, size_t bytes,
              void *arg);
  /** Insert the `count` items packed in buf at `end`, keeping the package's
   *  order (LOW: before the first item; HIGH: after the last). */
  int (*unpack)(bal_rebalance_end end, int64_t count, const void *buf, size_t bytes, void *arg);
  /** Drop the `count` items at `end` (sent, or unpacked and taken back).
   *  Cannot fail. */
  void (*remove)(bal_rebalance_end end, int64_t count, void *arg);
  /** Bytes per item when pack_size is NULL (then must be >= 1). */
  size_t item_bytes;
  void *arg; /**< passed to every callback */
  /** Optional relative costs of the local items: fill w[0..count) in
   *  sequence order (LOW first) with finite values >= 0. When given (and the
   *  balancer is not "direct", which balances counts), rates are measured in cost
   *  units per second and string targets are chains-on-chains cuts of the
   *  global sequence of costs (bal_rebalance_cuts()). It is called at every
   *  interaction and after every migration, and when the ranks look
   *  imbalanced every rank gathers all costs (one double per item). */
  int (*weights)(int64_t count, double *w, void *arg);
} bal_rebalance_callbacks;

/** Configuration; initialise with bal_rebalance_config_init(), then change
 *  fields. Every rank must pass the same configuration. */
typedef struct bal_rebalance_config {
  const char *balancer;        /**< "string" (default), "direct" or "none": see
                                    bal_rebalance_balancer_name(); read only by
                                    bal_rebalance_create() */
  bal_rebalance_filter filter; /**< default ADAPTIVE */
  double filter_h;             /**< history fraction of the FIXED filter, in [0, 1); default 0.8 */
  double threshold;            /**< move only if the projected step time drops by more than this
                                    fraction, in [0, 1); 0 disables; default 0.10 */
  bool profitability;          /**< true (default): cancel moves whose predicted cost exceeds
                                    benefit_weight times the predicted benefit; false: never */
  double benefit_weight;       /**< > 0; default 2.0 (benefits count double: [Siegell 1997]
                                    §6.3 cancels only when the cost greatly exceeds them) */
  double horizon_s;            /**< expected stable time for the benefit (s); 0 (default):
                                    estimated from the time between past moves */
  int64_t interval;            /**< iterations between interactions: 0 (default) automatic,
                                    > 0 fixed */
  int64_t max_interval;        /**< upper bound of the automatic interval; default 1000 */
  double f_interact;           /**< fraction of time interactions may cost, (0, 1]; default 0.05 */
  double workscale;            /**< periods a move's cost is spread over, >= 1; default 4 */
  double quantum_s;            /**< OS scheduling quantum (s), >= 0; default 0.01 */
  double quantum_scale;        /**< the period is at least this many quanta, >= 0; default 10 */
  bool pipelined;              /**< true (default): the exchange of measurements is a
                                    non-blocking collective started at an interaction and
                                    completed at the next step (decisions act one iteration
                                    late); false: blocking */
} bal_rebalance_config;

/** Statistics on this rank (bal_rebalance_stats_get()). Global values are
 *  the same on every rank. */
typedef struct bal_rebalance_stats {
  int64_t steps;               /**< calls of bal_rebalance_step() */
  int64_t interactions;        /**< decisions taken (global) */
  int64_t rebalances;          /**< decisions that moved items (global) */
  int64_t skipped_threshold;   /**< decisions below the threshold (global) */
  int64_t skipped_profit;      /**< decisions cancelled as unprofitable (global) */
  int64_t items_sent;          /**< items this rank sent, all migrations */
  int64_t items_received;      /**< items this rank received */
  size_t bytes_sent;           /**< package bytes this rank sent */
  int64_t items_moved;         /**< items moved by all ranks, all migrations (global) */
  int64_t interval;            /**< current iterations between interactions (global) */
  bal_rebalance_verdict last_verdict; /**< of the last decision */
  int error_rank;              /**< lowest rank that caused the last collective error, or -1 */
  double rate_raw;             /**< this rank's last raw rate (items/s; 0 if unknown) */
  double rate;                 /**< this rank's last filtered rate */
  double filter_h;             /**< history fraction used for it */
  bal_rebalance_filter_fstate filter_state; /**< the adaptive filter's state after it */
  double imbalance;            /**< last projected step time / ideal step time (>= 1, global) */
  double reduction;            /**< last projected reduction fraction of the step time */
  double predicted_cost_s;     /**< last predicted movement cost (s) */
  double predicted_benefit_s;  /**< last predicted benefit (s) */
  double period_s;             /**< current target period (s, global) */
  double interact_s;           /**< interaction cost estimate (s, global) */
  double move_s;               /**< average measured migration time (s, global; 0 before any) */
  double migrate_s;            /**< time this rank spent migrating, all migrations */
} bal_rebalance_stats;

/* ------------------------------------------------------------------ */
/* The balancer                                                        */
/* ------------------------------------------------------------------ */

/**
 * Fill a configuration with the defaults documented in #bal_rebalance_config.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_rebalance_config_init(bal_rebalance_config *cfg);

/**
 * Create a balancer. Collective over comm (duplicated), except that argument
 * errors are detected before any communication (every rank should pass the
 * same configuration). Measures the cost of one interaction (a few
 * collectives) for the automatic period.
 * @param comm a valid intra-communicator; MPI must be initialised (any
 *             thread level).
 * @param cfg  configuration, or NULL for the defaults.
 * @param cb   callbacks (copied); count, pack, unpack and remove are
 *             required unless the balancer is "none", where only count is.
 * @param out  receives the handle; untouched on error.
 * @return BAL_OK; BAL_EINVAL (NULL out or cb, a missing callback, a field
 *         out of range, a NULL or unknown balancer name, MPI not
 *         initialised, comm is MPI_COMM_NULL);
 *         BAL_ENOMEM; BAL_EMPI.
 * Thread-safety: from a thread allowed to make MPI calls.
 */
BAL_API int bal_rebalance_create(MPI_Comm comm, const bal_rebalance_config *cfg,
                                 const bal_rebalance_callbacks *cb, bal_rebalance **out);

/**
 * Mark the start of this iteration's computation: with compute_s =
 * #BAL_REBALANCE_MEASURE the next bal_rebalance_step() counts the time since
 * this mark. Without a mark it counts the time since the previous step,
 * which includes waiting for other ranks and hides imbalance in codes that
 * synchronise every iteration: mark right before computing, or pass your
 * own compute time. Never communicates.
 * @return BAL_OK; BAL_EINVAL if rb is NULL. Thread-safety: not thread-safe.
 */
BAL_API int bal_rebalance_mark(bal_rebalance *rb);

/**
 * The load-balancing hook: call once per iteration on every rank of the
 * communicator (the same number of times everywhere), at a point where
 * items can move.
 * @param rb        the balancer.
 * @param compute_s seconds this rank spent computing in this iteration
 *                  (>= 0, finite), or #BAL_REBALANCE_MEASURE.
 * @param items     items processed in this iteration (>= 0), or
 *                  #BAL_REBALANCE_ALL for the count callback's value. The
 *                  rate is items/compute_s summed over the period.
 * @param moved     receives the number of items this rank sent plus
 *                  received in this call (0 if none moved; then its items
 *                  are untouched); may be NULL; untouched on error.
 * @return BAL_OK; BAL_EINVAL if rb is NULL (local, immediate).
 *         Every other error is collective: it is returned by the next call
 *         that interacts, on every rank, with nothing moved, and the call
 *         that receives a bad argument itself returns BAL_OK so that all
 *         ranks stay in step (stats.error_rank names the lowest culprit):
 *         BAL_EINVAL (a NaN, infinite or negative time; a negative item
 *         count, from the argument or the count callback; a cost from the
 *         weights callback that is NaN, infinite or negative; or, when
 *         pipelined, a count that changed between the exchange and a move
 *         planned from it), BAL_ECALLBACK (a callback failed; every rank's
 *         items are as before the call), BAL_ERANGE (a package of 2 GiB or
 *         more, a count above 2^53, or, with costs, more than INT_MAX items
 *         in all), BAL_ENOMEM. After a collective error the next exchange
 *         is started by the next call, not the failing one, so that the
 *         application can repair its state first.
 *         BAL_EMPI if an MPI call failed: the ranks may then disagree, so
 *         the application should call MPI_Abort.
 * Thread-safety: one call at a time per handle, from an MPI-capable thread;
 * callbacks run on the calling thread.
 */
BAL_API int bal_rebalance_step(bal_rebalance *rb, double compute_s, int64_t items,
                               int64_t *moved);

/**
 * Statistics of this rank (see #bal_rebalance_stats).
 * @return BAL_OK; BAL_EINVAL if rb or out is NULL.
 * Thread-safety: read-only; not concurrently with bal_rebalance_step() on rb.
 */
BAL_API int bal_rebalance_stats_get(const bal_rebalance *rb, bal_rebalance_stats *out);

/**
 * Free a balancer. Collective: completes a pending measurement exchange and
 * frees the balancer's communicator, so call it on every rank before
 * MPI_Finalize (after MPI_Finalize only memory is released). NULL is ignored.
 * Thread-safety: the thread that made the balancer's other calls.
 */
BAL_API void bal_rebalance_destroy(bal_rebalance *rb);

/**
 * Name the i-th available balancer (0-based: "string", "direct", "none"),
 * for listings and for bal_rebalance_config.balancer.
 * @return the name, or NULL when i is negative or past the last.
 * Thread-safety: safe.
 */
BAL_API const char *bal_rebalance_balancer_name(int i);
/* ------------------------------------------------------------------ */
/* A measurement for the grain model (the model itself and the other   */
/* building blocks, which need no MPI, are in ballast/rebalance_plan.h) */
/* ------------------------------------------------------------------ */

/**
 * Measure t_fixed and t_incr of the grain model on a communicator: shifts
 * empty messages, then messages of `elems` elements of `elem_bytes` bytes,
 * through the ranks (rank i to i+1, as in a pipeline) `reps` times each;
 * t_fixed is the smallest per-phase time of the empty shifts and t_incr the
 * extra per element of the full ones (>= 0), both the maximum over ranks so
 * that every rank gets the same values. Collective.
 * @return BAL_OK; BAL_EINVAL on bad arguments (comm null, elem_bytes or
 *         elems or reps < 1, elems * elem_bytes > INT_MAX, NULL outputs);
 *         BAL_ENOMEM; BAL_EMPI.
 * Thread-safety: collective; call from a thread allowed to make MPI calls
 * on comm.
 */
BAL_API int bal_rebalance_measure_shift(MPI_Comm comm, size_t elem_bytes, int64_t elems, int reps,
                                        double *t_fixed, double *t_incr);

BAL_END_DECLS

#endif /* BALLAST_REBALANCE_H */
