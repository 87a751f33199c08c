/* The move decision ([Siegell 1997] §6.2 imbalance threshold, §6.3
 * profitability): a move must shorten the projected step time by more than
 * the threshold fraction (hysteresis: small fluctuations never move work
 * back and forth), and its predicted cost must not exceed the weighted
 * benefit over the time the loads are expected to stay as they are. */
#include <math.h>

#include <ballast/rebalance_plan.h>

#include "core/check.h"

int bal_rebalance_step_time(int p, const int64_t *n, const double *rate, double *out) {
  if (p < 1 || !n || !rate || !out) return BAL_EINVAL;
  double t = 0.0;
  for (int k = 0; k < p; k++) {
    if (n[k] < 0 || !bal__finite_pos(rate[k])) return BAL_EINVAL;
    t = fmax(t, (double)n[k] / rate[k]);
  }
  *out = t;
  return BAL_OK;
}

int bal_rebalance_decide(double t_now, double t_new, double threshold, double cost_s,
                         double horizon_s, double benefit_weight,
                         bal_rebalance_verdict *verdict, double *reduction) {
  if (!verdict || !bal__finite_nonneg(t_now) || !bal__finite_nonneg(t_new) ||
      !(threshold >= 0.0) || !(threshold < 1.0) || !bal__finite_nonneg(cost_s) ||
      !bal__finite_nonneg(horizon_s) || isnan(benefit_weight))
    return BAL_EINVAL;
  double r = t_now > 0.0 ? (t_now - t_new) / t_now : 0.0;
  if (reduction) *reduction = r;
  if (!(t_now > 0.0) || r <= threshold || r <= 0.0)
    *verdict = BAL_REBALANCE_BALANCED;
  else if (benefit_weight > 0.0 && cost_s > benefit_weight * r * horizon_s)
    *verdict = BAL_REBALANCE_UNPROFITABLE;
  else
    *verdict = BAL_REBALANCE_MOVE;
  return BAL_OK;
}
