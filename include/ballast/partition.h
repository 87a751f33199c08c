/**
 * @file ballast/partition.h
 * @brief Geometric domain decomposition in 2-D and 3-D, without MPI:
 *        space-filling-curve strings (Hilbert, Morton), weighted recursive
 *        coordinate bisection, and the tensor and staggered box methods of
 *        ALL ([ALL], [Berger 1987], [Hilbert 1891], [Morton 1966]).
 *
 * A partition call takes items with coordinates in a declared domain box
 * and weights, and assigns each item to one of P parts. It returns, per
 * part, its region (a box, or an interval of curve keys), its neighbour
 * list, and, when the current owners are given, the import/export lists of
 * the items that change owner. Parts are relabelled to keep as much weight
 * in place as possible (REMAP, as Zoltan calls it: [Boman 2012]) and, given
 * the previous decomposition, boundaries move from where they are instead
 * of being placed afresh, so that a small change of the weights moves few
 * items.
 *
 * Methods are named by strings (bal_partition_method_name() lists them):
 * - "hilbert", "morton": the items are ordered along the curve (keys of
 *   BAL_PARTITION_CURVE_BITS bits per dimension over the domain box) and
 *   the ordered string is cut into P consecutive pieces of near-equal
 *   weight by bal_rebalance_cuts() (ballast/rebalance_plan.h). Then each
 *   cut moves, by at most `tolerance` times the bottleneck (the heaviest
 *   piece of those cuts) in weight, to where it closes a coarse aligned
 *   block of keys, the cuts chosen together (a dynamic programme over a
 *   few such positions per cut) for the least summed perimeter of the
 *   pieces' blocks, each piece within (1 + tolerance) times the
 *   bottleneck: pieces become unions of whole squares (cubes) instead of
 *   staircases down to single cells, which took 3-13% off the halo of
 *   "hilbert" and up to 10% off "morton"'s on 10^6 cells, at 1-8% more
 *   time (docs/BENCHMARKS.md); tolerance 0 keeps the
 *   best-balanced cuts. Region: a half-open interval of curve keys, its
 *   ends the keys with the most trailing zero bits between the last item
 *   of one piece and the first of the next (items closer than one curve
 *   cell share a key and may still be split by a cut: the next piece's
 *   first key is then that key). O(n) keys, a radix sort,
 *   O(n + P log n) cuts, O(n + P dim bits) to move them.
 * - "rcb": weighted recursive coordinate bisection for any P: a box with p
 *   parts is cut across its longest dimension into floor(p/2) and
 *   ceil(p/2) parts, the weight split in the same proportion; the cut is
 *   found by selection (expected O(m) for m items), not by sorting, so the
 *   whole call is O(n log P) expected. Items on a cut plane may go to either
 *   side (in order of their other coordinates, so that the boundary takes
 *   a single step along the plane), so the balance is not limited by ties.
 *   Region: a box.
 * - "tensor": a Cartesian grid of px x py [x pz] parts; along each
 *   dimension the planes are placed so that the slabs between them carry
 *   equal summed weight (ALL's tensor method). Region: a box. O(n log n).
 *   A hotspot is balanced only as far as its slabs' projections allow.
 * - "staggered": px slabs along x balanced as in "tensor", then each slab
 *   cut into py columns along y with its own planes, then each column into
 *   pz boxes along z (ALL's staggered method). Region: a box. O(n log n).
 * Planes of "tensor" and "staggered" lie between distinct coordinates, so
 * all items with equal coordinates in a dimension share a slab.
 *
 * Boxes tile the domain box: they are closed ([lo, hi] in every
 * dimension), neighbours share a face, an edge or a corner, and every item
 * lies inside the box of its part. A curve interval is a region too: the
 * closed cells of the curve's grid (2^BAL_PARTITION_CURVE_BITS per
 * dimension over the domain box) whose keys it holds, empty or not, and
 * two curve parts are neighbours when a cell of one shares a face, an edge
 * or a corner with a cell of the other: the same definition as for boxes.
 *
 * Every function here is pure (no global state, no I/O, no printing; the
 * outputs depend only on the arguments) and reentrant: safe to call from
 * any thread at once as long as threads do not share output buffers. A
 * result handle is immutable after bal_partition_compute() returns and may
 * be read from several threads at once.
 */
