/* Zoltan RCB baseline (see zoltan_rcb.h). */
#include "zoltan_rcb.h"

#include <stdio.h>
#include <stdlib.h>

#include <zoltan.h>

#include "core/clock.h"

struct zrcb {
  struct Zoltan_Struct *zz;
  int64_t n;
  int dims;
  const double *coord, *w;
};

static int num_obj(void *data, int *ierr) {
  zrcb *z = data;
  *ierr = ZOLTAN_OK;
  return (int)z->n;
}

static void obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int wdim, float *wgts, int *ierr) {
  zrcb *z = data;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (int64_t j = 0; j < z->n; j++) {
    gids[j] = (ZOLTAN_ID_TYPE)j;
    if (wdim == 1) wgts[j] = (float)z->w[j]; /* Zoltan weights are floats */
  }
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *data, int *ierr) {
  *ierr = ZOLTAN_OK;
  return ((zrcb *)data)->dims;
}

static void geom_multi(void *data, int ngid, int nlid, int nobj, ZOLTAN_ID_PTR gids,
                       ZOLTAN_ID_PTR lids, int dim, double *out, int *ierr) {
  zrcb *z = data;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (int k = 0; k < nobj; k++)
    for (int d = 0; d < dim; d++) out[k * dim + d] = z->coord[(int64_t)gids[k] * z->dims + d];
  *ierr = ZOLTAN_OK;
}

zrcb *zrcb_create(MPI_Comm comm, int64_t n, int dims, const double *coord, const double *w,
                  int parts, double tol) {
  static int initialised = 0;
  float ver;
  if (!initialised && Zoltan_Initialize(0, NULL, &ver) != ZOLTAN_OK) return NULL;
  initialised = 1;
  zrcb *z = calloc(1, sizeof *z);
  if (!z) return NULL;
  *z = (zrcb){.n = n, .dims = dims, .coord = coord, .w = w};
  if (!(z->zz = Zoltan_Create(comm))) {
    free(z);
    return NULL;
  }
  char nparts[32], imb[32];
  snprintf(nparts, sizeof nparts, "%d", parts);
  snprintf(imb, sizeof imb, "%.6g", tol);
  int rc = ZOLTAN_OK;
  /* Quiet first: at the default level Zoltan prints each setting to stdout. */
  rc |= Zoltan_Set_Param(z->zz, "DEBUG_LEVEL", "0");
  rc |= Zoltan_Set_Param(z->zz, "LB_METHOD", "RCB");
  rc |= Zoltan_Set_Param(z->zz, "NUM_GID_ENTRIES", "1");
  rc |= Zoltan_Set_Param(z->zz, "NUM_LID_ENTRIES", "0");
  rc |= Zoltan_Set_Param(z->zz, "OBJ_WEIGHT_DIM", "1");
  rc |= Zoltan_Set_Param(z->zz, "NUM_GLOBAL_PARTS", nparts);
  rc |= Zoltan_Set_Param(z->zz, "IMBALANCE_TOL", imb);
  /* One list with every object's part, rather than import/export lists. */
  rc |= Zoltan_Set_Param(z->zz, "RETURN_LISTS", "PARTS");
  rc |= Zoltan_Set_Num_Obj_Fn(z->zz, num_obj, z);
  rc |= Zoltan_Set_Obj_List_Fn(z->zz, obj_list, z);
  rc |= Zoltan_Set_Num_Geom_Fn(z->zz, num_geom, z);
  rc |= Zoltan_Set_Geom_Multi_Fn(z->zz, geom_multi, z);
  if (rc != ZOLTAN_OK) {
    zrcb_destroy(z);
    return NULL;
  }
  return z;
}

int zrcb_run(zrcb *z, int *part, double *seconds) {
  int changes, ngid, nlid, nimp, nexp, *imp_procs, *imp_parts, *exp_procs, *exp_parts;
  ZOLTAN_ID_PTR imp_gids, imp_lids, exp_gids, exp_lids;
  int64_t t0 = bal__now_ns();
  int rc = Zoltan_LB_Partition(z->zz, &changes, &ngid, &nlid, &nimp, &imp_gids, &imp_lids,
                               &imp_procs, &imp_parts, &nexp, &exp_gids, &exp_lids, &exp_procs,
                               &exp_parts);
  *seconds = (double)(bal__now_ns() - t0) * 1e-9;
  int ok = rc == ZOLTAN_OK && (int64_t)nexp == z->n;
  if (ok)
    for (int k = 0; k < nexp; k++) {
      if (exp_gids[k] >= (ZOLTAN_ID_TYPE)z->n) ok = 0;
      else part[exp_gids[k]] = exp_parts[k];
    }
  Zoltan_LB_Free_Part(&imp_gids, &imp_lids, &imp_procs, &imp_parts);
  Zoltan_LB_Free_Part(&exp_gids, &exp_lids, &exp_procs, &exp_parts);
  return ok ? 0 : -1;
}

void zrcb_destroy(zrcb *z) {
  if (!z) return;
  Zoltan_Destroy(&z->zz);
  free(z);
}
