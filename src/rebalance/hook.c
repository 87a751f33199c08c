/* bal_rebalance_step(): the per-iteration hook. Most calls only add the
 * iteration to the measurement window. Every `interval` calls the rank
 * posts its record (filtered rate, count, pending error, timings) in an
 * allgather; the records are resolved (decision, maybe a migration) in the
 * same call when blocking, or in the next call when pipelined, so that the
 * collective can progress (inside the application's own MPI calls) while
 * it computes: the pipelined interactions of [Siegell 1997] §2.1. All ranks
 * resolve the same records at the same step and take the same decision. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include <ballast/rebalance.h>

#include "core/balance.h"
#include "core/check.h"
#include "core/clock.h"
#include "core/log.h"
#include "rebalance_internal.h"

void bal__rebalance_note_error(bal_rebalance *rb, int err) {
  if (!rb->pending_err) rb->pending_err = err;
}

/* Local costs into rb->wloc (n of them); sets loc_w and avg_w. */
int bal__rebalance_local_weights(bal_rebalance *rb, int64_t n) {
  if (n > rb->wloc_cap) {
    double *w = realloc(rb->wloc, (size_t)n * sizeof *w);
    if (!w) return BAL_ENOMEM;
    rb->wloc = w;
    rb->wloc_cap = n;
  }
  if (n > 0 && rb->cb.weights(n, rb->wloc, rb->cb.arg) != 0) return BAL_ECALLBACK;
  double sum = 0.0;
  for (int64_t j = 0; j < n; j++) {
    if (!bal__finite_nonneg(rb->wloc[j])) return BAL_EINVAL;
    sum += rb->wloc[j];
  }
  rb->loc_w = sum;
  if (n > 0 && sum > 0.0) rb->avg_w = sum / (double)n;
  rb->avg_known = true;
  return BAL_OK;
}

/* Refresh the average cost of a local item (weighted mode). */
int bal__rebalance_refresh_weights(bal_rebalance *rb) {
  int64_t n = 0;
  if (rb->cb.count(&n, rb->cb.arg) != 0) return BAL_ECALLBACK;
  if (n < 0) return BAL_EINVAL;
  return bal__rebalance_local_weights(rb, n);
}

int bal_rebalance_step(bal_rebalance *rb, double compute_s, int64_t items, int64_t *moved) {
  if (!rb) return BAL_EINVAL;
  int64_t now = bal__now_ns();
  int64_t mv = 0;
  double c = compute_s;
  if (compute_s == BAL_REBALANCE_MEASURE) {
    c = (double)(now - (rb->marked ? rb->t_mark : rb->t_prev)) * 1e-9;
  } else if (!bal__finite_nonneg(compute_s)) {
    bal__rebalance_note_error(rb, BAL_EINVAL);
    c = -1.0;
  }
  double it = 0.0;
  if (items == BAL_REBALANCE_ALL) {
    int64_t cnt = 0;
    if (rb->cb.count(&cnt, rb->cb.arg) != 0)
      bal__rebalance_note_error(rb, BAL_ECALLBACK);
    else if (cnt < 0)
      bal__rebalance_note_error(rb, BAL_EINVAL);
    else
      it = (double)cnt;
  } else if (items < 0) {
    bal__rebalance_note_error(rb, BAL_EINVAL);
  } else {
    it = (double)items;
  }
  if (rb->weighted && !rb->avg_known) {
    int wrc = bal__rebalance_refresh_weights(rb);
    if (wrc != BAL_OK) bal__rebalance_note_error(rb, wrc);
  }
  if (c >= 0.0) {
    rb->win_compute_s += c;
    /* with costs, the rate is in cost units: items times their average cost
     * (refreshed at every exchange and migration), so that it measures the
     * rank's speed whichever items it holds */
    rb->win_items += rb->weighted ? it * rb->avg_w : it;
  }
  rb->win_wall_s += (double)(now - rb->t_prev) * 1e-9;
  rb->win_steps++;
  rb->st.steps++;

  int rc = BAL_OK;
  if (rb->posted) rc = bal__rebalance_resolve(rb, &mv); /* pipelined: posted last step */
  if (--rb->countdown <= 0 && rc != BAL_OK) {
    /* After a collective error (the same on every rank) the next exchange
     * waits for the next call, so the application can repair what the
     * error was about before its state is measured again. */
    rb->countdown = 1;
  } else if (rb->countdown <= 0) {
    int prc = bal__rebalance_post(rb);
    if (prc != BAL_OK) {
      rc = prc;
    } else if (!rb->cfg.pipelined) {
      rc = bal__rebalance_resolve(rb, &mv);
    }
    rb->countdown = rb->interval;
  }
  rb->t_prev = bal__now_ns();
  rb->marked = false;
  if (rc == BAL_OK && moved) *moved = mv; /* untouched on error (conventions) */
  return rc;
}

