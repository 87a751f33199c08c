/* Public API of the geometric balancer: configuration and its agreement
 * across ranks, create/destroy, the step (the module's hook), statistics,
 * and the check of the local coordinates at every post. The decision is
 * in geo_act.c, the map in geo.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_geo.h>

#include "core/check.h"
#include "geo.h"

int bal_rebalance_geo_config_init(bal_rebalance_geo_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  bal_rebalance_config_init(&cfg->measure);
  bal_partition_config_init(&cfg->partition);
  cfg->dim = 2;
  for (int d = 0; d < 3; d++) cfg->hi[d] = 1.0;
  return BAL_OK;
}

/* The registry's copy of a method name (NULL if unknown), so that the
 * configuration need not outlive the call. */
static const char *method_of(const char *name) {
  if (!name) return NULL;
  for (int i = 0; bal_partition_method_name(i); i++)
    if (strcmp(bal_partition_method_name(i), name) == 0) return bal_partition_method_name(i);
  return NULL;
}

/* What partition.h would refuse for any input, checked here so that a bad
 * configuration fails at creation rather than at the first move. */
static bool geo_config_valid(const bal_rebalance_geo_config *c,
                             const bal_rebalance_geo_callbacks *cb, int size) {
  const bal_partition_config *p = &c->partition;
  if (!cb || !cb->count || !cb->coords || !cb->pack || !cb->unpack || !cb->remove ||
      (!cb->pack_size && cb->item_bytes < 1))
    return false;
  if ((c->dim != 2 && c->dim != 3) || !method_of(p->method)) return false;
  for (int d = 0; d < c->dim; d++)
    if (!isfinite(c->lo[d]) || !isfinite(c->hi[d]) || !(c->hi[d] >= c->lo[d]) ||
        !bal__finite_nonneg(p->min_extent[d]))
      return false;
  if (!(p->max_move_fraction >= 0.0 && p->max_move_fraction <= 1.0) ||
      !bal__finite_nonneg(p->tolerance))
    return false;
  int64_t prod = 1;
  bool any = false;
  for (int d = 0; d < 3; d++) {
    if (p->grid[d] < 0) return false;
    any |= p->grid[d] != 0;
    prod *= p->grid[d] ? p->grid[d] : 1;
  }
  if (any && (prod != size || (c->dim == 2 && p->grid[2] > 1))) return false;
  return true;
}

/* The fields every rank must agree on, as doubles (method by its index). */
enum { NKEY = 31 };
static void config_key(const bal_rebalance_geo_config *c, double *k) {
  const bal_rebalance_config *m = &c->measure;
  const bal_partition_config *p = &c->partition;
  int mi = 0;
  while (bal_partition_method_name(mi) && p->method &&
         strcmp(bal_partition_method_name(mi), p->method) != 0)
    mi++;
  double v[NKEY] = {(double)c->dim, c->lo[0], c->lo[1], c->lo[2], c->hi[0], c->hi[1], c->hi[2],
                    (double)mi, p->grid[0], p->grid[1], p->grid[2], p->min_extent[0],
                    p->min_extent[1], p->min_extent[2], p->max_move_fraction, p->tolerance,
                    p->remap, p->incremental, (double)m->filter, m->filter_h, m->threshold,
                    m->profitability, m->benefit_weight, m->horizon_s, (double)m->interval,
                    (double)m->max_interval, m->f_interact, m->workscale, m->quantum_s,
                    m->quantum_scale, m->pipelined};
  memcpy(k, v, sizeof v);
}

/* Every rank valid and every rank the same configuration (NaN fields are
 * invalid before they get here, so min == max compares them exactly). */
