/* "staggered": [ALL]'s staggered method. px slabs along x balanced over
 * all items; within each slab, py columns along y balanced over the slab's
 * items; in 3-D, within each column, pz boxes along z. Planes of one slab
 * (or column) are independent of its neighbours', so the balance is better
 * than "tensor"'s and a box may touch several boxes of the next slab.
 * Piece (i, j, l) is i + px (j + py l) as in "tensor". Boundaries: the x
 * planes, then the y planes of each slab, then the z planes of each column
 * (slab-major); incremental steps start from those of `prev`. */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

/* Offsets of the three levels in the boundary array. */
static void layout(const bal__part_ctx *c, int64_t *yoff, int64_t *zoff, int64_t *nb) {
  int px = c->grid[0], py = c->grid[1], pz = c->grid[2];
  *yoff = px + 1;
  *zoff = *yoff + (int64_t)px * (py + 1);
  *nb = c->dim == 3 ? *zoff + (int64_t)px * py * (pz + 1) : *zoff;
}

/* Items of each cell of a level: bucket[off[s] .. off[s+1]) for s in [0, cells). */
static int bucket(int64_t n, const int *cell, int cells, int64_t *off, int64_t *items) {
  memset(off, 0, (size_t)(cells + 1) * sizeof *off);
  for (int64_t i = 0; i < n; i++) off[cell[i] + 1]++;
  for (int s = 0; s < cells; s++) off[s + 1] += off[s];
  int64_t *at = malloc((size_t)(cells > 0 ? cells : 1) * sizeof *at);
  if (!at) return BAL_ENOMEM;
  memcpy(at, off, (size_t)cells * sizeof *at);
  for (int64_t i = 0; i < n; i++) items[at[cell[i]]++] = i;
  free(at);
  return BAL_OK;
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  const bal_partition_input *in = c->in;
  int p = c->parts, px = c->grid[0], py = c->grid[1], pz = c->grid[2];
  int64_t yoff, zoff, nb, n = in->n;
  layout(c, &yoff, &zoff, &nb);
  bool inc = c->incremental && c->prev;
  pl->label = malloc((size_t)p * sizeof *pl->label);
  pl->tgt = malloc((size_t)nb * sizeof *pl->tgt);
  pl->ref = inc ? malloc((size_t)nb * sizeof *pl->ref) : NULL;
  int *cell = malloc((size_t)n * sizeof *cell);
  int64_t *items = malloc((size_t)n * sizeof *items);
  int64_t *off = malloc((size_t)(px * py + 1) * sizeof *off);
  int rc = BAL_ENOMEM;
  if (!pl->label || !pl->tgt || (inc && !pl->ref) || !cell || !items || !off) goto out;
  if (inc) {
    memcpy(pl->label, c->prev->label, (size_t)p * sizeof *pl->label);
    memcpy(pl->ref, c->prev->bound, (size_t)nb * sizeof *pl->ref);
  } else {
    for (int k = 0; k < p; k++) pl->label[k] = k;
  }
  const double *ref = inc ? pl->ref : NULL;
  double *x = pl->tgt;
  rc = bal__part_slab_planes(c, NULL, n, 0, in->lo[0], in->hi[0], px, ref, x);
  if (rc != BAL_OK) goto out;
  for (int64_t i = 0; i < n; i++) cell[i] = bal__part_slab_of(x, px, in->coords[i * c->dim]);
  if ((rc = bucket(n, cell, px, off, items)) != BAL_OK) goto out;
  for (int s = 0; s < px; s++) {
    double *y = pl->tgt + yoff + (int64_t)s * (py + 1);
    rc = bal__part_slab_planes(c, items + off[s], off[s + 1] - off[s], 1, in->lo[1], in->hi[1],
                               py, ref ? ref + yoff + (int64_t)s * (py + 1) : NULL, y);
    if (rc != BAL_OK) goto out;
  }
  if (c->dim == 3) {
    for (int64_t i = 0; i < n; i++) {
      const double *y = pl->tgt + yoff + (int64_t)cell[i] * (py + 1);
      cell[i] += px * bal__part_slab_of(y, py, in->coords[i * 3 + 1]);
    }
    if ((rc = bucket(n, cell, px * py, off, items)) != BAL_OK) goto out;
    for (int col = 0; col < px * py; col++) {
      int64_t at = zoff + (int64_t)col * (pz + 1);
      rc = bal__part_slab_planes(c, items + off[col], off[col + 1] - off[col], 2, in->lo[2],
                                 in->hi[2], pz, ref ? ref + at : NULL, pl->tgt + at);
      if (rc != BAL_OK) goto out;
    }
  }
  pl->nbound = nb;
  pl->blend = inc;
out:
  free(cell);
  free(items);
  free(off);
  return rc;
}

static int place(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
                 bal_partition_region *regions, double *bound) {
  const bal_partition_input *in = c->in;
  int px = c->grid[0], py = c->grid[1], pz = c->grid[2], dim = c->dim;
  int64_t yoff, zoff, nb;
  layout(c, &yoff, &zoff, &nb);
  double *pos = malloc((size_t)nb * sizeof *pos);
  if (!pos) return BAL_ENOMEM;
  for (int64_t b = 0; b < nb; b++)
    pos[b] = t >= 1.0 || !pl->ref ? pl->tgt[b] : pl->ref[b] + t * (pl->tgt[b] - pl->ref[b]);
  for (int64_t i = 0; i < in->n; i++) {
    const double *xi = in->coords + i * dim;
    int s = bal__part_slab_of(pos, px, xi[0]);
    int col = s + px * bal__part_slab_of(pos + yoff + (int64_t)s * (py + 1), py, xi[1]);
    int k = col;
    if (dim == 3) k += px * py * bal__part_slab_of(pos + zoff + (int64_t)col * (pz + 1), pz, xi[2]);
    piece[i] = k;
  }
  if (regions) {
    for (int k = 0; k < c->parts; k++) {
      int s = k % px, j = (k / px) % py, l = k / (px * py), col = s + px * j;
      const double *y = pos + yoff + (int64_t)s * (py + 1);
      bal_partition_region *r = &regions[k];
      memset(r, 0, sizeof *r);
      r->kind = BAL_PARTITION_REGION_BOX;
      r->lo[0] = pos[s];
      r->hi[0] = pos[s + 1];
      r->lo[1] = y[j];
      r->hi[1] = y[j + 1];
      if (dim == 3) {
        const double *z = pos + zoff + (int64_t)col * (pz + 1);
        r->lo[2] = z[l];
        r->hi[2] = z[l + 1];
      }
    }
  }
  if (bound) memcpy(bound, pos, (size_t)nb * sizeof *pos);
  free(pos);
  return BAL_OK;
}

const bal__part_method bal__part_staggered = {"staggered", BAL_PARTITION_REGION_BOX, true, NULL, plan, place,
                                              NULL};
