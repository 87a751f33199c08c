/* Zoltan's recursive coordinate bisection (LB_METHOD=RCB) as the baseline
 * of bench_partition: all items on the calling rank, cut into `parts`
 * parts by weight. */
#ifndef BENCH_PARTITION_ZOLTAN_RCB_H
#define BENCH_PARTITION_ZOLTAN_RCB_H

#include <mpi.h>
#include <stdint.h>

typedef struct zrcb zrcb;

/* Set up Zoltan (RCB, one weight per object, `parts` global parts,
 * IMBALANCE_TOL `tol`) for the n items with `dims` coordinates each
 * (coord[j * dims + d]) and weights w, on a communicator of one rank. The
 * arrays are read again by zrcb_run(): keep them. Returns NULL on failure
 * (Zoltan's message goes to stderr). */
zrcb *zrcb_create(MPI_Comm comm, int64_t n, int dims, const double *coord, const double *w,
                  int parts, double tol);

/* Partition; part[j] receives item j's part. *seconds receives the time of
 * Zoltan_LB_Partition alone (coordinates and weights handed over through
 * its callbacks included; Zoltan_Create and the settings excluded).
 * Returns 0, or -1 on a Zoltan error. */
int zrcb_run(zrcb *z, int *part, double *seconds);

void zrcb_destroy(zrcb *z);

#endif