#ifndef BALLAST_PARTITION_H
#define BALLAST_PARTITION_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>

BAL_BEGIN_DECLS

/** Bits per dimension of the curve keys of "hilbert" and "morton" (a
 *  key has dim * BAL_PARTITION_CURVE_BITS bits: 42 in 2-D, 63 in 3-D). */
#define BAL_PARTITION_CURVE_BITS 21

/** Largest number of parts a call accepts. */
#define BAL_PARTITION_MAX_PARTS (1 << 20)

/** Default of bal_partition_config.tolerance: an incremental step may
 *  leave the weight of a part this fraction above the best it could reach,
 *  to keep its boundaries in place, and a curve partition, to close
 *  coarse blocks (see the top). 0.04 keeps the curve strings within
 *  1.05 of the average on smooth fields while a hotspot moved by 1% of the
 *  domain moves 4-24% of what a fresh partition moves (measured on four
 *  positions of a hotspot on a 400 x 250 grid, P = 16: docs/rebalance.md);
 *  0.02 moved up to 44%. It is relative to the best cut, not to the
 *  average: a step's max/avg is at most (1 + tolerance) times the best
 *  cut's, so within 1.05 only while that is within 1.0096 (measured at
 *  most 1.0037 on 10^6 cells up to P = 1024; not so with few items per
 *  part). The same bound holds for a fresh curve partition: measured at
 *  most 1.0433 there (docs/BENCHMARKS.md). */
#define BAL_PARTITION_TOLERANCE_DEFAULT 0.04

/**
 * The items to partition. A plain struct: fill every field (none has a
 * default).
 */
typedef struct bal_partition_input {
  int dim;               /**< 2 or 3 */
  double lo[3];          /**< domain box, lower corner (the first dim used; finite) */
  double hi[3];          /**< upper corner; hi[d] >= lo[d] */
  int64_t n;             /**< number of items (>= 1, >= parts) */
  const double *coords;  /**< n * dim coordinates, interleaved (x0 y0 [z0] x1 y1 ...);
                              each inside the closed domain box */
  const double *weights; /**< n weights (finite, >= 0), or NULL for unit weights */
  const int *from;       /**< n current owners in [0, parts), or NULL (no current
                              decomposition: no import/export lists, no REMAP) */
} bal_partition_input;

/**
 * How to partition; initialise with bal_partition_config_init(), then
 * change fields. A NULL configuration means the defaults.
 */
typedef struct bal_partition_config {
  const char *method;      /**< a name from bal_partition_method_name(); default "rcb" */
  int parts;               /**< P, in [1, BAL_PARTITION_MAX_PARTS]; default 1 */
  int grid[3];             /**< process grid of "tensor" and "staggered": parts per
                                dimension, product = parts; all 0 (default) = choose
                                the factorisation of parts whose boxes are closest to
                                cubes for the domain's aspect. Ignored by other
                                methods. */
  double min_extent[3];    /**< smallest extent of a region per dimension (box methods;
                                finite, >= 0; default 0 = none). Ignored by the curve
                                methods. */
  double max_move_fraction; /**< largest fraction of the n items that may change owner
                                relative to `from`, in [0, 1]; default 1 (no limit). */
  double tolerance;        /**< how far (relative) the heaviest piece of a cut may
                                exceed the best the cutter reaches: in incremental
                                steps, so that boundaries stay closer to the current
                                ones, and in every curve partition, so that pieces
                                close coarse blocks (see the top; 0: the best-balanced
                                cuts) (finite, >= 0; default
                                BAL_PARTITION_TOLERANCE_DEFAULT). It applies to each
                                cut: once for the curve string, per dimension for
                                "tensor" and per level for "staggered", so box
                                methods may compound it (up to (1 + tol)^dim). */
  bool remap;              /**< relabel parts to keep weight in place (needs `from`);
                                default true */
  bool incremental;        /**< move boundaries from the current decomposition (needs
                                `from`, or `prev` for the box methods); default true */
} bal_partition_config;

/** The result of one partition call: regions, neighbours, transfers.
 *  Opaque; release with bal_partition_result_destroy(). */
typedef struct bal_partition_result bal_partition_result;

