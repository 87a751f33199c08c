/* Private: the state of the `pop` module (POP efficiency metrics per code
 * region, ballast/pop.h), shared by its files:
 *   account.c  bal_pop_init(), bal_pop_mpi_enter/exit(): the per-call hot
 *              path that adds MPI time
 *   region.c   named regions: register, start, stop
 *   figures.c  bal_pop_figures_compute(): the formulas, once
 *   report.c   bal_pop_report_create() and its accessors: the collective
 *              gather of every rank's times
 *   threads.c  bal_pop_pool_load_balance(): a for pool's workers
 *   lend.c     the seam with lending CPUs at blocking calls (BALLAST_LEND):
 *              bal__pop_blocking_enter/exit, called by account.c
 *   pmpi/      libballast_pop.so, not part of libballast: the MPI profiling
 *              wrappers that call bal_pop_mpi_enter/exit around blocking
 *              calls (bal_pop_mpi_poll_enter/exit around tests and probes,
 *              which never lend), bal_pop_init() after MPI_Init and write
 *              the report at MPI_Finalize (pmpi/README in its CMakeLists.txt)
 *
 * The life of one MPI call. The wrapper (pmpi/wrap.c) calls
 * bal_pop_mpi_enter(): on the measured thread at depth 0 it reads the clock
 * (the TSC where it is invariant, account.c) and calls
 * bal__pop_blocking_enter() (lend.c); bal_pop_mpi_poll_enter(), for a test
 * or probe, reads the clock only. The PMPI_ call runs.
 * bal_pop_mpi_exit() reclaims if the call lent, adds the ticks since to bal__pop.mpi_ticks, one
 * counter for the whole process, and counts the call. A region never
 * sees calls: bal_pop_region_start() records (now, mpi_ticks, calls) and
 * bal_pop_region_stop() adds the differences to the region's totals, so a
 * call costs the same however many regions run, and nested regions add up
 * by construction. The report (report.c) reads each region's totals (a
 * running region up to now) and gathers them with PMPI_Allgather. */
#ifndef BALLAST_POP_INTERNAL_H
#define BALLAST_POP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/pop.h>

typedef struct bal__pop_region {
  char name[BAL_POP_MAX_NAME + 1];
  bool running;
  int64_t start_ns, start_mpi_ticks, start_calls; /* at the running start */
  int64_t elapsed_ns, mpi_ticks, calls;          /* totals of finished runs */
} bal__pop_region;

typedef struct bal__pop_state {
  bool initialized;
  int64_t mpi_ticks; /* MPI time of the measured thread since bal_pop_init(),
                      * in clock ticks (account.c) */
  int64_t calls;  /* outermost MPI calls measured */
  int nregions;
  bal__pop_region region[BAL_POP_MAX_REGIONS];
} bal__pop_state;

extern bal__pop_state bal__pop;

/* The region's totals as of now_ns (a running region counted up to now),
 * MPI time in ticks. */
void bal__pop_region_now(const bal__pop_region *r, int64_t now_ns, int64_t *elapsed_ns,
                         int64_t *mpi_ticks, int64_t *calls);

/* Nanoseconds per tick of account.c's clock: the ratio of the two clocks
 * since bal_pop_init() (now_ns: the nanosecond clock now). 1 where ticks
 * are nanoseconds. */
double bal__pop_ns_per_tick(int64_t now_ns);

/* ---- lend.c: the seam with lending (BALLAST_LEND) ---- */
/* bal__pop_lend_init(), bal__pop_blocking_enter() and _exit(): lend.h.
 * Called on every outermost blocking call: a few nanoseconds when nothing
 * is lent. */
#include "pop/lend.h"

#endif
