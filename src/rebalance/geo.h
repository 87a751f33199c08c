/* Private: the geometric balancer (ballast/rebalance_geo.h), a client of
 * the module's loop. Its handle owns a bal_rebalance whose balancer is
 * bal__rebalance_geo (not in the registry): the hook (hook.c) measures,
 * filters, exchanges and computes the current and ideal times as for every
 * balancer, then calls the geo balancer's act instead of the sequence
 * balancers' (sequence.c):
 *   geo.c       public API: configuration, its agreement across ranks,
 *               create/destroy, step, stats, the local check at a post
 *   geo_act.c   the decision: gather coordinates and weights, partition
 *               (ballast/partition.h), project, judge (judge.c), move;
 *               and the forced partition
 *   geo_move.c  the mover of migrate.c for packages of item indices
 * The life of an item: the application's coords callback gives its place;
 * at an interaction geo.c checks it (geo_check()); when the imbalance may
 * exceed the threshold geo_act.c gathers it with every other item (global
 * index: its rank's displacement plus its local index), the partition
 * gives it a part, and if the move is decided its part's rank imports it:
 * geo_move.c packs it by local index on its old rank, migrate.c carries
 * it, unpack appends it on the new rank, and remove drops it on the old. */
#ifndef BALLAST_REBALANCE_GEO_INTERNAL_H
#define BALLAST_REBALANCE_GEO_INTERNAL_H

#include <ballast/rebalance_geo.h>

#include "rebalance_internal.h"

struct bal_rebalance_geo {
  bal_rebalance *rb; /* rb->ext points back here */
  bal_rebalance_geo_callbacks cb;
  bal_partition_config pcfg; /* method points at the registry's name; parts = size */
  int dim;
  double lo[3], hi[3];
  bal_partition_result *res; /* the decomposition of the last move, or NULL */
  /* local items: coordinates and weights, read at an interaction */
  double *xyz, *w;
  int64_t loc_cap;
  /* gathered items (global index = displacement of the rank + local index):
   * coordinates and weights on rank 0, owners and new parts on every rank */
  double *all_xyz, *all_w; /* never allocated on the other ranks */
  int *from, *part;
  int64_t all_cap;
  int *cnt, *dsp, *cnt_xyz, *dsp_xyz; /* size P, for the MPI_Gatherv to rank 0 */
  int64_t *io;                        /* size P: items each rank sends plus receives */
  double *load;                       /* size P: projected load of each part */
  /* a migration's local index lists: per outgoing package, all sent in
   * ascending order, and the appended ones to take back */
  int64_t *idx, *sorted, *back;
  int64_t idx_cap, back_cap;
};

/* The geo balancer (geo.c): act is geo_act.c's. */
extern const bal__rebalance_balancer bal__rebalance_geo;
/* The mover of index packages (geo_move.c). */
extern const bal__rebalance_mover bal__rebalance_mover_geo;

/* ---- geo.c ---- */
/* Read and check this rank's n coordinates into g->xyz. */
int bal__rebalance_geo_read_coords(bal_rebalance_geo *g, int64_t n);

/* ---- geo_act.c ---- */
/* The balancer's act (see bal__rebalance_balancer). */
int bal__rebalance_geo_act(bal_rebalance *rb, const bal__rebalance_now *now, int64_t *moved);
/* bal_rebalance_geo_partition(): partition and move now. Collective. */
int bal__rebalance_geo_force(bal_rebalance_geo *g, int64_t *moved);

#endif
