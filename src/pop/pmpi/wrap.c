/* The MPI calls measured by libballast_pop.so: every blocking call that can
 * wait for another rank, and the waits of non-blocking ones. Each wrapper
 * is PMPI_<name> between bal_pop_mpi_enter() and bal_pop_mpi_exit().
 * Not measured (docs/pop.md): MPI_Test* (they return at once; a program
 * that polls with them shows the polling as useful time), one-sided
 * synchronisation, MPI-IO, MPI_Comm_create and other communicator
 * constructors (collective, but rare), non-blocking calls themselves (only
 * their waits). The list, shared with fortran.c, is calls.h's. */
#include <mpi.h>

#include <ballast/pop.h>

#include "calls.h"

/* C_WRAP(Name, name, F, (parameters), (arguments)): calls.h's rows */
#define C_WRAP(name, fname, f, params, args)                                                  \
  int MPI_##name params {                                                                     \
    bal_pop_mpi_enter();                                                                      \
    int rc_ = PMPI_##name args;                                                               \
    bal_pop_mpi_exit();                                                                       \
    return rc_;                                                                               \
  }

POP_MEASURED_CALLS(C_WRAP)
POP_MEASURED_CALLS_C_ONLY(C_WRAP)