/** What a region is. */
typedef enum bal_partition_region_kind {
  BAL_PARTITION_REGION_BOX = 0,  /**< a closed box [lo, hi] ("rcb", "tensor", "staggered") */
  BAL_PARTITION_REGION_CURVE = 1 /**< an interval [key_lo, key_hi) of curve keys
                                      ("hilbert", "morton") */
} bal_partition_region_kind;

/** The region of one part. */
typedef struct bal_partition_region {
  bal_partition_region_kind kind;
  double lo[3];    /**< BOX: lower corner (unused dimensions 0) */
  double hi[3];    /**< BOX: upper corner */
  uint64_t key_lo; /**< CURVE: first key of the part (0 for the first part) */
  uint64_t key_hi; /**< CURVE: first key after the part (2^(dim*bits) for the last) */
} bal_partition_region;

/** One transfer of a partition: the `count` items with the indices
 *  `items[0..count)` (ascending) go from part `from` to part `to`. */
typedef struct bal_partition_transfer {
  int from;
  int to;
  int64_t count;
  const int64_t *items; /**< owned by the result handle */
} bal_partition_transfer;

/**
 * Fill a configuration with the defaults: method "rcb", 1 part, grid
 * chosen, no minimum extent, no move limit, tolerance
 * BAL_PARTITION_TOLERANCE_DEFAULT, remap and incremental on.
 * @param cfg the configuration.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_partition_config_init(bal_partition_config *cfg);

/**
 * The i-th method name, for tools and tests: "hilbert", "morton", "rcb",
 * "tensor", "staggered" (in this order).
 * @param i index from 0.
 * @return a static string; NULL past the end (and for i < 0).
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API const char *bal_partition_method_name(int i);

/**
 * Partition the items into cfg->parts parts.
 *
 * Without `in->from` the partition is computed afresh and labelled in the
 * method's order (curve order; depth-first order of the bisection tree,
 * lower side first; x fastest in the process grid, then y, then z).
 *
 * With `in->from` (the current owners):
 * - incremental (cfg->incremental): "hilbert"/"morton" take the current
 *   cuts from `from` (parts ordered by the median curve position of their
 *   items) and, of the cuts whose heaviest piece is within the tolerance of
 *   the best, choose ones that move few items, counted after the
 *   relabelling below when cfg->remap is set (the best of several
 *   candidates: the fresh partition's cuts, so a step never moves more
 *   items than a fresh partition with the same remap setting, except
 *   where REMAP's matching has ties of equal weight and item count, or
 *   the labels of `from` do not follow the curve, which the count reads
 *   differently from the relabelling; the current
 *   cuts, or the current cuts nearest the fresh ones, clamped into the
 *   tolerance from either end of the string; the current cuts moved part
 *   of the way to the best ones; the cuts with the least summed distance
 *   to the current ones, exactly, among cuts each within a band around
 *   its current place (about 2^21 / (P + 3) items either way: two average
 *   parts on 10^6 items, the whole string for short ones); not an exact
 *   minimum of the items moved);
 *   "tensor"/"staggered" do the same with their planes when
 *   `prev` is given (the previous result of the same method, grid and
 *   domain; without it they partition afresh); "rcb" partitions afresh.
 * - remap (cfg->remap): the parts are relabelled by a greedy matching of
 *   largest overlap (weight of the items that a new part shares with an
 *   old one, heaviest pair first), kept only if it leaves at least as much
 *   weight in place as the labels without it; unmatched parts take the
 *   free labels in increasing order.
 * - the move limit (cfg->max_move_fraction): when more than
 *   floor(fraction * n) items would change owner, the curve methods and
 *   the incremental box methods move their boundaries only part of the way
 *   from the current to the new positions, the largest part found by
 *   bisection that keeps within the limit. When even the current
 *   boundaries exceed it (`from` is not a decomposition of this method),
 *   or the method cannot move part of the way ("rcb", box methods without
 *   `prev`), the call fails with BAL_ERANGE. Part of the way, the parts
 *   keep the labels that follow the current decomposition (no REMAP).
 *
 * Cost: the method's (see the top), plus O(n) for checks and labels,
 * O(n + pairs log pairs) for REMAP (pairs: distinct (new, current) part
 * pairs), 20 placements more when the move limit binds, and for the box
 * methods' neighbour lists a sweep along x: O(P log P + touching pairs)
 * for boxes in a grid, O(P^2) at worst (boxes that all span x). The curve
 * methods' neighbour lists cut each interval into its largest aligned
 * blocks of cells (at most 2 (2^dim - 1) bits: 126 in 2-D, 294 in 3-D)
 * and look up the curve position of each block's 3^dim - 1 neighbours of
 * its size: O(P 2^dim 3^dim bits (dim bits + log P)) time at worst,
 * independent of n, and O(P + touching pairs) memory. Measured
 * (docs/BENCHMARKS.md) at P = 1024 on 10^6 uniform items, single-threaded
 * CPU time on a shared machine: asking for the result handle adds 0.32 s
 * ("hilbert") and 0.10 s ("morton") in 3-D, 0.03 s and 0.015 s in 2-D, to
 * calls that take 0.56, 0.20, 0.46 and 0.21 s without it.
 *
 * @param in     the items (see bal_partition_input).
 * @param cfg    configuration, or NULL for the defaults.
 * @param prev   the previous result of the same method and domain for
 *               incremental box methods, or NULL. Only its boundaries are
 *               read; it may be released after the call.
 * @param part   receives n owners in [0, parts); every item exactly one.
 * @param out    receives the result handle (regions, neighbours, transfers);
 *               may be NULL when only `part` is wanted.
 * @return BAL_OK;
 *         BAL_EINVAL on a NULL in/part, dim not 2 or 3, a domain box with a
 *         non-finite corner or hi < lo, n < 1, coords NULL, a coordinate
 *         not finite or outside the domain box, a weight NaN, infinite or
 *         negative, an owner in `from` outside [0, parts), parts < 1 or
 *         > BAL_PARTITION_MAX_PARTS or > n, an unknown method, a grid whose
 *         product is not parts (or with a negative entry, or a third entry
 *         other than 0/1 in 2-D), a negative or non-finite min_extent or
 *         tolerance, max_move_fraction outside [0, 1], a `prev` of another
 *         method, part count, grid or domain, or a minimum extent the
 *         domain cannot hold (fewer than parts boxes of that size fit, or a
 *         dimension of the process grid does not; "rcb" also when a
 *         bisection finds no dimension in which both halves can hold their
 *         parts, which can happen although parts boxes would fit);
 *         BAL_ERANGE if the move limit cannot be met (above);
 *         BAL_ENOMEM. On error `part` and `*out` are untouched.
 * Thread-safety: safe (pure, reentrant); `prev` may be shared between threads.
 */