int bal__rebalance_post(bal_rebalance *rb) {
  double *r = rb->rec;
  int64_t cnt = 0;
  if (rb->cb.count(&cnt, rb->cb.arg) != 0)
    bal__rebalance_note_error(rb, BAL_ECALLBACK);
  else if (cnt < 0)
    bal__rebalance_note_error(rb, BAL_EINVAL);
  else if ((double)cnt > 9007199254740992.0) /* 2^53: exact in the double record */
    bal__rebalance_note_error(rb, BAL_ERANGE);
  double load = (double)cnt;
  if (rb->bal->check && !rb->pending_err) {
    int crc = rb->bal->check(rb, cnt);
    if (crc != BAL_OK) bal__rebalance_note_error(rb, crc);
  }
  if (rb->weighted && !rb->pending_err) {
    int wrc = bal__rebalance_local_weights(rb, cnt);
    if (wrc != BAL_OK)
      bal__rebalance_note_error(rb, wrc);
    else
      load = rb->loc_w;
  }
  double raw = 0.0;
  if (!rb->pending_err && rb->win_compute_s > 0.0 && rb->win_items > 0.0)
    raw = rb->win_items / rb->win_compute_s;
  if (bal__finite_pos(raw)) {
    double f;
    bal_rebalance_filter_step(&rb->filt, rb->cfg.filter, rb->cfg.filter_h, raw, &f);
    rb->st.rate_raw = raw;
    rb->st.rate = f;
    rb->st.filter_h = rb->filt.h;
    rb->st.filter_state = rb->filt.fstate;
  }
  /* With no usable sample the last filtered rate stands (0 if none yet:
   * the deciding ranks then substitute the mean of the known rates). */
  r[BAL__REBALANCE_REC_ERR] = rb->pending_err;
  r[BAL__REBALANCE_REC_COUNT] = rb->pending_err ? 0.0 : (double)cnt;
  r[BAL__REBALANCE_REC_RATE] = rb->filt.samples > 0 ? rb->filt.rate : 0.0;
  r[BAL__REBALANCE_REC_ITER_S] = rb->win_steps > 0 ? rb->win_wall_s / (double)rb->win_steps : 0.0;
  r[BAL__REBALANCE_REC_ITERS] = (double)rb->win_steps;
  r[BAL__REBALANCE_REC_MOVE_S] = rb->last_move_s;
  r[BAL__REBALANCE_REC_MOVE_BYTES] = rb->last_move_bytes;
  r[BAL__REBALANCE_REC_MOVE_ITEMS] = rb->last_move_items;
  r[BAL__REBALANCE_REC_INTERACT_S] = rb->last_interact_s;
  r[BAL__REBALANCE_REC_LOAD] = rb->pending_err ? 0.0 : load;
  rb->pending_err = 0;
  rb->last_move_s = rb->last_move_bytes = rb->last_move_items = rb->last_interact_s = 0.0;
  rb->win_compute_s = rb->win_items = rb->win_wall_s = 0.0;
  rb->win_steps = 0;
  int mrc;
  if (rb->cfg.pipelined) {
    mrc = MPI_Iallgather(r, BAL__REBALANCE_REC_N, MPI_DOUBLE, rb->all, BAL__REBALANCE_REC_N,
                         MPI_DOUBLE, rb->comm, &rb->req);
  } else {
    int64_t t0 = bal__now_ns();
    mrc = MPI_Allgather(r, BAL__REBALANCE_REC_N, MPI_DOUBLE, rb->all, BAL__REBALANCE_REC_N,
                        MPI_DOUBLE, rb->comm);
    rb->last_interact_s = (double)(bal__now_ns() - t0) * 1e-9;
  }
  if (mrc != MPI_SUCCESS) return BAL_EMPI;
  rb->posted = true;
  return BAL_OK;
}

/* Learn the cost of moving from the migrations reported in the records:
 * the slowest rank's time over the most bytes any rank moved, and the
 * bytes per item. Halfway averages: recent moves count most. */
static void learn(bal_rebalance *rb) {
  double tmax = 0.0, bmax = 0.0, bsum = 0.0, isum = 0.0, imax = 0.0;
  int any_interact = 0;
  for (int k = 0; k < rb->size; k++) {
    const double *r = rb->all + (size_t)k * BAL__REBALANCE_REC_N;
    tmax = fmax(tmax, r[BAL__REBALANCE_REC_MOVE_S]);
    bmax = fmax(bmax, r[BAL__REBALANCE_REC_MOVE_BYTES]);
    bsum += r[BAL__REBALANCE_REC_MOVE_BYTES];
    isum += r[BAL__REBALANCE_REC_MOVE_ITEMS];
    imax = fmax(imax, r[BAL__REBALANCE_REC_INTERACT_S]);
    any_interact |= r[BAL__REBALANCE_REC_INTERACT_S] > 0.0;
  }
  if (tmax > 0.0) {
    rb->move_s = rb->moves_seen ? 0.5 * rb->move_s + 0.5 * tmax : tmax;
    if (bmax > 0.0) {
      double spb = tmax / bmax;
      rb->sec_per_byte = rb->sec_per_byte > 0.0 ? 0.5 * rb->sec_per_byte + 0.5 * spb : spb;
    }
    if (isum > 0.0) {
      double bpi = bsum / isum;
      rb->bytes_per_item = rb->bytes_per_item > 0.0 ? 0.5 * rb->bytes_per_item + 0.5 * bpi : bpi;
    }
    rb->moves_seen++;
  }
  /* Blocking exchanges are measured as the run goes; pipelined ones keep
   * the startup estimate (their cost is mostly hidden). */
  if (any_interact) rb->interact_s = 0.5 * rb->interact_s + 0.5 * imax;
}

