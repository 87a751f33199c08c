/* "tensor": [ALL]'s tensor method. The parts form a Cartesian grid of
 * px x py [x pz]; along each dimension the planes are placed over all
 * items (slabs.c) so that every slab of the dimension carries the same
 * summed weight. Piece (i, j, l) is i + px (j + py l), x fastest. The
 * boundaries are the px+1, py+1 [, pz+1] planes one dimension after the
 * other; incremental steps start from those of `prev`. */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

static int64_t nbound(const bal__part_ctx *c) {
  int64_t nb = 0;
  for (int d = 0; d < c->dim; d++) nb += c->grid[d] + 1;
  return nb;
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  int p = c->parts;
  int64_t nb = nbound(c);
  bool inc = c->incremental && c->prev;
  pl->label = malloc((size_t)p * sizeof *pl->label);
  pl->tgt = malloc((size_t)nb * sizeof *pl->tgt);
  pl->ref = inc ? malloc((size_t)nb * sizeof *pl->ref) : NULL;
  if (!pl->label || !pl->tgt || (inc && !pl->ref)) return BAL_ENOMEM;
  if (inc) {
    memcpy(pl->label, c->prev->label, (size_t)p * sizeof *pl->label);
    memcpy(pl->ref, c->prev->bound, (size_t)nb * sizeof *pl->ref);
  } else {
    for (int k = 0; k < p; k++) pl->label[k] = k;
  }
  int64_t at = 0;
  for (int d = 0; d < c->dim; d++) {
    int rc = bal__part_slab_planes(c, NULL, c->in->n, d, c->in->lo[d], c->in->hi[d], c->grid[d],
                                   inc ? pl->ref + at : NULL, pl->tgt + at);
    if (rc != BAL_OK) return rc;
    at += c->grid[d] + 1;
  }
  pl->nbound = nb;
  pl->blend = inc;
  return BAL_OK;
}

static int place(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
                 bal_partition_region *regions, double *bound) {
  int64_t nb = pl->nbound;
  double *pos = malloc((size_t)nb * sizeof *pos);
  if (!pos) return BAL_ENOMEM;
  for (int64_t b = 0; b < nb; b++)
    pos[b] = t >= 1.0 || !pl->ref ? pl->tgt[b] : pl->ref[b] + t * (pl->tgt[b] - pl->ref[b]);
  const double *planes[3] = {pos, NULL, NULL};
  for (int d = 1; d < c->dim; d++) planes[d] = planes[d - 1] + c->grid[d - 1] + 1;
  int dim = c->dim;
  for (int64_t i = 0; i < c->in->n; i++) {
    int k = 0, stride = 1;
    for (int d = 0; d < dim; d++) {
      k += stride * bal__part_slab_of(planes[d], c->grid[d], c->in->coords[i * dim + d]);
      stride *= c->grid[d];
    }
    piece[i] = k;
  }
  if (regions) {
    for (int k = 0; k < c->parts; k++) {
      bal_partition_region *r = &regions[k];
      memset(r, 0, sizeof *r);
      r->kind = BAL_PARTITION_REGION_BOX;
      int rest = k;
      for (int d = 0; d < dim; d++) {
        int s = rest % c->grid[d];
        rest /= c->grid[d];
        r->lo[d] = planes[d][s];
        r->hi[d] = planes[d][s + 1];
      }
    }
  }
  if (bound) memcpy(bound, pos, (size_t)nb * sizeof *pos);
  free(pos);
  return BAL_OK;
}

const bal__part_method bal__part_tensor = {"tensor", BAL_PARTITION_REGION_BOX, true, NULL, plan, place, NULL};
