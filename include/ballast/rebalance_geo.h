/**
 * @file ballast/rebalance_geo.h
 * @brief The geometric balancer of the `rebalance` module: the measure,
 *        filter and decide loop of ballast/rebalance.h for items with 2-D or
 *        3-D coordinates, whose new decomposition is computed by a method
 *        of ballast/partition.h (space-filling curves, RCB, tensor and
 *        staggered boxes) and whose items move through pack/unpack
 *        callbacks along the partition's import/export lists.
 *
 * Model: every rank holds items (grid cells, particles, cell centres),
 * each with coordinates inside a domain box declared at creation. The
 * application calls bal_rebalance_geo_step() once per iteration with its
 * compute time. The measurement, the rate filter, the threshold, the
 * cost-benefit check and the automatic period are those of
 * bal_rebalance_step() (one implementation, the same configuration
 * fields, the same statistics). When the projected step time of the new
 * partition is lower by more than the threshold and the move pays off,
 * items change rank: rank k receives part k of the partition (parts are
 * relabelled by REMAP so that most weight stays where it is), sends the
 * items of its export list and appends those of its import list.
 * Afterwards bal_rebalance_geo_region() and bal_rebalance_geo_neighbors()
 * give the rank its region (a box, or an interval of curve keys) and its
 * neighbour list, and bal_rebalance_geo_result() every rank's.
 *
 * Weights: with the weights callback, an item's weight is what it returns
 * (its relative cost), rates are measured in weight units per second, and
 * the partition balances weight (ranks are taken to be equally fast; the
 * sequence balancers of ballast/rebalance.h are the ones that give slower
 * ranks less). Without it, every item of rank k weighs 1 / rate_k, the
 * seconds rank k measured per item: the cost is taken to live in the
 * space the items occupy (a heavy region of a mesh), spread evenly over
 * the items of each rank, and repeated steps refine it.
 *
 * How the partition is computed (and what it costs): at a decision that
 * may move (the imbalance exceeds the threshold against the ideal time)
 * rank 0 gathers every item's coordinates and weight (MPI_Gatherv:
 * (dim + 1) doubles per item, N (dim + 1) * 8 bytes on rank 0 for N items
 * in all), computes the partition with bal_partition_compute() and
 * broadcasts its code, every item's new part (N ints on every rank) and
 * the regions; every rank then builds the same result handle (neighbour
 * lists and transfers) from them. Its cost is the method's on N items on
 * rank 0, plus the neighbour lists and transfers on every rank. No gather happens while the
 * ranks are balanced: a decision that cannot pass the threshold costs one
 * exchange of a few doubles per rank, as in bal_rebalance_step(). The
 * move limit (partition max_move_fraction), the minimum region extent, the
 * tolerance and REMAP are passed to bal_partition_compute() unchanged;
 * incremental box methods get the previous result. N must be at most
 * INT_MAX / dim (MPI counts), else the decision returns BAL_ERANGE.
 *
 * Errors are collective, as in bal_rebalance_step(): every rank gets the
 * same code from the same call and no item is lost or duplicated.
 *
 * Threading: as ballast/rebalance.h (MPI_THREAD_SINGLE is enough). This
 * header needs <mpi.h>; its functions are in the library when
 * BALLAST_HAVE_REBALANCE is set in ballast/features.h.
 */
#ifndef BALLAST_REBALANCE_GEO_H
#define BALLAST_REBALANCE_GEO_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/partition.h>
#include <ballast/rebalance.h>

BAL_BEGIN_DECLS

/** Opaque geometric balancer bound to one communicator. */
typedef struct bal_rebalance_geo bal_rebalance_geo;

/**
 * Application callbacks. Items are numbered 0..n-1 on each rank in the
 * application's order; every callback returns 0 on success and any other
 * value on failure (Ballast then returns BAL_ECALLBACK on every rank).
 * `arg` is passed to each of them.
 *
 * A migration follows the protocol of bal_rebalance_callbacks: pack
 * copies (items stay), the packages travel, unpack appends each incoming
 * package after the last item (all or nothing; taken back with remove if
 * any rank failed), then remove drops the sent items. While a migration
 * runs, indices refer to the numbering before it: the appended items come
 * after the old ones, so the indices of the sent items stay valid.
 */
