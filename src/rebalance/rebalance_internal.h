/* Private: the state of a `rebalance` balancer, shared by the files of the
 * module (iterative rebalancing of domain-decomposed MPI codes):
 *   rebalance.c  public API: configuration, create/destroy, names, stats
 *   hook.c       bal_rebalance_step(): measurement window, interactions
 *                (post and resolve the exchange of records), the times a
 *                decision starts from; then the balancer's act
 *   judge.c      the decision every balancer shares: threshold,
 *                profitability, bookkeeping after a move
 *   sequence.c   the act of the sequence balancers: targets, cost cuts,
 *                plan, projection, move at the ends
 *   balancer.c   the registry of balancers (names to plans); one file each:
 *   string.c       "string" (neighbour shifts) and "none" (never moves)
 *   direct.c       "direct" (overloaded ranks send straight to underloaded)
 *   migrate.c    moving packages with agreement (the protocol), and the
 *                mover of packages at the ends of a sequence
 *   geo.c, geo_act.c, geo_move.c  the geometric balancer
 *                (ballast/rebalance_geo.h; its own map in geo.h): a client
 *                of hook.c and judge.c with its own act and mover
 * The pure building blocks (ballast/rebalance_plan.h), built in every
 * build, MPI or not, and including nothing of this header:
 *   cuts.c       chains-on-chains cuts, proportional integer targets
 *   shifts.c     string shifts and direct transfer plans
 *   filter.c     the rate filter state machine, the filters' names
 *   decide.c     threshold and profitability
 *   period.c     automatic period
 *   grain.c      grain size of pipelined loops; measure.c (MPI) its inputs
 *
 * Decisions are replicated: at an interaction every rank contributes one
 * record (the BAL__REBALANCE_REC_* fields) to an allgather and every rank
 * computes the same decision from the same records, so no master and no
 * second round trip are needed when nothing moves. All "global" state below
 * is updated only from gathered records and is therefore identical on
 * every rank.
 *
 * The life of an item. The application processes its items and calls
 * bal_rebalance_step() (hook.c) with the time and the count; the step adds
 * them to the measurement window (in cost units when the weights callback
 * is given and the balancer balances costs: local_weights()). Every
 * `interval` steps bal__rebalance_post() turns the window into a raw rate,
 * filters it (bal_rebalance_filter_step(), filter.c) and starts the
 * allgather of this rank's record: pending error, count, filtered rate,
 * timings, last migration, load. bal__rebalance_resolve() completes it (at once when
 * blocking, at the next step when pipelined) and, identically on every
 * rank: returns the lowest rank's pending error; learns the cost of moving
 * from the migrations reported (learn()); updates the period
 * (bal_rebalance_period(), period.c); then the balancer's act (sequence.c
 * for the 1-D balancers) computes the targets
 * (bal_rebalance_targets(), or with costs bal__rebalance_gather_weights()
 * and bal_rebalance_cuts(), cuts.c); asks the balancer for a plan (its
 * plan(), e.g. bal_rebalance_shifts() and bal_rebalance_shifts_limit() for
 * "string", bal_rebalance_direct_plan() for "direct", shifts.c); projects
 * the new step time and decides (bal__rebalance_judge(), judge.c, around
 * bal_rebalance_decide(), decide.c). On
 * MOVE, the balancer's packages() lists this rank's outgoing and incoming
 * packages and bal__rebalance_migrate() (migrate.c) moves them: the item is
 * copied by the pack callback, travels in one MPI message per package, is
 * inserted by the unpack callback on its new rank, and only after every
 * rank agreed that all unpacks succeeded is it dropped from its old rank
 * by the remove callback. The next window measures it on its new rank. */
#ifndef BALLAST_REBALANCE_REBALANCE_INTERNAL_H
#define BALLAST_REBALANCE_REBALANCE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/rebalance.h>

/* Fields of one rank's record (doubles; counts are exact below 2^53). */
enum {
  BAL__REBALANCE_REC_ERR = 0,    /* pending error code (0 or a BAL_E* code) */
  BAL__REBALANCE_REC_COUNT,      /* items held */
  BAL__REBALANCE_REC_RATE,       /* filtered rate (items/s), 0 if unknown */
  BAL__REBALANCE_REC_ITER_S,     /* average wall time per iteration in the window */
  BAL__REBALANCE_REC_ITERS,      /* iterations in the window */
  BAL__REBALANCE_REC_MOVE_S,     /* duration of this rank's last migration (0: none since) */
  BAL__REBALANCE_REC_MOVE_BYTES, /* bytes it sent plus received then */
  BAL__REBALANCE_REC_MOVE_ITEMS, /* items it sent plus received then */
  BAL__REBALANCE_REC_INTERACT_S, /* duration of its last blocking exchange (0: none) */
  BAL__REBALANCE_REC_LOAD,       /* total cost of its items (weights), or its count */
  BAL__REBALANCE_REC_N
};

