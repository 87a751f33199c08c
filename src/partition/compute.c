/* bal_partition_compute(): check everything, plan, place, relabel, limit
 * the moves, build the result (the life of a call: partition_internal.h).
 * Nothing the caller gave is written before every check and allocation
 * has succeeded. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/check.h"
#include "partition_internal.h"

/* Bisection steps on the blend t when the move limit binds: 2^-20 of the
 * way between the current and the target boundaries is below one item. */
#define BLEND_STEPS 20

static int check_config(const bal_partition_config *cfg, int dim) {
  if (cfg->parts < 1 || cfg->parts > BAL_PARTITION_MAX_PARTS) return BAL_EINVAL;
  if (!bal__finite_nonneg(cfg->tolerance)) return BAL_EINVAL;
  if (!(cfg->max_move_fraction >= 0.0 && cfg->max_move_fraction <= 1.0)) return BAL_EINVAL;
  for (int d = 0; d < 3; d++)
    if (!bal__finite_nonneg(cfg->min_extent[d]) || cfg->grid[d] < 0) return BAL_EINVAL;
  if (dim == 2 && cfg->grid[2] > 1) return BAL_EINVAL;
  return BAL_OK;
}

static int check_input(const bal_partition_input *in, int parts) {
  if (in->dim != 2 && in->dim != 3) return BAL_EINVAL;
  if (in->n < 1 || !in->coords || parts > in->n) return BAL_EINVAL;
  for (int d = 0; d < in->dim; d++)
    if (!isfinite(in->lo[d]) || !isfinite(in->hi[d]) || in->hi[d] < in->lo[d]) return BAL_EINVAL;
  for (int64_t i = 0; i < in->n; i++) {
    for (int d = 0; d < in->dim; d++) {
      double x = in->coords[i * in->dim + d];
      if (!(x >= in->lo[d] && x <= in->hi[d])) return BAL_EINVAL; /* NaN fails too */
    }
    if (in->weights && !bal__finite_nonneg(in->weights[i])) return BAL_EINVAL;
    if (in->from && (in->from[i] < 0 || in->from[i] >= parts)) return BAL_EINVAL;
  }
  return BAL_OK;
}

/* The process grid of the box methods, and whether the domain holds the
 * minimum extent: per dimension of the grid for "tensor"/"staggered", as
 * a count of minimum boxes for "rcb". */
static int resolve_grid(bal__part_ctx *c, const bal__part_method *m) {
  const bal_partition_config *cfg = c->cfg;
  double ext[3] = {0};
  for (int d = 0; d < c->dim; d++) ext[d] = c->in->hi[d] - c->in->lo[d];
  c->grid[0] = c->grid[1] = c->grid[2] = 1;
  if (m->kind != BAL_PARTITION_REGION_BOX) return BAL_OK;
  if (!m->grid) { /* bisection: enough minimum boxes must fit */
    /* a dimension without a minimum can be cut without end */
    double fit = 1.0;
    for (int d = 0; d < c->dim; d++) {
      if (cfg->min_extent[d] > 0.0 && ext[d] < cfg->min_extent[d]) return BAL_EINVAL;
      fit *= cfg->min_extent[d] > 0.0 ? floor(ext[d] / cfg->min_extent[d] * (1.0 + 1e-9))
                                      : INFINITY;
    }
    return fit >= (double)c->parts ? BAL_OK : BAL_EINVAL;
  }
  bool chosen = cfg->grid[0] || cfg->grid[1] || cfg->grid[2];
  if (!chosen) return bal__part_grid_choose(c->dim, c->parts, ext, cfg->min_extent, c->grid);
  int64_t prod = 1;
  for (int d = 0; d < c->dim; d++) {
    if (cfg->grid[d] < 1) return BAL_EINVAL;
    prod *= cfg->grid[d];
    if (prod > c->parts) return BAL_EINVAL;
    if (cfg->min_extent[d] > 0.0 && ext[d] < cfg->grid[d] * cfg->min_extent[d]) return BAL_EINVAL;
    c->grid[d] = cfg->grid[d];
  }
  return prod == c->parts ? BAL_OK : BAL_EINVAL;
}

static int check_prev(const bal__part_ctx *c, const bal__part_method *m) {
  const bal_partition_result *p = c->prev;
  if (!p) return BAL_OK;
  if (p->method != m || p->parts != c->parts || p->dim != c->dim) return BAL_EINVAL;
  for (int d = 0; d < 3; d++)
    if (p->grid[d] != c->grid[d]) return BAL_EINVAL;
  for (int d = 0; d < c->dim; d++)
    if (p->lo[d] != c->in->lo[d] || p->hi[d] != c->in->hi[d]) return BAL_EINVAL;
  return BAL_OK;
}

