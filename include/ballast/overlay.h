/**
 * @file ballast/overlay.h
 * @brief `overlay` module: a Kleinberg small-world graph on a ring of nodes
 *        (MPI ranks, say), greedy routing through it, and victim selection.
 *
 * The graph: node u links to its two ring neighbours u-1 and u+1 (mod N)
 * plus shortcuts whose ring distance d is drawn with P(d) roughly
 * proportional to d^-exponent. Edges are symmetric. The graph is a pure
 * function of (nodes, degree, exponent, seed): every rank that creates an
 * overlay with the same parameters gets the same graph, with no
 * communication, and every node's neighbour list can be computed on its own
 * (bal_overlay_create_local()) in time and memory proportional to the
 * degree, because each shortcut is derived from hashes that either end of
 * the edge can recompute.
 *
 * Routing: bal_overlay_next_hop() forwards greedily by ring distance with
 * neighbour-of-neighbour lookahead, and first checks whether the
 * destination is reachable in at most three hops (a neighbour's
 * neighbourhood meeting the destination's). Routes always terminate.
 *
 * Thread-safety: a handle is immutable after creation; every function that
 * takes a `const bal_overlay *` may be called concurrently on one handle.
 * See docs/overlay.md for the user guide.
 */
#ifndef BALLAST_OVERLAY_H
#define BALLAST_OVERLAY_H

#include <ballast/defs.h>
#include <ballast/error.h>

BAL_BEGIN_DECLS

/** Largest number of nodes an overlay can have: 2^62. The shortcut
 *  matching pairs positions through keyed permutations of [0, 2^b) with b
 *  up to 63; larger rings would need b = 64, which the permutation cannot
 *  represent. Far above any machine: N is a rank count. */
#define BAL_OVERLAY_MAX_NODES (INT64_C(1) << 62)

/** Opaque overlay handle (whole graph, or one node's neighbourhood). */
typedef struct bal_overlay bal_overlay;

/** Shortcut-length exponent used when a non-positive exponent is given:
 *  1.0, Kleinberg's optimum for a one-dimensional lattice. */
#define BAL_OVERLAY_DEFAULT_EXPONENT 1.0

/**
 * Build the whole overlay: every node's neighbour list.
 * @param nodes    number of nodes, 1 <= N <= #BAL_OVERLAY_MAX_NODES, numbered
 *                 0..N-1 around the ring.
 * @param degree   target AVERAGE number of distinct neighbours per node,
 *                 ring links included; >= 2. It is clamped to N-1, so N = 1
 *                 has no neighbours, N = 2 one, N = 3 two; when the clamped
 *                 target is N-1 the graph is complete.
 * @param exponent shortcut lengths d are drawn with P(d) ~ d^-exponent;
 *                 <= 0 selects #BAL_OVERLAY_DEFAULT_EXPONENT. Must be finite.
 * @param seed     any value; same parameters and seed give the same graph.
 * @param out      receives the handle; untouched on error.
 * @return BAL_OK; BAL_EINVAL if nodes < 1 or > #BAL_OVERLAY_MAX_NODES,
 *         degree < 2, exponent is NaN or infinite, or out is NULL;
 *         BAL_ENOMEM.
 * Cost: O(N * degree) time and memory (for N = 100,000 at degree
 * 4*log2(N) = 66: about 0.6 s, 53 MB held, 110 MB at the peak of the build).
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_overlay_create(int64_t nodes, int degree, double exponent, uint64_t seed,
                               bal_overlay **out);

/**
 * Scalable mode: materialise only `node`'s neighbour list and the neighbour
 * lists of its neighbours (what next-hop lookahead needs). The lists are
 * exactly those bal_overlay_create() would give for the same parameters.
 * @param node the node whose neighbourhood is built, in [0, nodes).
 * Other parameters and return codes as bal_overlay_create(); BAL_EINVAL also
 * if node is out of range.
 * Cost: O(degree^2) time and memory, about 0.7 ms and 55 KB for N = 10^6 at
 * degree 80 (for N <= 1024 or very dense graphs, O(N) per list).
 * Thread-safety: safe from any thread.
 */
BAL_API int bal_overlay_create_local(int64_t nodes, int degree, double exponent, uint64_t seed,
                                     int64_t node, bal_overlay **out);

/** Free an overlay. NULL is ignored. Thread-safety: no other call may use
 *  ov meanwhile or after. */
BAL_API void bal_overlay_destroy(bal_overlay *ov);

/**
 * Neighbour list of one node, held by the handle.
 * @param ov    the overlay.
 * @param node  a node in [0, N). On a local handle it must be the local node
 *              or one of its neighbours.
 * @param nbrs  receives a pointer to the list: sorted ascending, without
 *              `node` itself and without duplicates; valid until
 *              bal_overlay_destroy(). May be NULL-valued when count is 0.
 * @param count receives the list's length.
 * @return BAL_OK; BAL_EINVAL if ov, nbrs or count is NULL or node is out of
 *         range; BAL_ENOTSUP if ov is a local handle that does not hold
 *         node's list (use bal_overlay_neighbors_copy()).
 * Thread-safety: safe (read-only).
 */
BAL_API int bal_overlay_neighbors(const bal_overlay *ov, int64_t node, const int64_t **nbrs,
                                  int *count);

