/* Automatic load-balancing period (seed 002 §5.2): the shortest period
 * that keeps interactions cheap (interact_s / f_interact), lets a move's
 * cost be spread over several periods (move_s / workscale) and averages out
 * the scheduler's time slicing (quantum_s * quantum_scale), converted to a
 * number of iterations between interactions. */
#include <math.h>

#include <ballast/rebalance.h>

#include "rebalance_internal.h"

static int fin(double x) { return isfinite(x) && x >= 0.0; }

int bal_rebalance_period(const bal_rebalance_period_in *in, double *period_s,
                         long long *interval) {
  if (!in || !fin(in->interact_s) || !(in->f_interact > 0.0 && in->f_interact <= 1.0) ||
      !fin(in->move_s) || !(in->workscale >= 1.0) || !isfinite(in->workscale) ||
      !fin(in->quantum_s) || !fin(in->quantum_scale) || !(in->iter_s > 0.0) ||
      !isfinite(in->iter_s) || in->max_interval < 1)
    return BAL_EINVAL;
  double per = fmax(in->interact_s / in->f_interact,
                    fmax(in->move_s / in->workscale, in->quantum_s * in->quantum_scale));
  double it = ceil(per / in->iter_s);
  long long k = it >= (double)in->max_interval ? in->max_interval : (long long)it;
  if (k < 1) k = 1;
  if (period_s) *period_s = per;
  if (interval) *interval = k;
  return BAL_OK;
}
