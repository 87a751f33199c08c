/* One rank's share of the pipelined SOR sweep: a band of consecutive grid
 * rows, swept column block by column block (strip mining), each block
 * started only when the rank above has sent its new values for those
 * columns (a DOACROSS loop: [Siegell 1997] §4.2.1 and its Figure 6). */
#ifndef SOR_PIPELINE_PIPELINE_H
#define SOR_PIPELINE_PIPELINE_H

#include <mpi.h>

#include "sor.h"

typedef struct sor_rank {
  MPI_Comm comm;
  int rank, size;
  int n;          /* interior rows of the global grid */
  int row0;       /* global row of the first local row (1-based) */
  int nrows;      /* local rows */
  double omega;
  double work_ns; /* emulated time per point update (0: real compute only) */
  double delay_s; /* emulated time added to every boundary shift */
  sor_grid g;     /* nrows + 2 rows: halo above (new values from the rank
                     above), the local rows, halo below (old values) */
} sor_rank;

/* Split `n` rows over the ranks of comm (sizes differ by at most one) and
 * set the initial values. Returns 0, or -1 when out of memory (local). */
int sor_rank_init(sor_rank *s, MPI_Comm comm, int n, int cols, double omega, double work_ns,
                  double delay_s);
void sor_rank_reset(sor_rank *s);
void sor_rank_free(sor_rank *s);

/* One pipelined sweep with blocks of `block` columns. Collective. Returns
 * MPI_SUCCESS or the failing MPI call's code. */
int sor_rank_sweep(sor_rank *s, int block);

/* The local rows swept once as a single block, emulated cost included, on
 * `scratch` (a copy of s->g, so the real state is untouched): the work the
 * grain model's t_seq counts. Usable with bal_rebalance_time_min(). */
typedef struct sor_probe {
  const sor_rank *s;
  sor_grid scratch;
} sor_probe;
void sor_probe_run(void *probe);

/* Gather the local rows into `full` (n + 2 rows) on rank 0. Collective. */
int sor_rank_gather(const sor_rank *s, sor_grid *full);

#endif
