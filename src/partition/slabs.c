/* Slabs along one dimension, the building block of "tensor" and
 * "staggered" ([ALL]'s methods): planes placed so that the slabs between
 * them carry equal summed weight, and the choice of a process grid.
 *
 * The items are sorted by their coordinate and items with equal
 * coordinates are merged into one group (a grid's column of cells), so a
 * plane never separates equal coordinates: a plane lies halfway between
 * the last group of one slab and the first of the next, and the groups are
 * cut as a chain (cut1d.c). The balance is therefore limited by the weight
 * of one group, the price of slabs that are true boxes. O(m log m). */
#include <math.h>
#include <stdlib.h>

#include "partition_internal.h"

typedef struct cw {
  double x;
  double w;
} cw;

static int by_x(const void *pa, const void *pb) {
  const cw *a = pa, *b = pb;
  return (a->x > b->x) - (a->x < b->x);
}

int bal__part_slab_planes(const bal__part_ctx *c, const int64_t *idx, int64_t m, int d, double a,
                          double b, int p, const double *ref, double *planes) {
  const bal_partition_input *in = c->in;
  cw *it = malloc((size_t)(m > 0 ? m : 1) * sizeof *it);
  double *val = malloc((size_t)(m > 0 ? m : 1) * sizeof *val);
  double *gw = malloc((size_t)(m > 0 ? m : 1) * sizeof *gw);
  int64_t *cuts = malloc((size_t)(p + 1) * sizeof *cuts);
  int64_t *rc_ = ref ? malloc((size_t)(p + 1) * sizeof *rc_) : NULL;
  int rc = BAL_ENOMEM;
  if (!it || !val || !gw || !cuts || (ref && !rc_)) goto out;
  double total = 0.0;
  for (int64_t j = 0; j < m; j++) {
    int64_t i = idx ? idx[j] : j;
    it[j].x = in->coords[i * c->dim + d];
    it[j].w = bal__part_w(in->weights, i);
    total += it[j].w;
  }
  qsort(it, (size_t)m, sizeof *it, by_x);
  int64_t g = 0;
  for (int64_t j = 0; j < m; j++) {
    double w = total > 0.0 ? it[j].w : 1.0; /* all weights 0: balance the counts */
    if (g > 0 && val[g - 1] == it[j].x) {
      gw[g - 1] += w;
    } else {
      val[g] = it[j].x;
      gw[g++] = w;
    }
  }
  if (ref) {
    rc_[0] = 0;
    for (int s = 1; s < p; s++) {
      int64_t k = bal__part_first(val, 0, g, ref[s], false); /* groups below ref[s] */
      rc_[s] = k < rc_[s - 1] ? rc_[s - 1] : k;
    }
    rc_[p] = g;
  }
  rc = bal__part_cut1d(g, gw, p, rc_, c->cfg->tolerance, false, NULL, cuts);
  if (rc != BAL_OK) goto out;
  planes[0] = a;
  planes[p] = b;
  for (int s = 1; s < p; s++) {
    int64_t k = cuts[s];
    planes[s] = k <= 0 ? a : (k >= g ? b : val[k - 1] + (val[k] - val[k - 1]) / 2.0);
  }
  double me = c->cfg->min_extent[d];
  if (me > 0.0) { /* the caller checked that b - a >= p * me */
    for (int s = 1; s < p; s++) planes[s] = fmax(planes[s], planes[s - 1] + me);
    for (int s = p - 1; s >= 1; s--) planes[s] = fmin(planes[s], planes[s + 1] - me);
  }
out:
  free(it);
  free(val);
  free(gw);
  free(cuts);
  free(rc_);
  return rc;
}

int bal__part_slab_of(const double *planes, int p, double x) {
  /* the last s in [0, p-1] with planes[s] <= x (planes[0] <= x always) */
  return (int)bal__part_first(planes, 1, p, x, true) - 1;
}

/* How far boxes of extents e[0..dim) are from cubes: the ratio of the
 * longest to the shortest side, over the dimensions that have an extent. */
static double aspect(int dim, const double *e) {
  double mx = 0.0, mn = INFINITY;
  for (int d = 0; d < dim; d++) {
    if (!(e[d] > 0.0)) continue;
    mx = fmax(mx, e[d]);
    mn = fmin(mn, e[d]);
  }
  return mx > 0.0 ? mx / mn : 1.0;
}

int bal__part_grid_choose(int dim, int parts, const double *ext, const double *min_extent,
                          int *grid) {
  double best = INFINITY;
  int g[3] = {1, 1, 1}, found = 0;
  for (int px = 1; px <= parts; px++) {
    if (parts % px) continue;
    int rest = parts / px;
    for (int py = 1; py <= rest; py++) {
      if (rest % py) continue;
      int pz = rest / py;
      if (dim == 2 && pz != 1) continue;
      int cand[3] = {px, py, pz};
      double e[3];
      int ok = 1, waste = 0;
      for (int d = 0; d < dim; d++) {
        e[d] = ext[d] / cand[d];
        if (min_extent[d] > 0.0 && ext[d] < cand[d] * min_extent[d]) ok = 0;
        if (!(ext[d] > 0.0)) waste += cand[d] - 1; /* slabs of a flat dimension */
      }
      if (!ok) continue;
      double score = aspect(dim, e) + waste;
      if (score < best) {
        best = score;
        g[0] = px;
        g[1] = py;
        g[2] = pz;
        found = 1;
      }
    }
  }
  if (!found) return BAL_EINVAL;
  for (int d = 0; d < 3; d++) grid[d] = g[d];
  return BAL_OK;
}
