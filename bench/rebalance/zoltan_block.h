/* Zoltan's BLOCK partitioner as a baseline for bal_rebalance_cuts: all
 * items on the calling rank, cut into `parts` parts by weight. */
#ifndef BENCH_REBALANCE_ZOLTAN_BLOCK_H
#define BENCH_REBALANCE_ZOLTAN_BLOCK_H

#include <mpi.h>
#include <stdint.h>

typedef struct zblock zblock;

/* Set up Zoltan (LB_METHOD=BLOCK, one weight per object, `parts` global
 * parts) for the n items with costs w on a communicator of one rank.
 * Returns NULL on failure (Zoltan's message goes to stderr). */
zblock *zblock_create(MPI_Comm comm, int64_t n, const double *w, int parts);

/* Partition; part[j] receives item j's part. *seconds receives the time of
 * Zoltan_LB_Partition alone (weights handed over through its callbacks
 * included). Returns 0, or -1 on a Zoltan error. */
int zblock_run(zblock *z, int *part, double *seconds);

void zblock_destroy(zblock *z);

#endif
