/* Public API of the `rebalance` module around the hook: configuration
 * checks, create and destroy, filter names, statistics (balancer names are
 * in balancer.c). The balancer's layout and the map of the module are in
 * rebalance_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance.h>

#include "core/check.h"
#include "core/clock.h"
#include "rebalance_internal.h"

int bal_rebalance_config_init(bal_rebalance_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->balancer = bal_rebalance_balancer_name(0);
  cfg->filter = BAL_REBALANCE_FILTER_ADAPTIVE;
  cfg->filter_h = 0.8;
  cfg->threshold = 0.10;
  cfg->profitability = true;
  cfg->benefit_weight = 2.0;
  cfg->horizon_s = 0.0;
  cfg->interval = 0;
  cfg->max_interval = 1000;
  cfg->f_interact = 0.05;
  cfg->workscale = 4.0;
  cfg->quantum_s = 0.01;
  cfg->quantum_scale = 10.0;
  cfg->pipelined = true;
  return BAL_OK;
}

static bool config_valid(const bal_rebalance_config *c) {
  return (c->filter == BAL_REBALANCE_FILTER_ADAPTIVE || c->filter == BAL_REBALANCE_FILTER_FIXED ||
          c->filter == BAL_REBALANCE_FILTER_NONE) &&
         c->filter_h >= 0.0 && c->filter_h < 1.0 && c->threshold >= 0.0 && c->threshold < 1.0 &&
         bal__finite_pos(c->benefit_weight) && bal__finite_nonneg(c->horizon_s) &&
         c->interval >= 0 && c->max_interval >= 1 && c->f_interact > 0.0 &&
         c->f_interact <= 1.0 && c->workscale >= 1.0 && isfinite(c->workscale) &&
         bal__finite_nonneg(c->quantum_s) && bal__finite_nonneg(c->quantum_scale);
}

static bool callbacks_valid(const bal_rebalance_callbacks *cb, const bal__rebalance_balancer *b) {
  if (!cb->count) return false;
  if (!b->moves) return true;
  return cb->pack && cb->unpack && cb->remove && (cb->pack_size || cb->item_bytes >= 1);
}

/* The interaction cost for the period ([Siegell 1997] §5.2.1): a few
 * exchanges of dummy records at startup, the slowest rank's best. It
 * overestimates the pipelined case, where most of it is hidden, which errs
 * on the side of less overhead. */
static int measure_interaction(bal_rebalance *rb) {
  double best = 1e300;
  for (int i = 0; i < 3; i++) {
    int64_t t0 = bal__now_ns();
    if (MPI_Allgather(rb->rec, BAL__REBALANCE_REC_N, MPI_DOUBLE, rb->all, BAL__REBALANCE_REC_N,
                      MPI_DOUBLE, rb->comm) != MPI_SUCCESS)
      return BAL_EMPI;
    best = fmin(best, (double)(bal__now_ns() - t0) * 1e-9);
  }
  if (MPI_Allreduce(&best, &rb->interact_s, 1, MPI_DOUBLE, MPI_MAX, rb->comm) != MPI_SUCCESS)
    return BAL_EMPI;
  return BAL_OK;
}

/* Free the balancer's memory (its communicator is the caller's business:
 * creation and destruction free it under different conditions). */
static void release(bal_rebalance *rb) {
  free(rb->all);
  free(rb->rate);
  free(rb->n);
  free(rb->t);
  free(rb->a);
  free(rb->shift);
  free(rb->plan);
  free(rb->out);
  free(rb->in);
  free(rb->obuf);
  free(rb->ibuf);
  free(rb->osz);
  free(rb->isz);
  free(rb->req_mig);
  free(rb->rcounts);
  free(rb->displs);
  free(rb->wloc);
  free(rb->wall);
  free(rb->cut);
  free(rb->cut_ref);
  free(rb);
}

int bal_rebalance_create(MPI_Comm comm, const bal_rebalance_config *cfg,
                         const bal_rebalance_callbacks *cb, bal_rebalance **out) {
  bal_rebalance_config c;
  if (!out || !cb) return BAL_EINVAL;
  if (cfg)
    c = *cfg;
  else
    bal_rebalance_config_init(&c);
  const bal__rebalance_balancer *bal = bal__rebalance_balancer_find(c.balancer);
  if (!bal || !callbacks_valid(cb, bal)) return BAL_EINVAL;
  return bal__rebalance_create(comm, &c, cb, bal, out);
}

