/* Private: the state of a `rebalance` balancer, shared by the files of the
 * module (iterative rebalancing of domain-decomposed MPI codes):
 *   rebalance.c  public API: configuration, create/destroy, names, stats
 *   hook.c       bal_rebalance_step(): measurement window, interactions
 *                (post and resolve the exchange of records), the decision
 *   migrate.c    moving packages through the callbacks, with agreement
 *   cuts.c       chains-on-chains cuts, proportional integer targets
 *   shifts.c     string shifts and direct transfer plans
 *   filter.c     the rate filter state machine
 *   decide.c     threshold and profitability
 *   period.c     automatic period
 *   grain.c      grain size of pipelined loops; measure.c its inputs
 *
 * Decisions are replicated: at an interaction every rank contributes one
 * record (bal__rec) to an allgather and every rank computes the same
 * decision from the same records, so no master and no second round trip
 * are needed when nothing moves. All "global" state below is updated only
 * from gathered records and is therefore identical on every rank. */
#ifndef BALLAST_REBALANCE_REBALANCE_INTERNAL_H
#define BALLAST_REBALANCE_REBALANCE_INTERNAL_H

#include <stdint.h>

#include <ballast/rebalance.h>

/* Fields of one rank's record (doubles; counts are exact below 2^53). */
enum {
  BAL__REC_ERR = 0,    /* pending error code (0 or a BAL_E* code) */
  BAL__REC_COUNT,      /* items held */
  BAL__REC_RATE,       /* filtered rate (items/s), 0 if unknown */
  BAL__REC_ITER_S,     /* average wall time per iteration in the window */
  BAL__REC_ITERS,      /* iterations in the window */
  BAL__REC_MOVE_S,     /* duration of this rank's last migration (0: none since) */
  BAL__REC_MOVE_BYTES, /* bytes it sent plus received then */
  BAL__REC_MOVE_ITEMS, /* items it sent plus received then */
  BAL__REC_INTERACT_S, /* duration of its last blocking exchange (0: none) */
  BAL__REC_LOAD,       /* total cost of its items (weights), or its count */
  BAL__REC_N
};

/* First interaction after this many steps when the interval is automatic:
 * long enough that first-iteration effects (page faults, cache warm-up)
 * are averaged, short enough to react early. */
#define BAL__FIRST_INTERVAL 4

/* One package of a migration on this rank. */
typedef struct bal__pkg {
  int peer;
  bal_rebalance_end end;
  int64_t skip;  /* outgoing: items between the package and the end */
  int64_t count;
} bal__pkg;

struct bal_rebalance {
  bal_rebalance_config cfg;
  bal_rebalance_callbacks cb;
  MPI_Comm comm;
  int rank, size;

  /* measurement window (local) */
  double win_compute_s, win_items, win_wall_s;
  long long win_steps;
  int64_t t_prev;  /* end of the previous step (or creation) */
  int64_t t_mark;
  int marked;
  int pending_err; /* local error to report at the next interaction */
  bal_rebalance_filter_state filt;
  /* per-item costs (weights callback, not in DIRECT mode) */
  int weighted;
  int avg_known;
  double avg_w;  /* average cost of a local item, to turn items into cost */
  double loc_w;  /* total cost of the local items */
  double *wloc;  /* local costs */
  int64_t wloc_cap;
  double *wall;  /* everybody's costs, gathered when imbalance is suspected */
  int64_t wall_cap;
  int *rcounts, *displs;
  int64_t *cut, *cut_ref; /* size + 1 */

  /* the exchange of records */
  long long countdown; /* steps until the next post */
  int posted;
  MPI_Request req;
  double rec[BAL__REC_N];
  double *all; /* size * BAL__REC_N */
  double last_interact_s; /* local, reported in the next record */
  double last_move_s, last_move_bytes, last_move_items; /* local, idem */

  /* global state (identical on every rank) */
  long long interval;
  double period_s, interact_s, move_s, sec_per_byte, bytes_per_item;
  double since_move_s, between_moves_s;
  long long moves_seen;

  /* scratch of size `size` */
  double *rate;
  int64_t *n, *t, *a, *shift;
  bal_rebalance_transfer *plan;
  int nplan;
  bal__pkg *out, *in;
  /* migration bookkeeping (at most size-1 packages each way) */
  unsigned char **obuf, **ibuf;
  uint64_t *osz, *isz;
  MPI_Request *req_mig; /* 2 * size */

  bal_rebalance_stats st;
};

/* ---- hook.c ---- */
/* Start the exchange of this rank's record (blocking when not pipelined). */
int bal__post(bal_rebalance *rb);
/* Complete the exchange, decide, and move items if decided. */
int bal__resolve(bal_rebalance *rb, long long *moved);
/* Gather every rank's item costs (weighted mode); collective, agreed. */
int bal__gather_weights(bal_rebalance *rb, int64_t total);

/* ---- migrate.c ---- */
/* Move packages: out[0..nout) from this rank, in[0..nin) to it (in unpack
 * order). expect is the count this rank reported; a different count now
 * is an error. Collective; returns the agreed code (same on every rank)
 * and, on success, fills *moved with items sent plus received. */
int bal__migrate(bal_rebalance *rb, const bal__pkg *out, int nout, const bal__pkg *in, int nin,
                 int64_t expect, long long *moved);
/* Allreduce that agrees on the error of the lowest failing rank: returns
 * that code (0 if none) and sets *who to its rank (-1 if none); BAL_EMPI
 * if the reduction itself fails. */
int bal__agree(MPI_Comm comm, int rank, int err, int *who);

#endif