typedef struct bal_rebalance_geo_callbacks {
  /** Number of items this rank holds now (required). */
  int (*count)(int64_t *n, void *arg);
  /** Coordinates of the n items, interleaved (x0 y0 [z0] x1 ...), each
   *  inside the domain box (required). */
  int (*coords)(int64_t n, double *xyz, void *arg);
  /** Optional: relative costs of the n items (finite, >= 0); NULL: the
   *  measured rate spread over the items (see the top). */
  int (*weights)(int64_t n, double *w, void *arg);
  /** Optional: bytes pack() needs for the `count` items with the
   *  (ascending) indices items[0..count); NULL: count * item_bytes. */
  int (*pack_size)(int64_t count, const int64_t *items, size_t *bytes, void *arg);
  /** Copy, without removing them, those items into buf, in the order of
   *  `items` (required). */
  int (*pack)(int64_t count, const int64_t *items, void *buf, size_t bytes, void *arg);
  /** Append the `count` items packed in buf after the last item, in the
   *  package's order (required). */
  int (*unpack)(int64_t count, const void *buf, size_t bytes, void *arg);
  /** Drop the `count` items with the ascending indices items[0..count),
   *  keeping the order of the others (required). Cannot fail. */
  void (*remove)(int64_t count, const int64_t *items, void *arg);
  /** Bytes per item when pack_size is NULL (then >= 1). */
  size_t item_bytes;
  void *arg; /**< passed to every callback */
} bal_rebalance_geo_callbacks;

/** Configuration; initialise with bal_rebalance_geo_config_init(), then
 *  change fields. Every rank must pass the same one (checked:
 *  BAL_EINVAL on every rank otherwise). */
typedef struct bal_rebalance_geo_config {
  /** The measurement and the decision: every field of
   *  bal_rebalance_config except `balancer` (ignored). */
  bal_rebalance_config measure;
  /** The partition: method ("rcb" by default; any name of
   *  bal_partition_method_name()), grid, min_extent, max_move_fraction,
   *  tolerance, remap, incremental. `parts` is ignored (the communicator's
   *  size). */
  bal_partition_config partition;
  int dim;      /**< 2 or 3 (default 2) */
  double lo[3]; /**< domain box, lower corner (finite; default 0) */
  double hi[3]; /**< upper corner, hi[d] >= lo[d] (default 1) */
} bal_rebalance_geo_config;

/**
 * Fill a configuration with the defaults: bal_rebalance_config_init()'s,
 * bal_partition_config_init()'s, dim 2, the unit box.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_rebalance_geo_config_init(bal_rebalance_geo_config *cfg);

/**
 * Create a geometric balancer. Collective over comm (duplicated): the
 * ranks check that they passed the same configuration.
 * @param comm a valid intra-communicator; MPI initialised.
 * @param cfg  configuration (required: the domain is the application's).
 * @param cb   callbacks (copied): count, coords, pack, unpack, remove
 *             required, and pack_size or item_bytes >= 1.
 * @param out  receives the handle; untouched on error.
 * @return BAL_OK; BAL_EINVAL (NULL argument, a missing callback, a field
 *         out of range: those of bal_rebalance_create(), an unknown method,
 *         dim not 2 or 3, a domain corner not finite or hi < lo, a
 *         negative or non-finite min_extent or tolerance,
 *         max_move_fraction outside [0, 1], a grid whose product is not the
 *         communicator's size; or ranks that passed different
 *         configurations: then on every rank); BAL_ENOMEM; BAL_EMPI.
 * Thread-safety: from a thread allowed to make MPI calls.
 */
BAL_API int bal_rebalance_geo_create(MPI_Comm comm, const bal_rebalance_geo_config *cfg,
                                     const bal_rebalance_geo_callbacks *cb,
                                     bal_rebalance_geo **out);

/**
 * Mark the start of this iteration's computation (see
 * bal_rebalance_mark()). Never communicates.
 * @return BAL_OK; BAL_EINVAL if g is NULL. Thread-safety: not thread-safe.
 */
BAL_API int bal_rebalance_geo_mark(bal_rebalance_geo *g);

