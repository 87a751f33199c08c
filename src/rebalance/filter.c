/* The rate filter ([Siegell 1997] §6.1): out = (1 - h) raw + h previous, with h
 * from a small state machine that follows the direction and length of the
 * trend. The paper chose the values of its state table (Table 1)
 * empirically; Ballast chose its own by the experiment in docs/rebalance.md
 * (reproduced by the unit test test_rebalance_filter, which prints the
 * table).
 *
 * Why these values: a slow-down on one rank stalls every rank at the next
 * synchronisation, a speed-up only leaves one rank briefly underused, so a
 * drop is fully trusted as soon as it repeats (2 periods) and a rise only
 * on its third period in a row (UP1 ignores it, UP2 goes halfway). A
 * single drop is only 20% trusted: one-period dips and spikes (a period in
 * which a competing process did or did not run) then move nothing, where
 * trusting the first drop by half caused as many moves as no filter at all
 * in the experiment. The dead band keeps noise out of the trend states:
 * inside it the filter is a plain, unbiased smoother (h = 0.75).
 * The filters' names (bal_rebalance_filter_name/parse) live here too. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <ballast/rebalance_plan.h>

#include "core/check.h"

const char *bal_rebalance_filter_name(bal_rebalance_filter filter) {
  switch (filter) {
  case BAL_REBALANCE_FILTER_ADAPTIVE: return "adaptive";
  case BAL_REBALANCE_FILTER_FIXED: return "fixed";
  case BAL_REBALANCE_FILTER_NONE: return "none";
  }
  return NULL;
}

int bal_rebalance_filter_parse(const char *name, bal_rebalance_filter *out) {
  if (!name || !out) return BAL_EINVAL;
  for (int f = BAL_REBALANCE_FILTER_ADAPTIVE; f <= BAL_REBALANCE_FILTER_NONE; f++)
    if (!strcmp(name, bal_rebalance_filter_name((bal_rebalance_filter)f))) {
      *out = (bal_rebalance_filter)f;
      return BAL_OK;
    }
  return BAL_EINVAL;
}

/* The state table; a negative value for a value that is not a state. */
static double state_h(bal_rebalance_filter_fstate state) {
  switch (state) {
  case BAL_REBALANCE_FS_STEADY: return 0.75;
  case BAL_REBALANCE_FS_DOWN1: return 0.8;
  case BAL_REBALANCE_FS_DOWN2: return 0.0;
  case BAL_REBALANCE_FS_UP1: return 1.0;
  case BAL_REBALANCE_FS_UP2: return 0.5;
  case BAL_REBALANCE_FS_UP3: return 0.0;
  }
  return -1.0;
}

int bal_rebalance_filter_h(bal_rebalance_filter_fstate state, double *h) {
  double v = state_h(state);
  if (!h || v < 0.0) return BAL_EINVAL;
  *h = v;
  return BAL_OK;
}

int bal_rebalance_filter_init(bal_rebalance_filter_state *st) {
  if (!st) return BAL_EINVAL;
  st->rate = 0.0;
  st->h = 0.0;
  st->fstate = BAL_REBALANCE_FS_STEADY;
  st->samples = 0;
  return BAL_OK;
}

static bal_rebalance_filter_fstate next_state(bal_rebalance_filter_fstate cur, double raw,
                                              double prev) {
  bool down = raw < prev * (1.0 - BAL_REBALANCE_FILTER_BAND);
  bool up = raw > prev * (1.0 + BAL_REBALANCE_FILTER_BAND);
  if (down) return (cur == BAL_REBALANCE_FS_DOWN1 || cur == BAL_REBALANCE_FS_DOWN2)
                       ? BAL_REBALANCE_FS_DOWN2
                       : BAL_REBALANCE_FS_DOWN1;
  if (up) {
    if (cur == BAL_REBALANCE_FS_UP1) return BAL_REBALANCE_FS_UP2;
    if (cur == BAL_REBALANCE_FS_UP2 || cur == BAL_REBALANCE_FS_UP3) return BAL_REBALANCE_FS_UP3;
    return BAL_REBALANCE_FS_UP1;
  }
  return BAL_REBALANCE_FS_STEADY;
}

int bal_rebalance_filter_step(bal_rebalance_filter_state *st, bal_rebalance_filter kind,
                              double fixed_h, double raw, double *out) {
  if (!st || !bal__finite_nonneg(raw)) return BAL_EINVAL;
  if (kind != BAL_REBALANCE_FILTER_ADAPTIVE && kind != BAL_REBALANCE_FILTER_FIXED &&
      kind != BAL_REBALANCE_FILTER_NONE)
    return BAL_EINVAL;
  if (kind == BAL_REBALANCE_FILTER_FIXED && !(fixed_h >= 0.0 && fixed_h < 1.0)) return BAL_EINVAL;
  double h = 0.0;
  if (st->samples == 0) {
    st->fstate = BAL_REBALANCE_FS_STEADY;
  } else if (kind == BAL_REBALANCE_FILTER_ADAPTIVE) {
    st->fstate = next_state(st->fstate, raw, st->rate);
    h = state_h(st->fstate); /* next_state() returns only states */
  } else if (kind == BAL_REBALANCE_FILTER_FIXED) {
    h = fixed_h;
  }
  st->rate = (1.0 - h) * raw + h * st->rate;
  st->h = h;
  st->samples++;
  if (out) *out = st->rate;
  return BAL_OK;
}
