/* The decision every balancer shares, once: the threshold against the
 * ideal time, threshold and profitability of a plan (bal_rebalance_decide(),
 * decide.c, with the movement cost learnt from past migrations and the
 * horizon over which a move pays back), and the bookkeeping after a move.
 * The sequence balancers (sequence.c) and the geometric one (geo_act.c)
 * differ only in how they plan and move. */
#include <math.h>

#include <ballast/rebalance.h>

#include "rebalance_internal.h"

static double horizon(const bal_rebalance *rb) {
  if (rb->cfg.horizon_s > 0.0) return rb->cfg.horizon_s;
  /* Loads that have been stable for a while are expected to stay so for
   * about as long (and at least for the periods a move is spread over). */
  return fmax(fmax(rb->since_move_s, rb->between_moves_s), rb->cfg.workscale * rb->period_s);
}

bool bal__rebalance_below_threshold(bal_rebalance *rb, const bal__rebalance_now *now) {
  if (now->t_now > 0.0 && 1.0 - now->ideal / now->t_now > rb->cfg.threshold) return false;
  rb->st.reduction = now->t_now > 0.0 ? 1.0 - now->ideal / now->t_now : 0.0;
  rb->st.last_verdict = BAL_REBALANCE_BALANCED;
  rb->st.skipped_threshold++;
  return true;
}

bal_rebalance_verdict bal__rebalance_judge(bal_rebalance *rb, const bal__rebalance_now *now,
                                           double t_new, int64_t max_io) {
  double cost = 0.0;
  if (rb->sec_per_byte > 0.0 && rb->bytes_per_item > 0.0)
    cost = rb->interact_s + (double)max_io * rb->bytes_per_item * rb->sec_per_byte;
  double hz = horizon(rb), red = 0.0;
  bal_rebalance_verdict v;
  if (bal_rebalance_decide(now->t_now, t_new, rb->cfg.threshold, cost, hz,
                           rb->cfg.profitability ? rb->cfg.benefit_weight : 0.0, &v,
                           &red) != BAL_OK)
    v = BAL_REBALANCE_BALANCED; /* a projection that is not a time: no move */
  rb->st.reduction = red;
  rb->st.predicted_cost_s = cost;
  rb->st.predicted_benefit_s = red * hz;
  if (!rb->bal->moves && v == BAL_REBALANCE_MOVE) v = BAL_REBALANCE_DISABLED;
  rb->st.last_verdict = v;
  if (v == BAL_REBALANCE_BALANCED) rb->st.skipped_threshold++;
  if (v == BAL_REBALANCE_UNPROFITABLE) rb->st.skipped_profit++;
  return v;
}

void bal__rebalance_note_move(bal_rebalance *rb, double dt, int64_t mv, int64_t moved_all) {
  rb->st.migrate_s += dt;
  rb->last_move_s = dt;
  rb->last_move_items = (double)mv;
  rb->st.rebalances++;
  rb->st.items_moved += moved_all;
  if (rb->weighted) { /* the items changed: so did their average cost */
    int wrc = bal__rebalance_refresh_weights(rb);
    if (wrc != BAL_OK) bal__rebalance_note_error(rb, wrc);
  }
  rb->between_moves_s = rb->moves_seen ? 0.5 * rb->between_moves_s + 0.5 * rb->since_move_s
                                       : rb->since_move_s;
  rb->since_move_s = 0.0;
}
