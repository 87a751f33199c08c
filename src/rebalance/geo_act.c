/* The geometric balancer's decision: gather every item's coordinates and
 * weight on every rank, partition them with bal_partition_compute() (the
 * same result everywhere: same inputs, deterministic), project the step
 * time of the new parts, let the shared judgement decide (judge.c) and
 * move the items along the import/export lists (migrate.c with the index
 * mover of geo_move.c). The gather costs (dim + 1) doubles per item on
 * every rank: it happens only when the threshold may pass. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_geo.h>

#include "core/check.h"
#include "core/clock.h"
#include "geo.h"

/* Grow an array of n elements of `size` bytes (contents dropped). */
static int grow(void **p, int64_t n, size_t size) {
  void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * size);
  if (!q) return BAL_ENOMEM;
  *p = q;
  return BAL_OK;
}

/* This rank's items read now (their count must be `expect` unless that is
 * negative), weighted by the callback, or each `w_each` without it; then
 * the agreement, the gather, and the partition into *res and g->part.
 * Collective; returns the agreed code. */
static int gather_partition(bal_rebalance_geo *g, int64_t expect, double w_each,
                            bal_partition_result **res, int64_t *total_out) {
  bal_rebalance *rb = g->rb;
  const int P = rb->size, dim = g->dim;
  int err = 0, who = -1;
  int64_t n = -1;
  if (g->cb.count(&n, g->cb.arg) != 0) err = BAL_ECALLBACK;
  else if (n < 0 || (expect >= 0 && n != expect)) err = BAL_EINVAL;
  if (!err) err = bal__rebalance_geo_read_coords(g, n);
  if (!err && g->cb.weights) {
    if (n > 0 && g->cb.weights(n, g->w, g->cb.arg) != 0) err = BAL_ECALLBACK;
    for (int64_t i = 0; i < n && !err; i++)
      if (!bal__finite_nonneg(g->w[i])) err = BAL_EINVAL;
  } else if (!err) {
    for (int64_t i = 0; i < n; i++) g->w[i] = w_each;
  }
  /* every rank's count, so that each can size the gather */
  int64_t *counts = g->io; /* scratch until the projection */
  int64_t mine = err ? 0 : n;
  if (MPI_Allgather(&mine, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, rb->comm) != MPI_SUCCESS)
    return BAL_EMPI;
  int64_t total = 0;
  for (int k = 0; k < P; k++) total += counts[k];
  if (!err && (total > INT_MAX / dim || total < 1 || total < P))
    err = total < 1 || total < P ? BAL_EINVAL : BAL_ERANGE;
  if (!err && total > g->all_cap) {
    if ((err = grow((void **)&g->all_xyz, total * dim, sizeof(double))) == BAL_OK &&
        (err = grow((void **)&g->all_w, total, sizeof(double))) == BAL_OK &&
        (err = grow((void **)&g->from, total, sizeof(int))) == BAL_OK &&
        (err = grow((void **)&g->part, total, sizeof(int))) == BAL_OK)
      g->all_cap = total;
  }
  int rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
  if (rc != 0) {
    if (who >= 0) rb->st.error_rank = who;
    return rc;
  }
  int at = 0;
  for (int k = 0; k < P; k++) {
    g->cnt[k] = (int)counts[k];
    g->dsp[k] = at;
    g->cnt_xyz[k] = g->cnt[k] * dim;
    g->dsp_xyz[k] = at * dim;
    for (int i = 0; i < g->cnt[k]; i++) g->from[at + i] = k;
    at += g->cnt[k];
  }
  if (MPI_Allgatherv(g->xyz, (int)n * dim, MPI_DOUBLE, g->all_xyz, g->cnt_xyz, g->dsp_xyz,
                     MPI_DOUBLE, rb->comm) != MPI_SUCCESS ||
      MPI_Allgatherv(g->w, (int)n, MPI_DOUBLE, g->all_w, g->cnt, g->dsp, MPI_DOUBLE, rb->comm) !=
          MPI_SUCCESS)
    return BAL_EMPI;
  bal_partition_input in = {.dim = dim, .n = total, .coords = g->all_xyz,
                            .weights = g->all_w, .from = g->from};
  memcpy(in.lo, g->lo, sizeof in.lo);
  memcpy(in.hi, g->hi, sizeof in.hi);
  /* Same inputs on every rank: the same code everywhere (a minimum extent
   * the domain cannot hold, a move limit not met, no memory aside). */
  rc = bal_partition_compute(&in, &g->pcfg, g->res, g->part, res);
  if (rc == BAL_ENOMEM) { /* memory may fail on one rank only: agree */
    rc = bal__rebalance_agree(rb->comm, rb->rank, rc, &who);
  } else if (rc == BAL_OK) {
    int r2 = bal__rebalance_agree(rb->comm, rb->rank, 0, &who);
    if (r2 != 0) {
      bal_partition_result_destroy(*res);
      *res = NULL;
      rc = r2;
    }
  }
  *total_out = total;
  return rc;
}

