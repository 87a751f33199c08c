/* The POP formulas (ballast/pop.h), once: reports and tools call this. */
#include <math.h>
#include <stdlib.h>

#include "core/balance.h"
#include "core/check.h"
#include "pop_internal.h"

int bal_pop_figures_compute(int ranks, const double *elapsed_s, const double *useful_s,
                            const int *node, bal_pop_figures *out) {
  if (ranks < 1 || elapsed_s == NULL || useful_s == NULL || out == NULL) return BAL_EINVAL;
  double elapsed = 0.0, umax = 0.0, usum = 0.0;
  int nodes = 0;
  for (int k = 0; k < ranks; k++) {
    if (!bal__finite_nonneg(elapsed_s[k]) || !bal__finite_nonneg(useful_s[k])) return BAL_EINVAL;
    if (node != NULL && node[k] < 0) return BAL_EINVAL;
    int n = node != NULL ? node[k] : 0;
    if (n + 1 > nodes) nodes = n + 1;
    elapsed = fmax(elapsed, elapsed_s[k]);
    umax = fmax(umax, useful_s[k]);
    usum += useful_s[k];
  }
  /* Per node: the average useful time of its ranks; their maximum splits
   * LB into within-node and across-node parts ([Lopez 2021]). Node
   * numbers may have gaps: a node without ranks is skipped. */
  double *nsum = calloc((size_t)nodes, sizeof *nsum);
  int *ncount = calloc((size_t)nodes, sizeof *ncount);
  if (nsum == NULL || ncount == NULL) {
    free(nsum);
    free(ncount);
    return BAL_ENOMEM;
  }
  for (int k = 0; k < ranks; k++) {
    int n = node != NULL ? node[k] : 0;
    nsum[n] += useful_s[k];
    ncount[n]++;
  }
  double node_max = 0.0;
  int used = 0;
  for (int n = 0; n < nodes; n++)
    if (ncount[n] > 0) {
      node_max = fmax(node_max, nsum[n] / ncount[n]);
      used++;
    }
  free(nsum);
  free(ncount);
  double avg = usum / ranks;
  bal_pop_figures f = {
      .ranks = ranks,
      .nodes = used,
      .elapsed_s = elapsed,
      .useful_avg_s = avg,
      .useful_max_s = umax,
      .load_balance = bal__load_balance_of(usum, umax, ranks), /* times checked above */
      .load_balance_in = umax > 0.0 ? node_max / umax : NAN,
      .load_balance_out = node_max > 0.0 ? avg / node_max : NAN,
      .communication_efficiency = elapsed > 0.0 ? umax / elapsed : NAN,
  };
  f.parallel_efficiency = f.load_balance * f.communication_efficiency;
  *out = f;
  return BAL_OK;
}
