/* The pipelined sweep (see pipeline.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep */
#endif
#include "pipeline.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"

enum { TAG_OLD = 1, TAG_BLOCK = 2 };

static void fill_initial(sor_rank *s) {
  for (int i = 0; i < s->nrows + 2; i++)
    for (int j = -1; j <= s->g.cols; j++)
      *sor_at(&s->g, i, j) = sor_initial(s->row0 - 1 + i, j, s->n, s->g.cols);
}

int sor_rank_init(sor_rank *s, MPI_Comm comm, int n, int cols, double omega, double work_ns,
                  double delay_s) {
  memset(s, 0, sizeof *s);
  s->comm = comm;
  MPI_Comm_rank(comm, &s->rank);
  MPI_Comm_size(comm, &s->size);
  s->n = n;
  int base = n / s->size, extra = n % s->size;
  s->nrows = base + (s->rank < extra);
  s->row0 = 1 + s->rank * base + (s->rank < extra ? s->rank : extra);
  s->omega = omega;
  s->work_ns = work_ns;
  s->delay_s = delay_s;
  if (sor_grid_alloc(&s->g, s->nrows + 2, cols) != 0) return -1;
  fill_initial(s);
  return 0;
}

void sor_rank_reset(sor_rank *s) { fill_initial(s); }

void sor_rank_free(sor_rank *s) { sor_grid_free(&s->g); }

/* Compute columns [c0, c1) of every local row, then wait out the emulated
 * cost of that many point updates. */
static void compute(const sor_rank *s, sor_grid *g, int c0, int c1) {
  int64_t t0 = s->work_ns > 0 ? now_ns() : 0;
  sor_block(g, s->omega, 1, s->nrows + 1, c0, c1);
  if (s->work_ns > 0)
    /* An absolute deadline, and a sleep, not a spin: the real update
     * counts towards the emulated cost, and ranks oversubscribed on few
     * cores do not compete for them. */
    sleep_until_ns(t0 + (int64_t)(s->work_ns * (double)(c1 - c0) * (double)s->nrows));
}

int sor_rank_sweep(sor_rank *s, int block) {
  int cols = s->g.cols, rc;
  int up = s->rank > 0 ? s->rank - 1 : MPI_PROC_NULL;
  int down = s->rank + 1 < s->size ? s->rank + 1 : MPI_PROC_NULL;
  /* The last local row needs the rank below's first row as it was before
   * this sweep: send ours up before touching it, then fetch theirs. */
  MPI_Request req;
  if ((rc = MPI_Isend(sor_at(&s->g, 1, 0), cols, MPI_DOUBLE, up, TAG_OLD, s->comm, &req)))
    return rc;
  if ((rc = MPI_Recv(sor_at(&s->g, s->nrows + 1, 0), cols, MPI_DOUBLE, down, TAG_OLD, s->comm,
                     MPI_STATUS_IGNORE)))
    return rc;
  if ((rc = MPI_Wait(&req, MPI_STATUS_IGNORE))) return rc;
  for (int c0 = 0; c0 < cols; c0 += block) {
    int c1 = cols - c0 > block ? c0 + block : cols;
    /* The DOACROSS dependence: the rank above's new last row, this block. */
    if ((rc = MPI_Recv(sor_at(&s->g, 0, c0), c1 - c0, MPI_DOUBLE, up, TAG_BLOCK, s->comm,
                       MPI_STATUS_IGNORE)))
      return rc;
    compute(s, &s->g, c0, c1);
    if (down != MPI_PROC_NULL) {
      if (s->delay_s > 0) sleep_until_ns(now_ns() + (int64_t)(s->delay_s * 1e9));
      if ((rc = MPI_Send(sor_at(&s->g, s->nrows, c0), c1 - c0, MPI_DOUBLE, down, TAG_BLOCK,
                         s->comm)))
        return rc;
    }
  }
  return MPI_SUCCESS;
}

void sor_probe_run(void *probe) {
  sor_probe *p = probe;
  compute(p->s, &p->scratch, 0, p->scratch.cols);
}

int sor_rank_gather(const sor_rank *s, sor_grid *full) {
  int *counts = NULL, *displs = NULL, rc;
  int row_len = s->g.cols + 2;
  if (s->rank == 0) {
    counts = malloc((size_t)s->size * sizeof *counts);
    displs = malloc((size_t)s->size * sizeof *displs);
    if (!counts || !displs) {
      free(counts);
      free(displs);
      return MPI_ERR_NO_MEM;
    }
    int base = s->n / s->size, extra = s->n % s->size;
    for (int r = 0, at = 1; r < s->size; r++) {
      int rows = base + (r < extra);
      counts[r] = rows * row_len;
      displs[r] = at * row_len;
      at += rows;
    }
  }
  rc = MPI_Gatherv(s->g.v + row_len, s->nrows * row_len, MPI_DOUBLE, full ? full->v : NULL,
                   counts, displs, MPI_DOUBLE, 0, s->comm);
  free(counts);
  free(displs);
  return rc;
}