static int64_t count_moved(int64_t n, const int *from, const int *piece, const int *label) {
  int64_t moved = 0;
  for (int64_t i = 0; i < n; i++) moved += label[piece[i]] != from[i];
  return moved;
}

static void plan_free(const bal__part_method *m, bal__part_plan *pl) {
  free(pl->label);
  free(pl->ref);
  free(pl->tgt);
  if (m->release) m->release(pl->priv);
}

int bal_partition_compute(const bal_partition_input *in, const bal_partition_config *cfg,
                          const bal_partition_result *prev, int *part,
                          bal_partition_result **out) {
  bal_partition_config defaults;
  if (!cfg) {
    bal_partition_config_init(&defaults);
    cfg = &defaults;
  }
  if (!in || !part) return BAL_EINVAL;
  int rc = check_config(cfg, in->dim);
  if (rc == BAL_OK) rc = check_input(in, cfg->parts);
  if (rc != BAL_OK) return rc;
  const bal__part_method *m = bal__part_method_find(cfg->method);
  if (!m) return BAL_EINVAL;
  bal__part_ctx c = {in, cfg, prev, in->dim, cfg->parts, {1, 1, 1}, false};
  if ((rc = resolve_grid(&c, m)) != BAL_OK || (rc = check_prev(&c, m)) != BAL_OK) return rc;
  c.incremental = cfg->incremental && in->from;
  int64_t n = in->n;
  int p = c.parts;
  if ((uint64_t)n > SIZE_MAX / 64) return BAL_ENOMEM; /* n records of up to 40 bytes */
  bal__part_plan pl = {0};
  int *piece = malloc((size_t)n * sizeof *piece);
  int *label = malloc((size_t)p * sizeof *label);
  int *newpart = malloc((size_t)n * sizeof *newpart);
  bal_partition_region *regions = malloc((size_t)p * sizeof *regions);
  double *bound = NULL;
  bal_partition_result *res = NULL;
  rc = BAL_ENOMEM;
  if (!piece || !label || !newpart || !regions) goto done;
  if ((rc = m->plan(&c, &pl)) != BAL_OK) goto done;
  rc = BAL_ENOMEM;
  bound = malloc((size_t)(pl.nbound > 0 ? pl.nbound : 1) * sizeof *bound);
  if (!bound) goto done;
  if ((rc = m->place(&c, &pl, 1.0, piece, regions, bound)) != BAL_OK) goto done;
  memcpy(label, pl.label, (size_t)p * sizeof *label);
  if (in->from) {
    if (cfg->remap && (rc = bal__part_remap(n, in->weights, in->from, piece, p, label)) != BAL_OK)
      goto done;
    int64_t limit = (int64_t)floor(cfg->max_move_fraction * (double)n);
    if (count_moved(n, in->from, piece, label) > limit) {
      /* move the boundaries only part of the way, with the labels that
       * follow the current decomposition */
      rc = BAL_ERANGE;
      if (!pl.blend) goto done;
      memcpy(label, pl.label, (size_t)p * sizeof *label);
      if ((rc = m->place(&c, &pl, 0.0, piece, NULL, NULL)) != BAL_OK) goto done;
      rc = BAL_ERANGE;
      if (count_moved(n, in->from, piece, label) > limit) goto done;
      double ok = 0.0, bad = 1.0;
      for (int s = 0; s < BLEND_STEPS; s++) {
        double mid = ok + (bad - ok) / 2.0;
        if ((rc = m->place(&c, &pl, mid, piece, NULL, NULL)) != BAL_OK) goto done;
        if (count_moved(n, in->from, piece, label) <= limit)
          ok = mid;
        else
          bad = mid;
      }
      if ((rc = m->place(&c, &pl, ok, piece, regions, bound)) != BAL_OK) goto done;
    }
  }
  for (int64_t i = 0; i < n; i++) newpart[i] = label[piece[i]];
  if (out && (rc = bal__part_build(m, c.dim, p, c.grid, in->lo, in->hi, regions, label, bound,
                                   pl.nbound, n, in->from, newpart, &res)) != BAL_OK)
    goto done;
  memcpy(part, newpart, (size_t)n * sizeof *part);
  if (out) *out = res;
  rc = BAL_OK;
done:
  plan_free(m, &pl);
  free(piece);
  free(label);
  free(newpart);
  free(regions);
  free(bound);
  return rc;
}
