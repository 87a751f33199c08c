/* Private: the files of the `partition` module (geometric decomposition in
 * 2-D and 3-D, ballast/partition.h; pure, no MPI, in every build):
 *   compute.c    bal_partition_compute(): checks, then plan, label, limit, result
 *   result.c     the result handle: configuration defaults, accessors, destroy
 *   method.c     the registry of methods (names to plan/place); one file each:
 *   hilbert.c      "hilbert" (Hilbert keys) and morton.c "morton" (bit interleaving),
 *                  both spreading bits with spread.h,
 *                  both strings cut by sfc.c
 *   rcb.c          "rcb" (recursive bisection by weighted selection)
 *   tensor.c       "tensor" and staggered.c "staggered", both made of slabs.c
 *   sfc.c        a curve string: keys, order, current cuts from `from`, cuts
 *   slabs.c      planes along one dimension with equal weight between them;
 *                the choice of a process grid
 *   cut1d.c      cuts of a chain that move few items from reference cuts
 *                within a tolerance
 *   cut_align.c  fresh curve cuts moved within the tolerance to close coarse
 *                aligned blocks, the least summed perimeter (compact pieces)
 *   cut_dp.c     one of cut1d.c's candidates: a dynamic programme over a few
 *                positions per cut
 *   cut_band.c   another: the cuts of least summed distance to the current
 *                ones, exactly, each within a band around its current place
 *   chain_moves.c items moved between two cuttings of a chain (with REMAP)
 *   remap.c      greedy max-overlap relabelling
 *   neighbors.c  neighbour lists: the CSR of a list of touching pairs; touching
 *                boxes by a sweep along x
 *   curve_nbr.c  touching curve pieces: each key interval cut into aligned
 *                cells, each cell's same-size neighbours looked up on the curve
 *   transfers.c  import/export lists
 *   wire.c       a result in one flat buffer, rebuilt elsewhere from it and
 *                the items' parts (one rank partitions for all: rebalance_geo)
 *   quality.c    grid quality figures and moved items (public, stateless)
 *
 * The life of one call. compute.c checks every input (nothing is written
 * before all checks pass), resolves the method and, for box methods, the
 * process grid. The method's plan() does the expensive work once: sorts
 * along the curve or a dimension, places the target boundaries (and, when
 * incremental, the current ones: ref), and gives each piece (curve piece,
 * grid cell, bisection leaf) a base label. The method's place() turns a
 * plan into piece indices per item and a region per piece, for a blend t
 * in [0, 1] between the current (t = 0) and the target (t = 1)
 * boundaries. compute.c places at t = 1, relabels (remap.c) when `from` is
 * given, and when more items would move than allowed, bisects on t. Last it
 * builds the handle: regions by label, neighbours, transfers and, for the
 * box methods, the boundaries at the chosen t so that the next call can
 * start from them (`prev`). */
#ifndef BALLAST_PARTITION_PARTITION_INTERNAL_H
#define BALLAST_PARTITION_PARTITION_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/partition.h>

/* What a method sees: the checked input and configuration. */
typedef struct bal__part_ctx {
  const bal_partition_input *in;
  const bal_partition_config *cfg;
  const bal_partition_result *prev; /* same method, parts, grid, domain; or NULL */
  int dim;
  int parts;
  int grid[3];     /* resolved process grid (box methods; 1 in unused dimensions) */
  bool incremental; /* cfg->incremental with what the method needs to use it */
} bal__part_ctx;

/* A plan: what place() needs to produce the assignment at any blend t. */
typedef struct bal__part_plan {
  int *label;     /* parts: base label of each piece (method order, or inherited) */
  bool blend;     /* place() accepts t < 1 (ref is meaningful) */
  double *ref;    /* nbound current boundaries (t = 0), or NULL */
  double *tgt;    /* nbound target boundaries (t = 1) */
  int64_t nbound;
  void *priv;     /* the method's own data (freed by its release()) */
} bal__part_plan;

/* The keys of a curve method: a cell's key and, for the neighbour lists,
 * the cell of a key (the inverse). Cells have dim coordinates of
 * BAL_PARTITION_CURVE_BITS bits. key(dim, cell, l) is the first key of the
 * aligned block of side 2^l cells that holds the cell (l = 0: the cell's
 * own key); it skips the l lowest levels, which is what makes the
 * neighbour lists of large blocks cheaper. */
typedef uint64_t (*bal__part_keyfn)(int dim, const uint32_t *cell, int l);
typedef void (*bal__part_cellfn)(int dim, uint64_t key, uint32_t *cell);
/* The first keys of the 3^dim blocks of side 2^l around the block whose
 * corner cell is given (low l bits 0): keys[dir], the digits of dir in
 * base 3 being offset + 1 per dimension (first dimension lowest);
 * UINT64_MAX for the block itself and for blocks outside the grid. */