BAL_API int bal_partition_compute(const bal_partition_input *in, const bal_partition_config *cfg,
                                  const bal_partition_result *prev, int *part,
                                  bal_partition_result **out);

/** Release a result; ignores NULL. Thread-safety: safe, once per handle. */
BAL_API void bal_partition_result_destroy(bal_partition_result *r);

/** Number of parts of a result; 0 for NULL. Thread-safety: safe. */
BAL_API int bal_partition_result_parts(const bal_partition_result *r);

/** Name of the method that made a result (a static string); NULL for NULL.
 *  Thread-safety: safe. */
BAL_API const char *bal_partition_result_method(const bal_partition_result *r);

/**
 * The region of part k.
 * @param r   a result.
 * @param k   part, in [0, parts).
 * @param out receives the region.
 * @return BAL_OK; BAL_EINVAL on a NULL pointer or k out of range.
 * Thread-safety: safe (reads the immutable result).
 */
BAL_API int bal_partition_region_get(const bal_partition_result *r, int k,
                                     bal_partition_region *out);

/**
 * The neighbours of part k, ascending, without k itself: the parts whose
 * regions touch part k's (faces, edges and corners: up to 26 per box in a
 * 3-D grid). Box methods: the closed boxes touch. Curve methods: a cell of
 * the curve's grid in one interval touches a cell in the other (see the
 * top; an empty interval has no neighbours; on "hilbert" the non-empty
 * parts before and after k on the curve are always among them, as
 * consecutive cells share a face, but not always on "morton", whose curve
 * jumps). The relation is symmetric. These are neighbours of
 * regions, which cover the whole domain box: two parts may be neighbours
 * across space that holds none of their items.
 * @param r    a result.
 * @param k    part, in [0, parts).
 * @param list receives a pointer to the list, owned by the result (valid
 *             until it is destroyed); may be NULL to get the count only.
 * @return the number of neighbours (>= 0); BAL_EINVAL on a NULL r or k out
 *         of range.
 * Thread-safety: safe (reads the immutable result).
 */