/* Items each rank sends plus receives (g->io), and the items that change
 * rank in all. */
static int64_t count_io(bal_rebalance_geo *g, int64_t total) {
  int64_t moved = 0;
  memset(g->io, 0, (size_t)g->rb->size * sizeof *g->io);
  for (int64_t i = 0; i < total; i++)
    if (g->part[i] != g->from[i]) {
      g->io[g->from[i]]++;
      g->io[g->part[i]]++;
      moved++;
    }
  return moved;
}

/* This rank's packages under res into rb->out and rb->in, with the local
 * index lists they need; then the migration. Collective, agreed. */
static int move(bal_rebalance_geo *g, const bal_partition_result *res, int64_t expect,
                int64_t *mv) {
  bal_rebalance *rb = g->rb;
  const int me = rb->rank;
  const bal_partition_transfer *ex;
  const bal_partition_transfer *const *im;
  int nout = bal_partition_exports(res, me, &ex), nin = bal_partition_imports(res, me, &im);
  int64_t nsent = 0, nrecv = 0;
  for (int j = 0; j < nout; j++) nsent += ex[j].count;
  for (int j = 0; j < nin; j++) nrecv += im[j]->count;
  int err = 0, who = -1;
  if (nsent > g->idx_cap) {
    if ((err = grow((void **)&g->idx, nsent, sizeof *g->idx)) == BAL_OK &&
        (err = grow((void **)&g->sorted, nsent, sizeof *g->sorted)) == BAL_OK)
      g->idx_cap = nsent;
  }
  if (!err && nrecv > g->back_cap) {
    if ((err = grow((void **)&g->back, nrecv, sizeof *g->back)) == BAL_OK) g->back_cap = nrecv;
  }
  unsigned char *mark = NULL;
  if (!err && !(mark = calloc((size_t)(expect > 0 ? expect : 1), 1))) err = BAL_ENOMEM;
  int rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
  if (rc != 0) {
    free(mark);
    if (who >= 0) rb->st.error_rank = who;
    return rc;
  }
  int64_t at = 0, base = g->dsp[me];
  for (int j = 0; j < nout; j++) {
    rb->out[j] = (bal__rebalance_pkg){.peer = ex[j].to, .count = ex[j].count, .items = g->idx + at};
    for (int64_t i = 0; i < ex[j].count; i++) {
      g->idx[at + i] = ex[j].items[i] - base;
      mark[g->idx[at + i]] = 1;
    }
    at += ex[j].count;
  }
  /* the sent items in ascending order, for one remove call */
  for (int64_t i = 0, s = 0; i < expect; i++)
    if (mark[i]) g->sorted[s++] = i;
  free(mark);
  /* what unpack appends: indices after the items held now */
  for (int64_t i = 0; i < nrecv; i++) g->back[i] = expect + i;
  for (int j = 0; j < nin; j++)
    rb->in[j] = (bal__rebalance_pkg){.peer = im[j]->from, .count = im[j]->count};
  return bal__rebalance_migrate(rb, &bal__rebalance_mover_geo, rb->out, nout, rb->in, nin, expect,
                                mv);
}