/**
 * The load-balancing hook: call once per iteration on every rank (the same
 * number of times everywhere), where items can move. It counts every item
 * of the rank as processed. At an interaction the rank's coordinates (and
 * weights) are read and checked; when a move is decided they are read
 * again, gathered, partitioned and the items move.
 * @param g         the balancer.
 * @param compute_s seconds this rank computed in this iteration (>= 0,
 *                  finite), or #BAL_REBALANCE_MEASURE.
 * @param moved     receives the items this rank sent plus received in this
 *                  call (0: its items are untouched); may be NULL;
 *                  untouched on error.
 * @return BAL_OK; BAL_EINVAL if g is NULL (local). Every other error is
 *         collective and delayed as in bal_rebalance_step(): BAL_EINVAL (a
 *         bad time; a coordinate not finite or outside the domain box; a
 *         weight NaN, infinite or negative; a negative count; a count
 *         that changed between the exchange and the move; a minimum extent
 *         the domain cannot hold for this many ranks), BAL_ECALLBACK,
 *         BAL_ERANGE (more items than the gather can count, a package of
 *         2 GiB or more, a move limit that even the current boundaries
 *         exceed), BAL_ENOMEM; each with nothing moved, on every rank.
 *         BAL_EMPI: the ranks may disagree; call MPI_Abort.
 * Thread-safety: one call at a time per handle, from an MPI-capable
 * thread; callbacks run on the calling thread.
 */
BAL_API int bal_rebalance_geo_step(bal_rebalance_geo *g, double compute_s, int64_t *moved);

/**
 * Partition now and move the items, whatever the measurements say (an
 * initial decomposition, or after the application changed its items).
 * Weights: the weights callback's, or 1 per item without it. A pending
 * exchange of measurements is dropped (its errors are returned) and the
 * next one starts a full interval later. Collective.
 * @param g     the balancer.
 * @param moved receives the items this rank sent plus received; may be
 *              NULL; untouched on error.
 * @return BAL_OK; BAL_EINVAL if g is NULL (local); otherwise the collective
 *         codes of bal_rebalance_geo_step(), on every rank, nothing moved.
 * Thread-safety: as bal_rebalance_geo_step().
 */
BAL_API int bal_rebalance_geo_partition(bal_rebalance_geo *g, int64_t *moved);

/**
 * The decomposition the items follow now: the partition of the last move
 * (every rank's region with bal_partition_region_get() and neighbours with
 * bal_partition_neighbors(), this rank's being part `rank` of the
 * communicator). The import/export lists it holds are indices of that
 * move's gather, in rank order. NULL before the first move.
 * @return the result, owned by g and valid until its next move or
 *         destruction; NULL if g is NULL or nothing moved yet.
 * Thread-safety: read-only; not concurrently with a step of g.
 */
BAL_API const bal_partition_result *bal_rebalance_geo_result(const bal_rebalance_geo *g);

/**
 * This rank's region in the decomposition the items follow now (part
 * `rank` of bal_rebalance_geo_result()).
 * @param g   the balancer.
 * @param out receives the region (a box, or an interval of curve keys).
 * @return BAL_OK; BAL_EINVAL if g or out is NULL; BAL_ENOTFOUND before
 *         the first move (out untouched).
 * Thread-safety: read-only; not concurrently with a step of g.
 */
BAL_API int bal_rebalance_geo_region(const bal_rebalance_geo *g, bal_partition_region *out);

/**
 * This rank's neighbours in the decomposition the items follow now: the
 * ranks whose regions touch this rank's (bal_partition_neighbors()),
 * ascending; symmetric across ranks.
 * @param g    the balancer.
 * @param list receives a pointer to the list (owned by g, valid until its
 *             next move or destruction); may be NULL for the count.
 * @return the number of neighbours (>= 0); BAL_EINVAL if g is NULL;
 *         BAL_ENOTFOUND before the first move.
 * Thread-safety: read-only; not concurrently with a step of g.
 */
BAL_API int bal_rebalance_geo_neighbors(const bal_rebalance_geo *g, const int **list);

/**
 * Statistics of this rank (the fields of #bal_rebalance_stats; items are
 * counted as with bal_rebalance_step()).
 * @return BAL_OK; BAL_EINVAL if g or out is NULL.
 * Thread-safety: read-only; not concurrently with a step of g.
 */
BAL_API int bal_rebalance_geo_stats_get(const bal_rebalance_geo *g, bal_rebalance_stats *out);

/**
 * Free a geometric balancer. Collective (as bal_rebalance_destroy()).
 * NULL is ignored. Thread-safety: the thread that made its other calls.
 */
BAL_API void bal_rebalance_geo_destroy(bal_rebalance_geo *g);

BAL_END_DECLS

#endif /* BALLAST_REBALANCE_GEO_H */
