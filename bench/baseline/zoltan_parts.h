/* What the Zoltan baselines of the benchmarks share (bench/rebalance's
 * BLOCK, bench/partition's RCB and HSFC): every object on the calling rank, one
 * weight per object, `parts` global parts, and one list of every object's
 * part back, timed around Zoltan_LB_Partition alone. */
#ifndef BENCH_BASELINE_ZOLTAN_PARTS_H
#define BENCH_BASELINE_ZOLTAN_PARTS_H

#include <mpi.h>
#include <stdint.h>

#include <zoltan.h>

/* The objects: n of them, global IDs 0 .. n-1, weights w (handed to Zoltan
 * as floats). Keep it alive as long as the Zoltan_Struct. */
typedef struct zparts_items {
  int64_t n;
  const double *w;
} zparts_items;

/* Zoltan_Initialize (once per process), Zoltan_Create on comm, and the
 * settings above with LB_METHOD `method`; the object callbacks read
 * `items`. Returns NULL on failure (Zoltan's message goes to stderr). */
struct Zoltan_Struct *zparts_create(MPI_Comm comm, const char *method, int parts,
                                    zparts_items *items);

/* Partition; part[j] receives object j's part. *seconds receives the time
 * of Zoltan_LB_Partition alone (the callbacks' hand-over included).
 * Returns 0, or -1 on a Zoltan error or an incomplete list. */
int zparts_run(struct Zoltan_Struct *zz, int64_t n, int *part, double *seconds);

#endif