int bal__rebalance_create(MPI_Comm comm, const bal_rebalance_config *cfg,
                          const bal_rebalance_callbacks *cb, const bal__rebalance_balancer *bal,
                          bal_rebalance **out) {
  bal_rebalance_config c = *cfg;
  if (!config_valid(&c)) return BAL_EINVAL;
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (!inited || finalized || comm == MPI_COMM_NULL) return BAL_EINVAL;

  bal_rebalance *rb = calloc(1, sizeof *rb);
  if (!rb) return BAL_ENOMEM;
  rb->cfg = c;
  rb->cfg.balancer = bal->name; /* the caller's string need not outlive this call */
  rb->bal = bal;
  rb->cb = *cb;
  if (MPI_Comm_dup(comm, &rb->comm) != MPI_SUCCESS) {
    free(rb);
    return BAL_EMPI;
  }
  int rc = BAL_EMPI;
  /* Errors come back as codes on our private communicator, so that the
   * module can report BAL_EMPI instead of the default abort. */
  if (MPI_Comm_set_errhandler(rb->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(rb->comm, &rb->rank) != MPI_SUCCESS ||
      MPI_Comm_size(rb->comm, &rb->size) != MPI_SUCCESS)
    goto fail;
  size_t p = (size_t)rb->size;
  rb->all = malloc(p * BAL__REBALANCE_REC_N * sizeof *rb->all);
  rb->rate = malloc(p * sizeof *rb->rate);
  rb->n = malloc(p * sizeof *rb->n);
  rb->t = malloc(p * sizeof *rb->t);
  rb->a = malloc(p * sizeof *rb->a);
  rb->shift = malloc(p * sizeof *rb->shift);
  rb->plan = malloc(p * sizeof *rb->plan);
  rb->out = malloc(p * sizeof *rb->out);
  rb->in = malloc(p * sizeof *rb->in);
  rb->obuf = calloc(p, sizeof *rb->obuf);
  rb->ibuf = calloc(p, sizeof *rb->ibuf);
  rb->osz = calloc(p, sizeof *rb->osz);
  rb->isz = calloc(p, sizeof *rb->isz);
  rb->req_mig = malloc(2 * p * sizeof *rb->req_mig);
  rb->rcounts = malloc(p * sizeof *rb->rcounts);
  rb->displs = malloc(p * sizeof *rb->displs);
  rb->cut = malloc((p + 1) * sizeof *rb->cut);
  rb->cut_ref = malloc((p + 1) * sizeof *rb->cut_ref);
  /* A rank that failed to allocate must not leave the others in the
   * collectives below: agree first. */
  int ok = rb->all && rb->rate && rb->n && rb->t && rb->a && rb->shift && rb->plan && rb->out &&
           rb->in && rb->obuf && rb->ibuf && rb->osz && rb->isz && rb->req_mig && rb->rcounts &&
           rb->displs && rb->cut && rb->cut_ref,
      all_ok = 0;
  if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, rb->comm) != MPI_SUCCESS) goto fail;
  rc = BAL_ENOMEM;
  if (!all_ok) goto fail;
  if ((rc = measure_interaction(rb)) != BAL_OK) goto fail;
  bal_rebalance_filter_init(&rb->filt);
  rb->interval = c.interval > 0 ? c.interval : BAL__REBALANCE_FIRST_INTERVAL;
  if (rb->interval > c.max_interval && c.interval == 0) rb->interval = c.max_interval;
  rb->countdown = rb->interval;
  rb->req = MPI_REQUEST_NULL;
  rb->t_prev = bal__now_ns();
  rb->st.interval = rb->interval;
  rb->st.interact_s = rb->interact_s;
  rb->st.error_rank = -1;
  rb->st.last_verdict = BAL_REBALANCE_NO_DATA;
  rb->weighted = cb->weights && bal->costs;
  rb->avg_w = 1.0;
  *out = rb;
  return BAL_OK;
fail:
  MPI_Comm_free(&rb->comm);
  release(rb);
  return rc;
}

int bal__rebalance_cancel(bal_rebalance *rb) {
  /* the items are about to change: what was measured was other items */
  rb->countdown = rb->interval;
  rb->win_compute_s = rb->win_items = rb->win_wall_s = 0.0;
  rb->win_steps = 0;
  if (!rb->posted) return BAL_OK;
  rb->posted = false;
  if (MPI_Wait(&rb->req, MPI_STATUS_IGNORE) != MPI_SUCCESS) return BAL_EMPI;
  /* The records are dropped, not their errors: the lowest rank's, as at
   * an interaction (the records are the same on every rank). */
  for (int k = 0; k < rb->size; k++) {
    int e = (int)rb->all[(size_t)k * BAL__REBALANCE_REC_N + BAL__REBALANCE_REC_ERR];
    if (e != 0) {
      rb->st.error_rank = k;
      return e;
    }
  }
  return BAL_OK;
}

int bal_rebalance_mark(bal_rebalance *rb) {
  if (!rb) return BAL_EINVAL;
  rb->t_mark = bal__now_ns();
  rb->marked = true;
  return BAL_OK;
}

int bal_rebalance_stats_get(const bal_rebalance *rb, bal_rebalance_stats *out) {
  if (!rb || !out) return BAL_EINVAL;
  *out = rb->st;
  return BAL_OK;
}

void bal_rebalance_destroy(bal_rebalance *rb) {
  if (!rb) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    if (rb->posted) MPI_Wait(&rb->req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&rb->comm);
  }
  release(rb);
}
