/* Zoltan RCB and HSFC baselines (see zoltan_geom.h). */
#include "zoltan_geom.h"

#include <stdio.h>
#include <stdlib.h>

#include "baseline/zoltan_parts.h"

struct zgeom {
  struct Zoltan_Struct *zz;
  zparts_items items;
  int dims;
  const double *coord;
};

static int num_geom(void *data, int *ierr) {
  *ierr = ZOLTAN_OK;
  return ((zgeom *)data)->dims;
}

static void geom_multi(void *data, int ngid, int nlid, int nobj, ZOLTAN_ID_PTR gids,
                       ZOLTAN_ID_PTR lids, int dim, double *out, int *ierr) {
  zgeom *z = data;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (int k = 0; k < nobj; k++)
    for (int d = 0; d < dim; d++) out[k * dim + d] = z->coord[(int64_t)gids[k] * z->dims + d];
  *ierr = ZOLTAN_OK;
}

zgeom *zgeom_create(MPI_Comm comm, const char *method, int64_t n, int dims, const double *coord,
                    const double *w, int parts, double tol) {
  zgeom *z = calloc(1, sizeof *z);
  if (!z) return NULL;
  *z = (zgeom){.items = {n, w}, .dims = dims, .coord = coord};
  if (!(z->zz = zparts_create(comm, method, parts, &z->items))) {
    free(z);
    return NULL;
  }
  char imb[32];
  snprintf(imb, sizeof imb, "%.6g", tol);
  int rc = Zoltan_Set_Param(z->zz, "IMBALANCE_TOL", imb);
  rc |= Zoltan_Set_Num_Geom_Fn(z->zz, num_geom, z);
  rc |= Zoltan_Set_Geom_Multi_Fn(z->zz, geom_multi, z);
  if (rc != ZOLTAN_OK) {
    zgeom_destroy(z);
    return NULL;
  }
  return z;
}

int zgeom_run(zgeom *z, int *part, double *seconds) {
  return zparts_run(z->zz, z->items.n, part, seconds);
}

void zgeom_destroy(zgeom *z) {
  if (!z) return;
  Zoltan_Destroy(&z->zz);
  free(z);
}