typedef void (*bal__part_nbrfn)(int dim, const uint32_t *corner, int l, uint64_t *keys);
typedef struct bal__part_curve {
  bal__part_keyfn key;
  bal__part_cellfn cell;
  bal__part_nbrfn nbr_keys;
} bal__part_curve;

typedef struct bal__part_method {
  const char *name;
  bal_partition_region_kind kind;
  bool grid; /* parts form a process grid (cfg->grid) */
  const bal__part_curve *curve; /* curve methods' keys; NULL for box methods */
  /* Fill the plan; labels and boundaries allocated with malloc. */
  int (*plan)(const bal__part_ctx *c, bal__part_plan *pl);
  /* Piece of every item and region of every piece at blend t; bound (may
   * be NULL) receives the nbound boundaries used. */
  int (*place)(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
               bal_partition_region *regions, double *bound);
  void (*release)(void *priv);
} bal__part_method;

struct bal_partition_result {
  const bal__part_method *method;
  int dim;
  int parts;
  int grid[3];
  double lo[3], hi[3];
  bal_partition_region *regions; /* by label */
  int *label;                    /* piece -> label */
  double *bound;                 /* boundaries at the chosen blend (box methods) */
  int64_t nbound;
  int *nbr_off, *nbr;            /* neighbours, CSR by label */
  bal_partition_transfer *xfer;  /* sorted by (from, to) */
  int64_t *xoff;                 /* exports of k: xfer[xoff[k] .. xoff[k+1]) */
  const bal_partition_transfer **imp; /* sorted by (to, from) */
  int64_t *ioff;
  int64_t *items;                /* storage of every transfer's item list */
};

/* method.c */
const bal__part_method *bal__part_method_find(const char *name);

/* Weight of item i (unit when w is NULL). */
static inline double bal__part_w(const double *w, int64_t i) { return w ? w[i] : 1.0; }

/* Binary search in a nondecreasing a[lo..hi): the first index whose
 * value is >= x (or > x when strictly), hi when there is none. One body
 * for two element types: bal__part_first() on weights and coordinates
 * (cuts, slabs, planes), bal__part_first_key() on curve keys; cut_dp.c
 * searches integer cuts. */
#define BAL__PART_FIRST_FN(name, type)                                                      \
  static inline int64_t name(const type *a, int64_t lo, int64_t hi, type x, bool strictly) { \
    while (lo < hi) {                                                                       \
      int64_t mid = lo + (hi - lo) / 2;                                                     \
      if (strictly ? a[mid] > x : a[mid] >= x)                                              \
        hi = mid;                                                                           \
      else                                                                                  \
        lo = mid + 1;                                                                       \
    }                                                                                       \
    return lo;                                                                              \
  }
BAL__PART_FIRST_FN(bal__part_first, double)
BAL__PART_FIRST_FN(bal__part_first_key, uint64_t)
#undef BAL__PART_FIRST_FN

/* cut1d.c: cut a chain of n costs (NULL = unit) into p parts with the best
 * bottleneck (bal_rebalance_cuts()); with ref and tol > 0, cuts whose
 * bottleneck is within (1 + tol) of the best that move few items from ref
 * (the best of several candidates, never more than the fresh cuts: fresh,
 * or the best proportional cuts when NULL), items counted as
 * chain_moves.c does (after REMAP's relabelling when remap). */
int bal__part_cut1d(int64_t n, const double *w, int p, const int64_t *ref, double tol, bool remap,
                    const int64_t *fresh, int64_t *cuts);

/* cut_align.c: the best cuts of a curve string (bottleneck best; keys:
 * the n sorted keys of dim dimensions) moved, each within tol best in
 * weight and every piece within (1 + tol) best, to positions that close
 * coarse aligned blocks of keys, the pieces' summed perimeter least;
 * unchanged when tol is 0. */
int bal__part_cut_align(int64_t n, const double *w, const uint64_t *keys, int dim, int p,
                        double best, double tol, int64_t *cuts);
/* The key where a cut before item j of the sorted keys puts the boundary:
 * of (keys[j-1], keys[j]], the value with the most trailing zero bits
 * (keys[j] when they are equal; 0 for j = 0, end for j = n). */
uint64_t bal__part_cut_key(const uint64_t *keys, int64_t n, int64_t j, uint64_t end);

/* cut_dp.c: cuts of the chain with every piece within cap, chosen among a
 * few positions per cut (current cuts near k, the hints' cuts k, pieces
 * filled to cap) to keep pieces inside one current part each; *found is
 * false when no choice of those positions fits. BAL_OK or BAL_ENOMEM. */
