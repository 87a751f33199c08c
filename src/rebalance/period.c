/* Automatic load-balancing period ([Siegell 1997] §5.2.4, the target
 * period, from §5.2.1-5.2.3): the shortest period
 * that keeps interactions cheap (interact_s / f_interact), lets a move's
 * cost be spread over several periods (move_s / workscale) and averages out
 * the scheduler's time slicing (quantum_s * quantum_scale), converted to a
 * number of iterations between interactions. */
#include <math.h>

#include <ballast/rebalance_plan.h>

#include "core/check.h"

int bal_rebalance_period(const bal_rebalance_period_in *in, double *period_s,
                         int64_t *interval) {
  if (!in || !bal__finite_nonneg(in->interact_s) ||
      !(in->f_interact > 0.0 && in->f_interact <= 1.0) || !bal__finite_nonneg(in->move_s) ||
      !(in->workscale >= 1.0) || !isfinite(in->workscale) || !bal__finite_nonneg(in->quantum_s) ||
      !bal__finite_nonneg(in->quantum_scale) || !bal__finite_pos(in->iter_s) ||
      in->max_interval < 1)
    return BAL_EINVAL;
  double per = fmax(in->interact_s / in->f_interact,
                    fmax(in->move_s / in->workscale, in->quantum_s * in->quantum_scale));
  double it = ceil(per / in->iter_s);
  int64_t k = it >= (double)in->max_interval ? in->max_interval : (int64_t)it;
  if (k < 1) k = 1;
  if (period_s) *period_s = per;
  if (interval) *interval = k;
  return BAL_OK;
}
