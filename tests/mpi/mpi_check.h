/* Shared by the MPI tests: a CHECK that names the rank and aborts the whole
 * job (a failed check on one rank must not leave the others waiting), and
 * the library's own SplitMix64 for reproducible per-rank data. */
#ifndef BALLAST_TESTS_MPI_CHECK_H
#define BALLAST_TESTS_MPI_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "core/rng.h"

static inline void mpi_check_failed(const char *file, int line, const char *what) {
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", r, file, line, what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) mpi_check_failed(__FILE__, __LINE__, #cond);         \
  } while (0)

/* One SplitMix64 output for input x: a stateless hash of x. */
static inline uint64_t mix(uint64_t x) { return bal__splitmix64(&x); }

#endif