/* First interaction after this many steps when the interval is automatic:
 * long enough that first-iteration effects (page faults, cache warm-up)
 * are averaged, short enough to react early. */
#define BAL__REBALANCE_FIRST_INTERVAL 4

/* One package of a migration on this rank. */
typedef struct bal__rebalance_pkg {
  int peer;
  bal_rebalance_end end;
  int64_t skip;  /* outgoing: items between the package and the end */
  int64_t count;
  const int64_t *items; /* geo: the local indices of an outgoing package's
                           items (ascending); NULL for the sequence balancers */
} bal__rebalance_pkg;

/* How one migration's packages are made and taken apart: at the ends of a
 * sequence (the 1-D balancers, through bal_rebalance_callbacks) or by
 * lists of item indices (geo, through its own callbacks). migrate.c runs
 * the protocol, the mover touches the items. Every function gets the
 * package array it works on. */
typedef struct bal__rebalance_mover {
  /* bytes outgoing package p needs */
  int (*bytes)(bal_rebalance *rb, const bal__rebalance_pkg *p, size_t *bytes);
  /* copy it, items staying in place */
  int (*pack)(bal_rebalance *rb, const bal__rebalance_pkg *p, void *buf, size_t bytes);
  /* insert incoming package p, all or nothing */
  int (*unpack)(bal_rebalance *rb, const bal__rebalance_pkg *p, const void *buf, size_t bytes);
  /* take back the first k unpacked packages of in[] */
  void (*take_back)(bal_rebalance *rb, const bal__rebalance_pkg *in, int k);
  /* drop the sent packages out[0..nout) */
  void (*drop_sent)(bal_rebalance *rb, const bal__rebalance_pkg *out, int nout);
} bal__rebalance_mover;

/* What every balancer's decision starts from (hook.c, identical on every
 * rank): the projected step time of the current distribution, the ideal
 * one (all load over all rates) and the total item count. rb->rate holds
 * every rank's filtered rate, unknown ones replaced by the mean. */
typedef struct bal__rebalance_now {
  double t_now, ideal;
  int64_t total;
} bal__rebalance_now;

/* A balancer: how targets become packages. One file defines one (or a
 * variant sharing its functions) and balancer.c registers it. The plan
 * functions run on every rank with the same inputs and must give the same
 * plan everywhere. */
typedef struct bal__rebalance_balancer {
  const char *name;
  /* false: measure and decide, never move (the "none" baseline) */
  bool moves;
  /* true: with the weights callback, balance item costs (contiguous cuts
   * of the global sequence); false: balance counts, ignore the callback */
  bool costs;
  /* With rb->size > 1: from the counts rb->n and targets rb->t, fill the
   * plan (rb->shift, or rb->plan and rb->nplan) and the counts it achieves,
   * rb->a. */
  void (*plan)(bal_rebalance *rb);
  /* This rank's packages under the plan into rb->out and rb->in (in
   * unpack order): at most size - 1 each way. */
  void (*packages)(bal_rebalance *rb, int *nout, int *nin);
  /* Items rank i sends plus receives under the plan (the movement cost). */
  int64_t (*io)(const bal_rebalance *rb, int i);
  /* Items that change rank under the plan (stats.items_moved). */
  int64_t (*moved)(const bal_rebalance *rb);
  /* Optional: replaces plan..moved above. From the measured state, plan,
   * judge (bal__rebalance_judge()) and move; identical on every rank
   * except for the rank's own packages; returns the agreed code. */
  int (*act)(bal_rebalance *rb, const bal__rebalance_now *now, int64_t *moved);
  /* Optional: check the local state when the record is posted; a code
   * other than BAL_OK becomes the rank's pending error. */
  int (*check)(bal_rebalance *rb, int64_t count);
} bal__rebalance_balancer;

struct bal_rebalance {
  bal_rebalance_config cfg; /* cfg.balancer points at bal->name */
  const bal__rebalance_balancer *bal;
  bal_rebalance_callbacks cb;
  void *ext; /* the geometric balancer's state (geo.h), NULL otherwise */
  MPI_Comm comm;
  int rank, size;

  /* measurement window (local) */
  double win_compute_s, win_items, win_wall_s;
  int64_t win_steps;
  int64_t t_prev;  /* end of the previous step (or creation) */
  int64_t t_mark;
  bool marked;
  int pending_err; /* local error to report at the next interaction */
  bal_rebalance_filter_state filt;
  /* per-item costs (weights callback, when the balancer balances costs) */
  bool weighted;
  bool avg_known;
  double avg_w;  /* average cost of a local item, to turn items into cost */
  double loc_w;  /* total cost of the local items */
  double *wloc;  /* local costs */
  int64_t wloc_cap;
  double *wall;  /* everybody's costs, gathered when imbalance is suspected */
  int64_t wall_cap;
  int *rcounts, *displs;
  int64_t *cut, *cut_ref; /* size + 1 */

