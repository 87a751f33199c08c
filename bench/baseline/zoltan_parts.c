/* The Zoltan baselines' shared set-up and run (see zoltan_parts.h). */
#include "zoltan_parts.h"

#include <stdio.h>

#include "core/clock.h"

static int num_obj(void *data, int *ierr) {
  *ierr = ZOLTAN_OK;
  return (int)((zparts_items *)data)->n;
}

/* Global IDs are the objects' positions: BLOCK keeps objects in global-ID
 * order, which makes its parts contiguous like Ballast's string cuts. */
static void obj_list(void *data, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int wdim, float *wgts, int *ierr) {
  zparts_items *it = data;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (int64_t j = 0; j < it->n; j++) {
    gids[j] = (ZOLTAN_ID_TYPE)j;
    if (wdim == 1) wgts[j] = (float)it->w[j]; /* Zoltan weights are floats */
  }
  *ierr = ZOLTAN_OK;
}

struct Zoltan_Struct *zparts_create(MPI_Comm comm, const char *method, int parts,
                                    zparts_items *items) {
  static int initialised = 0;
  float ver;
  if (!initialised && Zoltan_Initialize(0, NULL, &ver) != ZOLTAN_OK) return NULL;
  initialised = 1;
  struct Zoltan_Struct *zz = Zoltan_Create(comm);
  if (!zz) return NULL;
  char nparts[32];
  snprintf(nparts, sizeof nparts, "%d", parts);
  int rc = ZOLTAN_OK;
  /* Quiet first: at the default level Zoltan prints each setting to stdout. */
  rc |= Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  rc |= Zoltan_Set_Param(zz, "LB_METHOD", method);
  rc |= Zoltan_Set_Param(zz, "NUM_GID_ENTRIES", "1");
  rc |= Zoltan_Set_Param(zz, "NUM_LID_ENTRIES", "0");
  rc |= Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  rc |= Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", nparts);
  /* One list with every object's part, rather than import/export lists. */
  rc |= Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  rc |= Zoltan_Set_Num_Obj_Fn(zz, num_obj, items);
  rc |= Zoltan_Set_Obj_List_Fn(zz, obj_list, items);
  if (rc != ZOLTAN_OK) {
    Zoltan_Destroy(&zz);
    return NULL;
  }
  return zz;
}

int zparts_run(struct Zoltan_Struct *zz, int64_t n, int *part, double *seconds) {
  int changes, ngid, nlid, nimp, nexp, *imp_procs, *imp_parts, *exp_procs, *exp_parts;
  ZOLTAN_ID_PTR imp_gids, imp_lids, exp_gids, exp_lids;
  int64_t t0 = bal__now_ns();
  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &imp_gids, &imp_lids,
                               &imp_procs, &imp_parts, &nexp, &exp_gids, &exp_lids, &exp_procs,
                               &exp_parts);
  *seconds = (double)(bal__now_ns() - t0) * 1e-9;
  int ok = rc == ZOLTAN_OK && (int64_t)nexp == n;
  if (ok)
    for (int k = 0; k < nexp; k++) {
      if (exp_gids[k] >= (ZOLTAN_ID_TYPE)n) ok = 0;
      else part[exp_gids[k]] = exp_parts[k];
    }
  Zoltan_LB_Free_Part(&imp_gids, &imp_lids, &imp_procs, &imp_parts);
  Zoltan_LB_Free_Part(&exp_gids, &exp_lids, &exp_procs, &exp_parts);
  return ok ? 0 : -1;
}
