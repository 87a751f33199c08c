/* The geometric balancer's decision: gather every item's coordinates and
 * weight on rank 0, partition them there with bal_partition_compute(),
 * give every rank the result (the items' parts and the flat form of
 * partition/wire.h: every rank then holds the same handle), project the
 * step time of the new parts, let the shared judgement decide (judge.c)
 * and move the items along the import/export lists (migrate.c with the
 * index mover of geo_move.c). The gather costs rank 0 (dim + 1) doubles
 * per item, every rank one int per item: it happens only when the
 * threshold may pass. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_geo.h>

#include "core/check.h"
#include "core/clock.h"
#include "geo.h"
#include "partition/wire.h"

/* Grow an array of n elements of `size` bytes (contents dropped). */
static int grow(void **p, int64_t n, size_t size) {
  void *q = realloc(*p, (size_t)(n > 0 ? n : 1) * size);
  if (!q) return BAL_ENOMEM;
  *p = q;
  return BAL_OK;
}

/* Root's partition, every rank's copy: rank 0 computes it, then every
 * rank receives its code, the items' parts, the parts' projected weights
 * (g->load) and the result in the flat form of partition/wire.h, and
 * rebuilds the handle (the same on every rank). Collective. */
static int share_partition(bal_rebalance_geo *g, int rc, int64_t total,
                           bal_partition_result **res) {
  bal_rebalance *rb = g->rb;
  const int P = rb->size;
  int64_t head[2] = {rc, 0}; /* the root's code, the size of its packed result */
  unsigned char *buf = NULL;
  if (rb->rank == 0 && rc == BAL_OK) {
    head[1] = (int64_t)bal__partition_wire_size(*res);
    if (head[1] > INT_MAX || !(buf = malloc((size_t)head[1]))) head[0] = BAL_ENOMEM;
    else bal__partition_wire_pack(*res, buf);
    for (int k = 0; k < P; k++) g->load[k] = 0.0;
    for (int64_t i = 0; i < total; i++) g->load[g->part[i]] += g->all_w[i];
  }
  int who = -1;
  if (MPI_Bcast(head, 2, MPI_INT64_T, 0, rb->comm) != MPI_SUCCESS) {
    rc = BAL_EMPI;
  } else if (head[0] != BAL_OK) { /* the root's code, everywhere */
    rc = (int)head[0];
    if (rc == BAL_ENOMEM) rb->st.error_rank = 0; /* its memory, not the input */
  } else {
    int err = rb->rank == 0 || (buf = malloc((size_t)head[1])) ? BAL_OK : BAL_ENOMEM;
    if ((rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who)) == BAL_OK) {
      if (MPI_Bcast(buf, (int)head[1], MPI_BYTE, 0, rb->comm) != MPI_SUCCESS ||
          MPI_Bcast(g->part, (int)total, MPI_INT, 0, rb->comm) != MPI_SUCCESS ||
          MPI_Bcast(g->load, P, MPI_DOUBLE, 0, rb->comm) != MPI_SUCCESS)
        rc = BAL_EMPI;
      else if (rb->rank != 0)
        err = bal__partition_wire_unpack(buf, (size_t)head[1], total, g->from, g->part, res);
      if (rc == BAL_OK) rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
    }
  }
  free(buf);
  if (rc != BAL_OK) {
    if (who >= 0) rb->st.error_rank = who;
    bal_partition_result_destroy(*res); /* rank 0's, or a rebuilt copy */
    *res = NULL;
  }
  return rc;
}

/* This rank's items read now (their count must be `expect` unless that is
 * negative), weighted by the callback, or each `w_each` without it; then
 * the agreement, the gather on rank 0, its partition, and every rank's
 * copy of it in *res, g->part and g->load. Collective; returns the agreed
 * code. Only rank 0 holds every item's coordinates and computes: the
 * others would compute the same partition (same inputs, deterministic),
 * and P copies of the work cost P times the CPU on shared cores and P
 * times the memory. */
static int gather_partition(bal_rebalance_geo *g, int64_t expect, double w_each,
                            bal_partition_result **res, int64_t *total_out) {
  bal_rebalance *rb = g->rb;
  const int P = rb->size, dim = g->dim;
  const bool root = rb->rank == 0;
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
    if ((err = grow((void **)&g->from, total, sizeof(int))) == BAL_OK &&
        (err = grow((void **)&g->part, total, sizeof(int))) == BAL_OK &&
        (!root || ((err = grow((void **)&g->all_xyz, total * dim, sizeof(double))) == BAL_OK &&
                   (err = grow((void **)&g->all_w, total, sizeof(double))) == BAL_OK)))
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
  if (MPI_Gatherv(g->xyz, (int)n * dim, MPI_DOUBLE, g->all_xyz, g->cnt_xyz, g->dsp_xyz,
                  MPI_DOUBLE, 0, rb->comm) != MPI_SUCCESS ||
      MPI_Gatherv(g->w, (int)n, MPI_DOUBLE, g->all_w, g->cnt, g->dsp, MPI_DOUBLE, 0, rb->comm) !=
          MPI_SUCCESS)
    return BAL_EMPI;
  rc = BAL_OK;
  if (root) {
    bal_partition_input in = {.dim = dim, .n = total, .coords = g->all_xyz,
                              .weights = g->all_w, .from = g->from};
    memcpy(in.lo, g->lo, sizeof in.lo);
    memcpy(in.hi, g->hi, sizeof in.hi);
    rc = bal_partition_compute(&in, &g->pcfg, g->res, g->part, res);
  }
  *total_out = total;
  return share_partition(g, rc, total, res);
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
  const double *load = g->load;
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