int bal__rebalance_resolve(bal_rebalance *rb, int64_t *moved) {
  rb->posted = false;
  if (rb->cfg.pipelined && MPI_Wait(&rb->req, MPI_STATUS_IGNORE) != MPI_SUCCESS) return BAL_EMPI;
  const int P = rb->size;
  rb->st.interactions++;
  /* 1. errors: the lowest failing rank's code, on every rank */
  for (int k = 0; k < P; k++) {
    int e = (int)rb->all[(size_t)k * BAL__REBALANCE_REC_N + BAL__REBALANCE_REC_ERR];
    if (e != 0) {
      rb->st.error_rank = k;
      return e;
    }
  }
  learn(rb);
  /* 2. global timing */
  double iter_s = 0.0, iters = 0.0, known = 0.0, rsum = 0.0;
  int64_t total = 0;
  int overflow = 0;
  for (int k = 0; k < P; k++) {
    const double *r = rb->all + (size_t)k * BAL__REBALANCE_REC_N;
    iter_s = fmax(iter_s, r[BAL__REBALANCE_REC_ITER_S]);
    iters = fmax(iters, r[BAL__REBALANCE_REC_ITERS]);
    rb->n[k] = (int64_t)r[BAL__REBALANCE_REC_COUNT];
    if (rb->n[k] > INT64_MAX - total) overflow = 1;
    else total += rb->n[k];
    rb->rate[k] = r[BAL__REBALANCE_REC_RATE];
    if (rb->rate[k] > 0.0) {
      known++;
      rsum += rb->rate[k];
    }
  }
  if (overflow) {
    rb->st.error_rank = 0;
    return BAL_ERANGE;
  }
  rb->since_move_s += iters * iter_s;
  /* The target period is computed even when the interval is fixed: the
   * profitability horizon is at least workscale periods. */
  if (iter_s > 0.0) {
    bal_rebalance_period_in pin = {rb->interact_s, rb->cfg.f_interact, rb->move_s,
                                   rb->cfg.workscale, rb->cfg.quantum_s, rb->cfg.quantum_scale,
                                   iter_s, rb->cfg.max_interval};
    int64_t iv;
    if (bal_rebalance_period(&pin, &rb->period_s, &iv) == BAL_OK && rb->cfg.interval == 0)
      rb->interval = iv;
  }
  rb->st.interval = rb->interval;
  rb->st.period_s = rb->period_s;
  rb->st.interact_s = rb->interact_s;
  rb->st.move_s = rb->move_s;
  /* 3. rates: a rank without a measurement yet (no items) gets the mean */
  if (known == 0.0 || total == 0) {
    rb->st.last_verdict = BAL_REBALANCE_NO_DATA;
    return BAL_OK;
  }
  for (int k = 0; k < P; k++)
    if (!(rb->rate[k] > 0.0)) rb->rate[k] = rsum / known;
  rsum = 0.0;
  double t_now = 0.0, lsum = 0.0, tsum = 0.0;
  for (int k = 0; k < P; k++) {
    double load = rb->weighted ? rb->all[(size_t)k * BAL__REBALANCE_REC_N + BAL__REBALANCE_REC_LOAD]
                                : (double)rb->n[k];
    rsum += rb->rate[k];
    lsum += load;
    double tk = load / rb->rate[k]; /* the time rank k needs at its load */
    tsum += tk;
    t_now = fmax(t_now, tk);
  }
  double ideal = lsum / rsum;
  rb->st.imbalance = ideal > 0.0 ? t_now / ideal : 1.0;
  /* The POP load balance of those times, with the definition `pop`
   * reports (core/balance.h), so that both modules' figures compare. Rank
   * 0 computes it and speaks; a time that overflowed (an infinite sum) has
   * no figure. */
  if (rb->rank == 0 && bal__finite_nonneg(tsum))
    bal__log(BAL_LOG_INFO, "rebalance", "step %lld: load balance %.3f (avg/max of load/rate)",
             (long long)rb->st.steps, bal__load_balance_of(tsum, t_now, P));
  /* 4. the balancer plans, judges and moves */
  bal__rebalance_now now = {t_now, ideal, total};
  return rb->bal->act ? rb->bal->act(rb, &now, moved)
                      : bal__rebalance_act_sequence(rb, &now, moved);
}