/* Keep the result of a move as the current decomposition. */
static void adopt(bal_rebalance_geo *g, bal_partition_result *res) {
  bal_partition_result_destroy(g->res);
  g->res = res;
}

int bal__rebalance_geo_act(bal_rebalance *rb, const bal__rebalance_now *now, int64_t *moved) {
  bal_rebalance_geo *g = rb->ext;
  if (now->total < rb->size) { /* fewer items than parts: no partition */
    rb->st.last_verdict = BAL_REBALANCE_NO_DATA;
    return BAL_OK;
  }
  if (bal__rebalance_below_threshold(rb, now)) return BAL_OK;
  /* Without given weights an item of rank k weighs the seconds rank k
   * needs per item (1 / its rate): the projection is then in seconds. */
  bal_partition_result *res = NULL;
  int64_t total = 0, t_plan = bal__now_ns();
  double w_each = 1.0 / rb->rate[rb->rank];
  int rc = gather_partition(g, rb->n[rb->rank], w_each, &res, &total);
  /* The gather and the partition are part of this interaction's cost: the
   * next record reports it, and the automatic period ([Siegell 1997]
   * §5.2.1: interactions may take f_interact of the time) grows with it, so
   * that partitioning often does not eat the iterations it balances. */
  rb->last_interact_s += (double)(bal__now_ns() - t_plan) * 1e-9;
  if (rc != BAL_OK) return rc;
  /* The projection: part k's weight over rank k's rate (with weights, in
   * weight units per second), or its weight alone (already seconds). */
  double *load = g->load;
  for (int k = 0; k < rb->size; k++) load[k] = 0.0;
  for (int64_t i = 0; i < total; i++) load[g->part[i]] += g->all_w[i];
  double t_new = 0.0;
  for (int k = 0; k < rb->size; k++)
    t_new = fmax(t_new, g->cb.weights ? load[k] / rb->rate[k] : load[k]);
  int64_t moved_all = count_io(g, total), max_io = 0;
  for (int k = 0; k < rb->size; k++) max_io = g->io[k] > max_io ? g->io[k] : max_io;
  /* A partition that moves nothing cannot improve anything, whatever the
   * weights read since the exchange project. */
  if (bal__rebalance_judge(rb, now, moved_all ? t_new : now->t_now, max_io) !=
      BAL_REBALANCE_MOVE) {
    bal_partition_result_destroy(res);
    return BAL_OK;
  }
  int64_t t0 = bal__now_ns(), mv = 0;
  rc = move(g, res, rb->n[rb->rank], &mv);
  if (rc != BAL_OK) {
    bal_partition_result_destroy(res);
    return rc;
  }
  adopt(g, res);
  bal__rebalance_note_move(rb, (double)(bal__now_ns() - t0) * 1e-9, mv, moved_all);
  /* Without weights the rate is per item, and the items changed: the
   * history of the filter describes other items, so it starts again (with
   * weights the rate is per unit of weight and stays comparable). */
  if (!g->cb.weights) bal_rebalance_filter_init(&rb->filt);
  if (moved) *moved = mv;
  return BAL_OK;
}

int bal__rebalance_geo_force(bal_rebalance_geo *g, int64_t *moved) {
  bal_rebalance *rb = g->rb;
  int rc = bal__rebalance_cancel(rb);
  if (rc != BAL_OK) return rc;
  bal_partition_result *res = NULL;
  int64_t total = 0, mv = 0;
  if ((rc = gather_partition(g, -1, 1.0, &res, &total)) != BAL_OK) return rc;
  int64_t t0 = bal__now_ns(), moved_all = count_io(g, total);
  if ((rc = move(g, res, g->cnt[rb->rank], &mv)) != BAL_OK) {
    bal_partition_result_destroy(res);
    return rc;
  }
  adopt(g, res);
  if (moved_all > 0)
    bal__rebalance_note_move(rb, (double)(bal__now_ns() - t0) * 1e-9, mv, moved_all);
  if (moved) *moved = mv;
  return BAL_OK;
}
