/* Zoltan BLOCK baseline (see zoltan_block.h). */
#include "zoltan_block.h"

#include <stdlib.h>

#include "baseline/zoltan_parts.h"

struct zblock {
  struct Zoltan_Struct *zz;
  zparts_items items;
};

zblock *zblock_create(MPI_Comm comm, int64_t n, const double *w, int parts) {
  zblock *z = calloc(1, sizeof *z);
  if (!z) return NULL;
  z->items = (zparts_items){n, w};
  if (!(z->zz = zparts_create(comm, "BLOCK", parts, &z->items))) {
    free(z);
    return NULL;
  }
  return z;
}

int zblock_run(zblock *z, int *part, double *seconds) {
  return zparts_run(z->zz, z->items.n, part, seconds);
}

void zblock_destroy(zblock *z) {
  if (!z) return;
  Zoltan_Destroy(&z->zz);
  free(z);
}
