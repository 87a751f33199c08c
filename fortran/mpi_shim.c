/* The C side of module ballast_mpi: Fortran passes a communicator as its
 * mpi_f08 handle's integer (MPI_Comm%MPI_VAL, an MPI_Fint) and only C can
 * turn that into an MPI_Comm (MPI_Comm_f2c; Fortran has no portable way to
 * call it). Private to the binding: these names are not in any header and
 * only fortran/ballast_mpi.f90 calls them. */
#include <mpi.h>

#include <ballast/error.h>
#include <ballast/rebalance.h>
#include <ballast/rebalance_geo.h>
#include <ballast/steal.h>

/* The Fortran interfaces declare the handle integer(c_int). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

int bal__f_steal_create(MPI_Fint comm, const bal_steal_config *cfg, bal_steal **out);
int bal__f_rebalance_create(MPI_Fint comm, const bal_rebalance_config *cfg,
                            const bal_rebalance_callbacks *cb, bal_rebalance **out);
int bal__f_rebalance_measure_shift(MPI_Fint comm, size_t elem_bytes, int64_t elems, int reps,
                                   double *t_fixed, double *t_incr);
int bal__f_rebalance_geo_create(MPI_Fint comm, const bal_rebalance_geo_config *cfg,
                                const bal_rebalance_geo_callbacks *cb, bal_rebalance_geo **out);
int bal__f_rebalance_geo_region(const bal_rebalance_geo *g, double lo[3], double hi[3]);
int bal__f_rebalance_geo_neighbors(const bal_rebalance_geo *g, int *list, int cap);

/* MPI_Comm_f2c is only defined between MPI_Init and MPI_Finalize; outside
 * that window the C functions' own check (BAL_EINVAL) applies, so the
 * handle is then passed as MPI_COMM_NULL. */
static MPI_Comm to_c(MPI_Fint comm) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin ? MPI_Comm_f2c(comm) : MPI_COMM_NULL;
}

int bal__f_steal_create(MPI_Fint comm, const bal_steal_config *cfg, bal_steal **out) {
  return bal_steal_create(to_c(comm), cfg, out);
}

int bal__f_rebalance_create(MPI_Fint comm, const bal_rebalance_config *cfg,
                            const bal_rebalance_callbacks *cb, bal_rebalance **out) {
  return bal_rebalance_create(to_c(comm), cfg, cb, out);
}

int bal__f_rebalance_measure_shift(MPI_Fint comm, size_t elem_bytes, int64_t elems, int reps,
                                   double *t_fixed, double *t_incr) {
  return bal_rebalance_measure_shift(to_c(comm), elem_bytes, elems, reps, t_fixed, t_incr);
}

int bal__f_rebalance_geo_create(MPI_Fint comm, const bal_rebalance_geo_config *cfg,
                                const bal_rebalance_geo_callbacks *cb, bal_rebalance_geo **out) {
  return bal_rebalance_geo_create(to_c(comm), cfg, cb, out);
}

/* This rank's region as two arrays (a box's corners; a curve interval's
 * keys in lo[0], hi[0]) and its neighbours copied into the caller's
 * array, for Fortran without a binding of partition.h's region. */
int bal__f_rebalance_geo_region(const bal_rebalance_geo *g, double lo[3], double hi[3]) {
  bal_partition_region r;
  int rc = bal_rebalance_geo_region(g, &r);
  if (rc != BAL_OK) return rc;
  for (int d = 0; d < 3; d++) {
    lo[d] = r.kind == BAL_PARTITION_REGION_BOX ? r.lo[d] : 0.0;
    hi[d] = r.kind == BAL_PARTITION_REGION_BOX ? r.hi[d] : 0.0;
  }
  if (r.kind == BAL_PARTITION_REGION_CURVE) {
    lo[0] = (double)r.key_lo;
    hi[0] = (double)r.key_hi;
  }
  return BAL_OK;
}

int bal__f_rebalance_geo_neighbors(const bal_rebalance_geo *g, int *list, int cap) {
  const int *l = NULL;
  int n = bal_rebalance_geo_neighbors(g, &l);
  for (int i = 0; i < n && i < cap; i++) list[i] = l[i];
  return n;
}
