/* The MPI calls measured by libballast_pop.so: every blocking call that can
 * wait for another rank and the waits of non-blocking ones, each
 * PMPI_<name> between bal_pop_mpi_enter() and bal_pop_mpi_exit(); and the
 * tests and probes (MPI_Test*, MPI_Iprobe, MPI_Improbe) between
 * bal_pop_mpi_poll_enter() and bal_pop_mpi_exit(), so that a rank waiting
 * by polling shows its time in them as MPI time, as TALP counts it, without
 * lending at every poll. Not measured (docs/pop.md): one-sided
 * synchronisation, MPI-IO, MPI_Comm_create and other communicator
 * constructors (collective, but rare), non-blocking calls themselves (only
 * their waits and tests). The lists, shared with fortran.c, are calls.h's. */
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

/* C_POLL: the same for calls.h's tests and probes */
#define C_POLL(name, fname, f, params, args)                                                  \
  int MPI_##name params {                                                                     \
    bal_pop_mpi_poll_enter();                                                                 \
    int rc_ = PMPI_##name args;                                                               \
    bal_pop_mpi_exit();                                                                       \
    return rc_;                                                                               \
  }

POP_MEASURED_CALLS(C_WRAP)
POP_MEASURED_CALLS_C_ONLY(C_WRAP)
POP_POLLING_CALLS(C_POLL)
