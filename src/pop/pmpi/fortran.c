/* Fortran programs (docs/pop.md). Open MPI 4.1's Fortran bindings --
 * mpif.h and the `mpi` module (symbols mpi_send_ ...) and `mpi_f08`
 * (mpi_send_f08_ ...) -- call the C PMPI_ functions directly, so the C
 * wrappers of wrap.c and init.c never see a Fortran program's calls
 * (checked with nm: libmpi_mpifh.so.40 imports PMPI_Allreduce, not
 * MPI_Allreduce). This file wraps the Fortran entry points themselves:
 * calls.h's lists (not its C-only calls), plus init and finalize, each
 * forwarding its arguments (all passed by reference in Fortran, the
 * optional ierror of mpi_f08 as NULL when absent) to the Fortran profiling
 * entry point (pmpi_send_, pmpi_send_f08_) found by name at the first
 * call, so that a C program does not need Open MPI's Fortran libraries
 * loaded. Names are gfortran's (lower case, one trailing underscore). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include <ballast/pop.h>

#include "calls.h"
#include "pmpi.h"

/* The Fortran profiling entry point `name`, looked up once; the job is
 * aborted if the MPI library lacks it (a build without Fortran bindings
 * cannot be running a Fortran program, so this means a broken install). */
static void *lookup(void **cache, const char *name) {
  void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
  if (f == NULL) {
    f = dlsym(RTLD_DEFAULT, name);
    if (f == NULL) {
      fprintf(stderr, "libballast_pop: %s not found in the MPI library\n", name);
      PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    __atomic_store_n(cache, f, __ATOMIC_RELEASE);
  }
  return f;
}

#define PARAMS_1 void *a1
#define ARGS_1 a1
#define PARAMS_2 void *a1, void *a2
#define ARGS_2 a1, a2
#define PARAMS_3 void *a1, void *a2, void *a3
#define ARGS_3 a1, a2, a3
#define PARAMS_4 void *a1, void *a2, void *a3, void *a4
#define ARGS_4 a1, a2, a3, a4
#define PARAMS_5 void *a1, void *a2, void *a3, void *a4, void *a5
#define ARGS_5 a1, a2, a3, a4, a5
#define PARAMS_6 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6
#define ARGS_6 a1, a2, a3, a4, a5, a6
#define PARAMS_7 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7
#define ARGS_7 a1, a2, a3, a4, a5, a6, a7
#define PARAMS_8 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7, void *a8
#define ARGS_8 a1, a2, a3, a4, a5, a6, a7, a8
#define PARAMS_9 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7, void *a8, void *a9
#define ARGS_9 a1, a2, a3, a4, a5, a6, a7, a8, a9
#define PARAMS_10 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7, void *a8, void *a9, void *a10
#define ARGS_10 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
#define PARAMS_13 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7, void *a8, void *a9, void *a10, void *a11, void *a12, void *a13
#define ARGS_13 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13

/* FDEF(suffix, name, N, BEFORE, AFTER): void mpi_<name><suffix>(N
 * pointers), which runs BEFORE, the profiling entry point, then AFTER. */
#define FDEF(sfx, name, n, before, after)                                                     \
  void mpi_##name##sfx(PARAMS_##n);                                                           \
  void mpi_##name##sfx(PARAMS_##n) {                                                          \
    static void *pmpi;                                                                        \
    void (*f)(PARAMS_##n);                                                                    \
    void *p_ = lookup(&pmpi, "pmpi_" #name #sfx);                                             \
    memcpy(&f, &p_, sizeof f); /* dlsym's object pointer to a function (POSIX) */             \
    before;                                                                                   \
    f(ARGS_##n);                                                                              \
    after;                                                                                    \
  }
/* A measured call. */
#define FWRAP(sfx, name, n) FDEF(sfx, name, n, bal_pop_mpi_enter(), bal_pop_mpi_exit())
/* Both Fortran entry points of a row of calls.h. */
#define BOTH(Name, name, n, params, args) FWRAP(_, name, n) FWRAP(_f08_, name, n)

/* A test or probe: measured, never lending. */
#define FPOLL(sfx, name, n) FDEF(sfx, name, n, bal_pop_mpi_poll_enter(), bal_pop_mpi_exit())
#define BOTH_POLL(Name, name, n, params, args) FPOLL(_, name, n) FPOLL(_f08_, name, n)

POP_MEASURED_CALLS(BOTH)
POP_POLLING_CALLS(BOTH_POLL)

/* Start and end (pmpi.h): as the C MPI_Init, MPI_Init_thread, MPI_Finalize. */
FDEF(_, init, 1, (void)0, pop_start())
FDEF(_f08_, init, 1, (void)0, pop_start())
FDEF(_, init_thread, 3, (void)0, pop_start())
FDEF(_f08_, init_thread, 3, (void)0, pop_start())
FDEF(_, finalize, 1, pop_finish(), (void)0)
FDEF(_f08_, finalize, 1, pop_finish(), (void)0)
