/* The result handle and the configuration defaults: building it from a
 * placement (compute.c, wire.c), and everything public that only reads it. */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

int bal_partition_config_init(bal_partition_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  *cfg = (bal_partition_config){.method = "rcb",
                                .parts = 1,
                                .grid = {0, 0, 0},
                                .min_extent = {0.0, 0.0, 0.0},
                                .max_move_fraction = 1.0,
                                .tolerance = BAL_PARTITION_TOLERANCE_DEFAULT,
                                .remap = true,
                                .incremental = true};
  return BAL_OK;
}

int bal__part_build(const bal__part_method *m, int dim, int parts, const int grid[3],
                    const double lo[3], const double hi[3], const bal_partition_region *regions,
                    const int *label, const double *bound, int64_t nbound, int64_t n,
                    const int *from, const int *part, bal_partition_result **out) {
  bal_partition_result *r = calloc(1, sizeof *r);
  if (!r) return BAL_ENOMEM;
  r->method = m;
  r->dim = dim;
  r->parts = parts;
  for (int d = 0; d < 3; d++) {
    r->grid[d] = grid[d];
    r->lo[d] = d < dim ? lo[d] : 0.0;
    r->hi[d] = d < dim ? hi[d] : 0.0;
  }
  r->regions = malloc((size_t)parts * sizeof *r->regions);
  r->label = malloc((size_t)parts * sizeof *r->label);
  r->bound = malloc((size_t)(nbound > 0 ? nbound : 1) * sizeof *r->bound);
  int rc = BAL_ENOMEM;
  if (!r->regions || !r->label || !r->bound) goto fail;
  for (int j = 0; j < parts; j++) {
    r->regions[label[j]] = regions[j];
    r->label[j] = label[j];
  }
  if (nbound > 0) memcpy(r->bound, bound, (size_t)nbound * sizeof *bound);
  r->nbound = nbound;
  rc = m->kind == BAL_PARTITION_REGION_BOX ? bal__part_neighbors_boxes(r)
                                           : bal__part_neighbors_curve(r, label);
  if (rc != BAL_OK) goto fail;
  if (from) {
    rc = bal__part_transfers(r, n, from, part);
    if (rc != BAL_OK) goto fail;
  }
  *out = r;
  return BAL_OK;
fail:
  bal_partition_result_destroy(r);
  return rc;
}

void bal_partition_result_destroy(bal_partition_result *r) {
  if (!r) return;
  free(r->regions);
  free(r->label);
  free(r->bound);
  free(r->nbr_off);
  free(r->nbr);
  free(r->xfer);
  free(r->xoff);
  free(r->imp);
  free(r->ioff);
  free(r->items);
  free(r);
}

int bal_partition_result_parts(const bal_partition_result *r) { return r ? r->parts : 0; }

const char *bal_partition_result_method(const bal_partition_result *r) {
  return r ? r->method->name : NULL;
}

int bal_partition_region_get(const bal_partition_result *r, int k, bal_partition_region *out) {
  if (!r || !out || k < 0 || k >= r->parts) return BAL_EINVAL;
  *out = r->regions[k];
  return BAL_OK;
}

int bal_partition_neighbors(const bal_partition_result *r, int k, const int **list) {
  if (!r || k < 0 || k >= r->parts) return BAL_EINVAL;
  if (list) *list = r->nbr + r->nbr_off[k];
  return r->nbr_off[k + 1] - r->nbr_off[k];
}

int bal_partition_exports(const bal_partition_result *r, int k,
                          const bal_partition_transfer **list) {
  if (!r || k < 0 || k >= r->parts) return BAL_EINVAL;
  if (!r->xoff) {
    if (list) *list = NULL;
    return 0;
  }
  if (list) *list = r->xfer + r->xoff[k];
  return (int)(r->xoff[k + 1] - r->xoff[k]);
}

int bal_partition_imports(const bal_partition_result *r, int k,
                          const bal_partition_transfer *const **list) {
  if (!r || k < 0 || k >= r->parts) return BAL_EINVAL;
  if (!r->ioff) {
    if (list) *list = NULL;
    return 0;
  }
  if (list) *list = r->imp + r->ioff[k];
  return (int)(r->ioff[k + 1] - r->ioff[k]);
}
