/* The C side of module ballast_mpi: Fortran passes a communicator as its
 * mpi_f08 handle's integer (MPI_Comm%MPI_VAL, an MPI_Fint) and only C can
 * turn that into an MPI_Comm (MPI_Comm_f2c; Fortran has no portable way to
 * call it). Private to the binding: these names are not in any header and
 * only fortran/ballast_mpi.f90 calls them. */
#include <mpi.h>

#include <ballast/error.h>
#include <ballast/rebalance.h>
#include <ballast/steal.h>

/* The Fortran interfaces declare the handle integer(c_int). */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

int bal__f_steal_create(MPI_Fint comm, const bal_steal_config *cfg, bal_steal **out);
int bal__f_rebalance_create(MPI_Fint comm, const bal_rebalance_config *cfg,
                            const bal_rebalance_callbacks *cb, bal_rebalance **out);
int bal__f_rebalance_measure_shift(MPI_Fint comm, size_t elem_bytes, int64_t elems, int reps,
                                   double *t_fixed, double *t_incr);

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