  /* the exchange of records */
  int64_t countdown; /* steps until the next post */
  bool posted;
  MPI_Request req;
  double rec[BAL__REBALANCE_REC_N];
  double *all; /* size * BAL__REBALANCE_REC_N */
  double last_interact_s; /* local, reported in the next record */
  double last_move_s, last_move_bytes, last_move_items; /* local, idem */

  /* global state (identical on every rank) */
  int64_t interval;
  double period_s, interact_s, move_s, sec_per_byte, bytes_per_item;
  double since_move_s, between_moves_s;
  int64_t moves_seen;

  /* scratch of size `size` */
  double *rate;
  int64_t *n, *t, *a, *shift;
  bal_rebalance_transfer *plan;
  int nplan;
  bal__rebalance_pkg *out, *in;
  /* migration bookkeeping (at most size-1 packages each way) */
  unsigned char **obuf, **ibuf;
  uint64_t *osz, *isz;
  MPI_Request *req_mig; /* 2 * size */

  bal_rebalance_stats st;
};

/* ---- balancer.c ---- */
/* The balancer named `name`, or NULL if there is none (or name is NULL). */
const bal__rebalance_balancer *bal__rebalance_balancer_find(const char *name);

/* ---- rebalance.c ---- */
/* bal_rebalance_create() with the balancer given (geo's is not in the
 * registry) and the callbacks already checked by the caller. */
int bal__rebalance_create(MPI_Comm comm, const bal_rebalance_config *cfg,
                          const bal_rebalance_callbacks *cb, const bal__rebalance_balancer *bal,
                          bal_rebalance **out);
/* Drop a posted exchange (wait for it, forget its records): collective,
 * for calls that change the items outside the step. */
int bal__rebalance_cancel(bal_rebalance *rb);

/* ---- hook.c ---- */
/* Start the exchange of this rank's record (blocking when not pipelined). */
int bal__rebalance_post(bal_rebalance *rb);
/* Complete the exchange, decide, and move items if decided. */
int bal__rebalance_resolve(bal_rebalance *rb, int64_t *moved);
/* Local costs into rb->wloc (n of them, checked); sets loc_w and avg_w. */
int bal__rebalance_local_weights(bal_rebalance *rb, int64_t n);
/* Refresh the local item costs (weighted mode) after the items changed. */
int bal__rebalance_refresh_weights(bal_rebalance *rb);
/* Remember a local error for the next record (the first one wins). */
void bal__rebalance_note_error(bal_rebalance *rb, int err);

/* ---- sequence.c ---- */
/* The 1-D balancers' act: targets (or cost cuts), plan, judge, move. */
int bal__rebalance_act_sequence(bal_rebalance *rb, const bal__rebalance_now *now,
                                int64_t *moved);

/* ---- judge.c ---- */
/* The threshold alone against the ideal time (no distribution beats it):
 * true, with the verdict BALANCED recorded, when no plan can pass. */
bool bal__rebalance_below_threshold(bal_rebalance *rb, const bal__rebalance_now *now);
/* Threshold and profitability of a plan that takes the step time from
 * now->t_now to t_new, the busiest rank sending plus receiving max_io
 * items; records the verdict and the predictions in the statistics. */
bal_rebalance_verdict bal__rebalance_judge(bal_rebalance *rb, const bal__rebalance_now *now,
                                           double t_new, int64_t max_io);
/* Account for a migration that took dt seconds, moved mv items on this
 * rank and moved_all in all. */
void bal__rebalance_note_move(bal_rebalance *rb, double dt, int64_t mv, int64_t moved_all);

/* ---- migrate.c ---- */
/* Move packages: out[0..nout) from this rank, in[0..nin) to it (in unpack
 * order), made and taken apart by `mv`. expect is the count this rank
 * reported; a different count now is an error. Collective; returns the
 * agreed code (same on every rank) and, on success, fills *moved with
 * items sent plus received. */
int bal__rebalance_migrate(bal_rebalance *rb, const bal__rebalance_mover *mv,
                           const bal__rebalance_pkg *out, int nout, const bal__rebalance_pkg *in,
                           int nin, int64_t expect, int64_t *moved);
/* The mover of the 1-D balancers (the ends of the sequence). */
extern const bal__rebalance_mover bal__rebalance_mover_ends;
/* Allreduce that agrees on the error of the lowest failing rank: returns
 * that code (0 if none) and sets *who to its rank (-1 if none); BAL_EMPI
 * if the reduction itself fails. */
int bal__rebalance_agree(MPI_Comm comm, int rank, int err, int *who);

#endif
