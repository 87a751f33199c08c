/* The result handle and the configuration defaults: everything public
 * that only reads what compute.c built. */
#include <stdlib.h>

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