static int agree_config(MPI_Comm comm, const bal_rebalance_geo_config *cfg,
                        const bal_rebalance_geo_callbacks *cb) {
  int size = 0;
  if (MPI_Comm_size(comm, &size) != MPI_SUCCESS) return BAL_EMPI;
  double mine[NKEY + 1] = {0}, lo[NKEY + 1], hi[NKEY + 1];
  mine[0] = cfg && geo_config_valid(cfg, cb, size) ? 1.0 : 0.0;
  if (mine[0] == 1.0) config_key(cfg, mine + 1);
  if (MPI_Allreduce(mine, lo, NKEY + 1, MPI_DOUBLE, MPI_MIN, comm) != MPI_SUCCESS ||
      MPI_Allreduce(mine, hi, NKEY + 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    return BAL_EMPI;
  if (lo[0] != 1.0) return BAL_EINVAL;
  for (int i = 1; i <= NKEY; i++)
    if (lo[i] != hi[i]) return BAL_EINVAL;
  return BAL_OK;
}

int bal__rebalance_geo_read_coords(bal_rebalance_geo *g, int64_t n) {
  if (n < 0) return BAL_EINVAL;
  if (n > g->loc_cap) {
    double *x = realloc(g->xyz, (size_t)n * (size_t)g->dim * sizeof *x);
    if (!x) return BAL_ENOMEM;
    g->xyz = x;
    double *w = realloc(g->w, (size_t)n * sizeof *w);
    if (!w) return BAL_ENOMEM;
    g->w = w;
    g->loc_cap = n;
  }
  if (n > 0 && g->cb.coords(n, g->xyz, g->cb.arg) != 0) return BAL_ECALLBACK;
  for (int64_t i = 0; i < n; i++)
    for (int d = 0; d < g->dim; d++) {
      double x = g->xyz[i * g->dim + d];
      if (!isfinite(x) || x < g->lo[d] || x > g->hi[d]) return BAL_EINVAL;
    }
  return BAL_OK;
}

/* At every post: the coordinates must be inside the domain, so that a bad
 * one is reported (collectively) even while nothing moves. */
static int geo_check(bal_rebalance *rb, int64_t count) {
  return bal__rebalance_geo_read_coords(rb->ext, count);
}

const bal__rebalance_balancer bal__rebalance_geo = {
    .name = "geo", .moves = true, .costs = true, .act = bal__rebalance_geo_act,
    .check = geo_check};

static void release(bal_rebalance_geo *g) {
  bal_partition_result_destroy(g->res);
  free(g->xyz);
  free(g->w);
  free(g->all_xyz);
  free(g->all_w);
  free(g->from);
  free(g->part);
  free(g->cnt);
  free(g->dsp);
  free(g->cnt_xyz);
  free(g->dsp_xyz);
  free(g->io);
  free(g->load);
  free(g->idx);
  free(g->sorted);
  free(g->back);
  free(g);
}

int bal_rebalance_geo_create(MPI_Comm comm, const bal_rebalance_geo_config *cfg,
                             const bal_rebalance_geo_callbacks *cb, bal_rebalance_geo **out) {
  if (!out) return BAL_EINVAL;
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (!inited || finalized || comm == MPI_COMM_NULL) return BAL_EINVAL;
  int rc = agree_config(comm, cfg, cb);
  if (rc != BAL_OK) return rc;
  bal_rebalance_geo *g = calloc(1, sizeof *g);
  int size = 0, ok, all_ok = 0;
  MPI_Comm_size(comm, &size);
  if (g) {
    g->cnt = malloc((size_t)size * sizeof *g->cnt);
    g->dsp = malloc((size_t)size * sizeof *g->dsp);
    g->cnt_xyz = malloc((size_t)size * sizeof *g->cnt_xyz);
    g->dsp_xyz = malloc((size_t)size * sizeof *g->dsp_xyz);
    g->io = malloc((size_t)size * sizeof *g->io);
    g->load = malloc((size_t)size * sizeof *g->load);
  }
  ok = g && g->cnt && g->dsp && g->cnt_xyz && g->dsp_xyz && g->io && g->load;
  if (MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) rc = BAL_EMPI;
  else if (!all_ok) rc = BAL_ENOMEM;
  if (rc != BAL_OK) {
    if (g) release(g);
    return rc;
  }
  g->cb = *cb;
  g->pcfg = cfg->partition;
  g->pcfg.method = method_of(cfg->partition.method);
  g->pcfg.parts = size;
  g->dim = cfg->dim;
  memcpy(g->lo, cfg->lo, sizeof g->lo);
  memcpy(g->hi, cfg->hi, sizeof g->hi);
  /* The loop's own callbacks: the count, and the weights that make it
   * measure in weight units; it never moves items itself (act does). */
  bal_rebalance_callbacks rcb = {.count = cb->count, .weights = cb->weights, .arg = cb->arg};
  rc = bal__rebalance_create(comm, &cfg->measure, &rcb, &bal__rebalance_geo, &g->rb);
  if (rc != BAL_OK) {
    release(g);
    return rc;
  }
  g->rb->ext = g;
  *out = g;
  return BAL_OK;
}

int bal_rebalance_geo_mark(bal_rebalance_geo *g) {
  return g ? bal_rebalance_mark(g->rb) : BAL_EINVAL;
}

int bal_rebalance_geo_step(bal_rebalance_geo *g, double compute_s, int64_t *moved) {
  if (!g) return BAL_EINVAL;
  return bal_rebalance_step(g->rb, compute_s, BAL_REBALANCE_ALL, moved);
}

int bal_rebalance_geo_partition(bal_rebalance_geo *g, int64_t *moved) {
  if (!g) return BAL_EINVAL;
  return bal__rebalance_geo_force(g, moved);
}

const bal_partition_result *bal_rebalance_geo_result(const bal_rebalance_geo *g) {
  return g ? g->res : NULL;
}

int bal_rebalance_geo_region(const bal_rebalance_geo *g, bal_partition_region *out) {
  if (!g || !out) return BAL_EINVAL;
  if (!g->res) return BAL_ENOTFOUND;
  return bal_partition_region_get(g->res, g->rb->rank, out);
}

int bal_rebalance_geo_neighbors(const bal_rebalance_geo *g, const int **list) {
  if (!g) return BAL_EINVAL;
  if (!g->res) return BAL_ENOTFOUND;
  return bal_partition_neighbors(g->res, g->rb->rank, list);
}

int bal_rebalance_geo_stats_get(const bal_rebalance_geo *g, bal_rebalance_stats *out) {
  if (!g || !out) return BAL_EINVAL;
  return bal_rebalance_stats_get(g->rb, out);
}

void bal_rebalance_geo_destroy(bal_rebalance_geo *g) {
  if (!g) return;
  bal_rebalance_destroy(g->rb);
  release(g);
}
