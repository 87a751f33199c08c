/* The sequence balancers' part of a decision ("string", "direct", "none"):
 * targets proportional to the rates, or with costs chains-on-chains cuts
 * of the gathered costs (cuts.c), the balancer's plan, the projected step
 * time, the shared judgement (judge.c), and the move of packages at the
 * ends of the ranks' sequences (migrate.c). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <ballast/rebalance.h>

#include "core/clock.h"
#include "rebalance_internal.h"

/* Items the busiest rank sends plus receives under the plan (for the cost). */
static int64_t max_io(const bal_rebalance *rb) {
  int64_t best = 0;
  for (int i = 0; i < rb->size; i++) {
    int64_t io = rb->bal->io(rb, i);
    if (io > best) best = io;
  }
  return best;
}

/* Every rank's item costs into rb->wall, in global string order. The local
 * count must still be the one exchanged; any local failure is agreed on
 * before the (collective) gather. */
static int gather_weights(bal_rebalance *rb, int64_t total) {
  int err = 0, who = -1;
  if (total > INT_MAX) err = BAL_ERANGE; /* MPI counts and displacements are int */
  int64_t cnt = -1;
  if (!err && rb->cb.count(&cnt, rb->cb.arg) != 0) err = BAL_ECALLBACK;
  if (!err && cnt != rb->n[rb->rank]) err = BAL_EINVAL;
  if (!err) err = bal__rebalance_local_weights(rb, cnt);
  if (!err && total > rb->wall_cap) {
    double *w = realloc(rb->wall, (size_t)total * sizeof *w);
    if (!w)
      err = BAL_ENOMEM;
    else {
      rb->wall = w;
      rb->wall_cap = total;
    }
  }
  int rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
  if (rc != 0) {
    if (who >= 0) rb->st.error_rank = who;
    return rc;
  }
  int d = 0;
  for (int k = 0; k < rb->size; k++) {
    rb->rcounts[k] = (int)rb->n[k];
    rb->displs[k] = d;
    d += rb->rcounts[k];
  }
  if (MPI_Allgatherv(rb->wloc, (int)cnt, MPI_DOUBLE, rb->wall, rb->rcounts, rb->displs, MPI_DOUBLE,
                     rb->comm) != MPI_SUCCESS)
    return BAL_EMPI;
  return BAL_OK;
}

int bal__rebalance_act_sequence(bal_rebalance *rb, const bal__rebalance_now *now,
                                int64_t *moved) {
  const int P = rb->size;
  const int64_t total = now->total;
  const double t_now = now->t_now;
  double t_new;
  /* targets and the plan */
  int rc;
  if (rb->weighted && P > 1) {
    /* No distribution beats the ideal time, so below this the threshold
     * decides without the costs: gather them only when it may not. */
    if (bal__rebalance_below_threshold(rb, now)) return BAL_OK;
    if ((rc = gather_weights(rb, total)) != BAL_OK) return rc;
    for (int k = 0; k <= P; k++) rb->cut_ref[k] = k == 0 ? 0 : rb->cut_ref[k - 1] + rb->n[k - 1];
    rc = bal_rebalance_cuts(total, rb->wall, P, rb->rate, rb->cut_ref, rb->cut, NULL);
    if (rc != BAL_OK) return rc; /* same inputs on every rank: same outcome */
    for (int k = 0; k < P; k++) rb->t[k] = rb->cut[k + 1] - rb->cut[k];
  } else if ((rc = bal_rebalance_targets(P, total, rb->rate, rb->t)) != BAL_OK) {
    return rc;
  }
  if (P > 1) {
    rb->bal->plan(rb);
  } else {
    rb->a[0] = rb->n[0];
    rb->nplan = 0;
  }
  if (rb->weighted && P > 1) { /* cost of each achieved contiguous part */
    int64_t at = 0;
    t_new = 0.0;
    for (int k = 0; k < P; k++) {
      double c = 0.0;
      for (int64_t j = at; j < at + rb->a[k]; j++) c += rb->wall[j];
      at += rb->a[k];
      t_new = fmax(t_new, c / rb->rate[k]);
    }
  } else if (P > 1) {
    bal_rebalance_step_time(P, rb->a, rb->rate, &t_new);
  } else {
    t_new = t_now; /* one rank: nothing to improve (and t_now may be in cost units) */
  }
  /* threshold and profitability */
  bal_rebalance_verdict v = bal__rebalance_judge(rb, now, t_new, max_io(rb));
  if (v != BAL_REBALANCE_MOVE) return BAL_OK;
  /* move */
  int nout, nin;
  rb->bal->packages(rb, &nout, &nin);
  int64_t t0 = bal__now_ns();
  int64_t mv = 0;
  rc = bal__rebalance_migrate(rb, &bal__rebalance_mover_ends, rb->out, nout, rb->in, nin,
                              rb->n[rb->rank], &mv);
  if (rc != BAL_OK) return rc;
  bal__rebalance_note_move(rb, (double)(bal__now_ns() - t0) * 1e-9, mv, rb->bal->moved(rb));
  if (moved) *moved = mv;
  return BAL_OK;
}
