/* Zoltan's geometric partitioners as baselines of bench_partition:
 * recursive coordinate bisection (LB_METHOD=RCB) and its Hilbert
 * space-filling curve (LB_METHOD=HSFC), all items on the calling rank, cut
 * into `parts` parts by weight. */
#ifndef BENCH_PARTITION_ZOLTAN_GEOM_H
#define BENCH_PARTITION_ZOLTAN_GEOM_H

#include <mpi.h>
#include <stdint.h>

typedef struct zgeom zgeom;

/* Set up Zoltan (LB_METHOD `method`: "RCB" or "HSFC"; one weight per
 * object, `parts` global parts, IMBALANCE_TOL `tol`) for the n items with
 * `dims` coordinates each (coord[j * dims + d]) and weights w, on a
 * communicator of one rank. The arrays are read again by zgeom_run(): keep
 * them. Returns NULL on failure (Zoltan's message goes to stderr). */
zgeom *zgeom_create(MPI_Comm comm, const char *method, int64_t n, int dims, const double *coord,
                    const double *w, int parts, double tol);

/* Partition; part[j] receives item j's part. *seconds receives the time of
 * Zoltan_LB_Partition alone (coordinates and weights handed over through
 * its callbacks included; Zoltan_Create and the settings excluded).
 * Returns 0, or -1 on a Zoltan error. */
int zgeom_run(zgeom *z, int *part, double *seconds);

void zgeom_destroy(zgeom *z);

#endif
