/* Measuring the inputs of the grain model ([Siegell 1997] §4.2.4): t_fixed by
 * shifting empty messages through the ranks, t_incr by shifting full ones
 * and subtracting. Each phase is one MPI_Sendrecv to the right neighbour
 * (the communication of one pipeline phase), timed between barriers; the
 * smallest of the repetitions is kept (noise only ever adds time), then
 * the largest over ranks, so every rank computes the same grain. */
#include <limits.h>
#include <stdlib.h>

#include <ballast/rebalance.h>

#include "core/clock.h"
#include "rebalance_internal.h"

static int shift_min(MPI_Comm comm, void *sbuf, void *rbuf, int bytes, int reps, double *out) {
  int rank, size;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return BAL_EMPI;
  int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  double best = 1e300;
  for (int i = 0; i < reps; i++) {
    if (MPI_Barrier(comm) != MPI_SUCCESS) return BAL_EMPI;
    int64_t t0 = bal__now_ns();
    if (MPI_Sendrecv(sbuf, bytes, MPI_BYTE, right, 0, rbuf, bytes, MPI_BYTE, left, 0, comm,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return BAL_EMPI;
    double d = (double)(bal__now_ns() - t0) * 1e-9;
    if (d < best) best = d;
  }
  if (MPI_Allreduce(&best, out, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS) return BAL_EMPI;
  return BAL_OK;
}

int bal_rebalance_measure_shift(MPI_Comm comm, size_t elem_bytes, int64_t elems, int reps,
                                double *t_fixed, double *t_incr) {
  if (comm == MPI_COMM_NULL || elem_bytes < 1 || elems < 1 || reps < 1 || !t_fixed || !t_incr ||
      (uint64_t)elems > (uint64_t)INT_MAX / elem_bytes)
    return BAL_EINVAL;
  size_t bytes = (size_t)elems * elem_bytes;
  char *s = calloc(bytes, 1), *r = malloc(bytes);
  /* Agree on the allocation first: a rank that returned alone would leave
   * the others in the barrier. */
  int ok = s && r, all = 0, rc = BAL_ENOMEM;
  double t0 = 0.0, t1 = 0.0;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) rc = BAL_EMPI;
  else if (all) {
    rc = shift_min(comm, s, r, 0, reps, &t0);
    if (rc == BAL_OK) rc = shift_min(comm, s, r, (int)bytes, reps, &t1);
  }
  free(s);
  free(r);
  if (rc != BAL_OK) return rc;
  *t_fixed = t0;
  *t_incr = t1 > t0 ? (t1 - t0) / (double)elems : 0.0;
  return BAL_OK;
}