int bal__part_cut_dp(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                     const int64_t *const *hints, int nhints, int64_t *c, bool *found);

/* cut_band.c: a candidate of cut1d.c: of the cuttings with every piece's
 * weight (prefix sums pre) within cap and cut k within d items of ref[k],
 * the one with the least sum of |c[k] - ref[k]|; *found false when none
 * is (or p < 2, n < 1, ref not from 0 to n). O(p d) time, p (2d + 1)
 * 32-bit back pointers. bal__part_cut_band_d returns BAL_OK or
 * BAL_ENOMEM; bal__part_cut_band takes d = want, or less so that a search
 * takes at most 16 MiB, and without the memory reports nothing found
 * (BAL_OK). */
int bal__part_cut_band_d(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                         int64_t d, int64_t *c, bool *found);
int bal__part_cut_band(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                       int64_t want, int64_t *c, bool *found);

/* chain_moves.c: items of a chain cut at ref (part m = [ref[m], ref[m+1]))
 * that change owner when it is cut at c instead (piece j = [c[j], c[j+1])),
 * with the labels following the chain, or (remap) after remap.c's greedy
 * relabelling when that keeps more weight; pre: n+1 prefix sums of the
 * weights. scratch: bal__part_chain_scratch(p) bytes. O(p log p). */
size_t bal__part_chain_scratch(int p);
int64_t bal__part_chain_moved(const double *pre, int p, const int64_t *ref, const int64_t *c,
                              bool remap, void *scratch);

/* sfc.c: the curve methods' plan/place/release, given the key function. */
int bal__part_sfc_plan(const bal__part_ctx *c, bal__part_plan *pl, bal__part_keyfn key);
int bal__part_sfc_place(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
                        bal_partition_region *regions, double *bound);
void bal__part_sfc_release(void *priv);

/* slabs.c */
/* Planes of p slabs along dimension d of the items idx[0..m) (all items
 * when idx is NULL, m = n) within [a, b]: planes[0] = a, planes[p] = b,
 * between them the planes that balance the weight, each halfway between
 * two distinct coordinates; with ref (p+1 current planes) those within the
 * tolerance that move few items (cut1d.c); then spaced by at least the
 * minimum extent. */
int bal__part_slab_planes(const bal__part_ctx *c, const int64_t *idx, int64_t m, int d, double a,
                          double b, int p, const double *ref, double *planes);
/* Slab of coordinate x among p slabs (the last one closed at its top). */
int bal__part_slab_of(const double *planes, int p, double x);
/* Choose grid[0..dim) with product parts: boxes closest to cubes for the
 * domain's extents, each dimension able to hold its slabs of the minimum
 * extent. BAL_EINVAL if none can. */
int bal__part_grid_choose(int dim, int parts, const double *ext, const double *min_extent,
                          int *grid);

/* remap.c: relabel pieces so that as much weight as possible stays with
 * `from`. label[] (pieces -> base labels) is replaced by the better of the
 * base labels and the greedy matching of overlaps. piece[i] is item i's
 * piece. */
int bal__part_remap(int64_t n, const double *w, const int *from, const int *piece, int parts,
                    int *label);

/* neighbors.c: neighbour lists into r->nbr_off / r->nbr (the edge list
 * shared with curve_nbr.c). */
typedef struct bal__part_edge {
  int a, b;
} bal__part_edge;
typedef struct bal__part_edges {
  bal__part_edge *e;
  int64_t n, cap;
} bal__part_edges;
int bal__part_edge_push(bal__part_edges *s, int a, int b);
/* Both directions of every edge into r's CSR, sorted, duplicates dropped. */
int bal__part_edges_to_csr(bal_partition_result *r, bal__part_edges *s);
int bal__part_neighbors_boxes(bal_partition_result *r);

/* curve_nbr.c: spatial neighbours of curve pieces; `order` lists the
 * labels in curve order. */
int bal__part_neighbors_curve(bal_partition_result *r, const int *order);

/* transfers.c: transfers from `from` to `part` into r. */
int bal__part_transfers(bal_partition_result *r, int64_t n, const int *from, const int *part);

/* result.c: the handle of a placement: regions (by piece) and the piece
 * labels, the boundaries, then neighbours and, when `from` is given, the
 * transfers of the n items from `from` to `part`. BAL_OK or BAL_ENOMEM. */
int bal__part_build(const bal__part_method *m, int dim, int parts, const int grid[3],
                    const double lo[3], const double hi[3], const bal_partition_region *regions,
                    const int *label, const double *bound, int64_t nbound, int64_t n,
                    const int *from, const int *part, bal_partition_result **out);

#endif