BAL_API int bal_partition_neighbors(const bal_partition_result *r, int k, const int **list);

/**
 * The transfers leaving part k (its export list), ordered by destination.
 * Each transfer appears once in the exports of its sender and once in the
 * imports of its receiver, as the same struct (same `items` pointer).
 * Empty when the call had no `from`.
 * @param r    a result.
 * @param k    part, in [0, parts).
 * @param list receives a pointer to the first transfer (owned by the result),
 *             may be NULL to get the count only.
 * @return the number of transfers (>= 0); BAL_EINVAL on a NULL r or k out
 *         of range.
 * Thread-safety: safe (reads the immutable result).
 */
BAL_API int bal_partition_exports(const bal_partition_result *r, int k,
                                  const bal_partition_transfer **list);

/**
 * The transfers arriving at part k (its import list), ordered by source:
 * list[i] points to the struct that the sender's export list holds.
 * @param r    a result.
 * @param k    part, in [0, parts).
 * @param list receives a pointer to an array of pointers (owned by the
 *             result), may be NULL to get the count only.
 * @return the number of transfers (>= 0); BAL_EINVAL on a NULL r or k out
 *         of range.
 * Thread-safety: safe (reads the immutable result).
 */
BAL_API int bal_partition_imports(const bal_partition_result *r, int k,
                                  const bal_partition_transfer *const **list);

/* ------------------------------------------------------------------ */
/* Quality                                                             */
/* ------------------------------------------------------------------ */

/** Quality figures of an assignment of a structured grid's cells. */
typedef struct bal_partition_quality {
  double imbalance;      /**< max part weight / average part weight; NaN if the
                              total weight is 0 */
  double max_weight;     /**< heaviest part's weight */
  double avg_weight;     /**< total weight / parts */
  int64_t halo_faces;    /**< faces between two cells of different parts */
  int neighbors_max;     /**< most parts sharing a face with one part */
  double neighbors_avg;  /**< average over all parts (empty ones included) */
  int empty_parts;       /**< parts with no cell */
} bal_partition_quality;

/**
 * Quality of an assignment of the cells of an nx x ny [x nz] grid (cell i
 * is (i mod nx, (i / nx) mod ny, i / (nx ny)): x fastest).
 * O(cells + halo log halo).
 * @param dim    2 or 3.
 * @param cells  cells per dimension (cells[2] ignored in 2-D), each >= 1.
 * @param n      number of cells; must equal the product of cells (else
 *               BAL_EINVAL).
 * @param w      n weights (finite, >= 0), or NULL for unit weights.
 * @param parts  number of parts (>= 1).
 * @param part   n owners in [0, parts).
 * @param out    receives the figures.
 * @return BAL_OK; BAL_EINVAL on a NULL pointer or a value out of range;
 *         BAL_ERANGE if the product of cells overflows; BAL_ENOMEM.
 *         *out untouched on error.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_partition_grid_quality(int dim, const int64_t cells[3], int64_t n,
                                       const double *w, int parts, const int *part,
                                       bal_partition_quality *out);

/**
 * Items and weight that change owner between two assignments. O(n).
 * @param n      number of items (>= 0).
 * @param w      n weights (finite, >= 0), or NULL for unit weights.
 * @param a, b   n owners each (any int values; compared for equality).
 * @param items  receives the number of i with a[i] != b[i]; may be NULL.
 * @param weight receives their summed weight; may be NULL.
 * @return BAL_OK; BAL_EINVAL on n < 0, a NULL a or b with n > 0, or a bad
 *         weight (outputs untouched).
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_partition_moved(int64_t n, const double *w, const int *a, const int *b,
                                int64_t *items, double *weight);

BAL_END_DECLS

#endif /* BALLAST_PARTITION_H */
