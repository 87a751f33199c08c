/* The hot path: MPI time of the measured thread (pop_internal.h). */
#include <stddef.h>
#include <string.h>

#include <ballast/error.h>

#include "core/clock.h"
#include "pop_internal.h"

bal__pop_state bal__pop;

/* Per thread: whether it is the measured one, and how deep in MPI it is
 * (an MPI call made from inside another, e.g. by a library's callback, is
 * not counted twice). */
static _Thread_local bool measured;
static _Thread_local int depth;
static _Thread_local int64_t t_enter;

int bal_pop_init(void) {
  if (bal__pop.initialized) return BAL_OK; /* the program's and the interposer's */
  memset(&bal__pop, 0, sizeof bal__pop);
  measured = true;
  depth = 0;
  bal__pop_region *g = &bal__pop.region[BAL_POP_GLOBAL];
  strcpy(g->name, "global");
  bal__pop.nregions = 1;
  int rc = bal__pop_lend_init();
  bal__pop.initialized = true;
  g->running = true;
  g->start_ns = bal__now_ns();
  return rc;
}

void bal_pop_mpi_enter(void) {
  if (!measured || depth++ > 0) return;
  t_enter = bal__now_ns();
  bal__pop_blocking_enter();
}

void bal_pop_mpi_exit(void) {
  if (!measured || depth == 0 || --depth > 0) return;
  bal__pop_blocking_exit();
  bal__pop.mpi_ns += bal__now_ns() - t_enter;
  bal__pop.calls++;
}