/**
 * Copy (computing it if the handle does not hold it) any node's neighbour
 * list into a caller buffer. Works on whole and local handles alike.
 * @param ov    the overlay.
 * @param node  a node in [0, N).
 * @param buf   receives the sorted list; may be NULL when cap is 0.
 * @param cap   capacity of buf in entries; bal_overlay_info::max_degree
 *              entries always suffice.
 * @param count receives the list's length (also when cap is too small).
 * @return BAL_OK; BAL_EINVAL if ov or count is NULL, node is out of range,
 *         cap < 0 or buf is NULL with cap > 0; BAL_ERANGE if cap < *count
 *         (buf then holds nothing useful); BAL_ENOMEM.
 * Cost on a local handle for a node it does not hold: O(degree) hash draws
 * (about 6 us for N = 10^6 at degree 80).
 * Thread-safety: safe (read-only).
 */
BAL_API int bal_overlay_neighbors_copy(const bal_overlay *ov, int64_t node, int64_t *buf, int cap,
                                       int *count);

/**
 * Next node on the route from `from` to `to`: a neighbour of `from`.
 * Rule: if `to` is a neighbour, `to`; else a neighbour that is a neighbour
 * of `to`; else the first neighbour (ascending) whose neighbourhood meets
 * `to`'s; else the neighbour w minimising the ring distance to `to` over
 * w and w's neighbours (ties: w closer to `to`, then smaller w). Following
 * next hops always reaches `to`, in at most 3 hops once the first three
 * rules apply, and the greedy part strictly decreases the best two-hop
 * distance at every step.
 * @return `to` if from == to; otherwise the next node (>= 0); BAL_EINVAL if
 *         ov is NULL or from/to is out of range; BAL_ENOMEM (local handles
 *         with a degree above 512 only).
 * Cost: whole handle, about 1 us at N = 10,000, degree 64 (10 us at
 * N = 100,000). Local handle: lists the handle does not hold are computed
 * on the fly, O(degree) draws each: the destination's when from is the
 * local node (about 20 us per call at N = 10^6, degree 80), and also all
 * of from's neighbours' otherwise (about 0.5 ms).
 * Thread-safety: safe (read-only).
 */
BAL_API int64_t bal_overlay_next_hop(const bal_overlay *ov, int64_t from, int64_t to);

/** Figures describing an overlay (see bal_overlay_get_info()). */
typedef struct bal_overlay_info {
  int64_t nodes;      /**< N */
  int degree;         /**< the degree that was asked for */
  int target_degree;  /**< target after clamping: min(degree, N - 1) */
  double exponent;    /**< exponent in use (the default if <= 0 was given) */
  uint64_t seed;      /**< the seed */
  int64_t local_node; /**< the local node, or -1 for a whole-graph handle */
  int max_degree;     /**< upper bound on any node's degree (buffer sizing) */
  int64_t edges;      /**< undirected edges (whole handle), -1 on a local handle */
} bal_overlay_info;

/**
 * Describe an overlay.
 * @return BAL_OK; BAL_EINVAL if ov or out is NULL.
 * Thread-safety: safe (read-only).
 */
BAL_API int bal_overlay_get_info(const bal_overlay *ov, bal_overlay_info *out);

/**
 * Victim selection, uniform: a neighbour of `node` drawn uniformly.
 * @param ov     the overlay; on a local handle node must be one it holds.
 * @param node   the thief.
 * @param state  caller-held generator state (any initial value, e.g. a
 *               seed mixed with the rank); advanced by each call.
 * @param victim receives the chosen neighbour.
 * @return BAL_OK; BAL_EINVAL if a pointer is NULL or node is out of range;
 *         BAL_ENOTSUP as bal_overlay_neighbors(); BAL_ERANGE if node has no
 *         neighbours (N = 1).
 * Thread-safety: safe on one handle; each thread needs its own state.
 */
BAL_API int bal_overlay_victim_uniform(const bal_overlay *ov, int64_t node, uint64_t *state,
                                       int64_t *victim);

/**
 * Victim selection, latency-biased: neighbour i (in bal_overlay_neighbors()
 * order) is drawn with probability proportional to latency[i]^-bias, so
 * near neighbours are preferred while far ones keep a chance.
 * @param latency one positive finite cost per neighbour (seconds, hops,
 *               anything proportional), or NULL to use the ring distance
 *               (meaningful when the ring order follows the placement of
 *               ranks, e.g. hwloc or rank order on nodes).
 * @param bias   >= 0; 0 is uniform, 1 inversely proportional to latency.
 * Other parameters as bal_overlay_victim_uniform().
 * Weights are taken relative to the lowest latency, so finite positive
 * latencies and a finite bias always give BAL_OK, whatever their range:
 * equal latencies give a uniform draw, and where a neighbour's weight
 * (latency / lowest)^-bias underflows to 0 it is never drawn, leaving the
 * draw among the lowest-latency neighbours.
 * @return as bal_overlay_victim_uniform(); BAL_EINVAL also if bias is
 *         negative or not finite or a latency is not positive and finite.
 * Cost: O(degree) per call.
 * Thread-safety: safe on one handle; each thread needs its own state.
 */
BAL_API int bal_overlay_victim_biased(const bal_overlay *ov, int64_t node, const double *latency,
                                      double bias, uint64_t *state, int64_t *victim);

BAL_END_DECLS

#endif /* BALLAST_OVERLAY_H */
