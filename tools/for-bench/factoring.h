/* The factoring family of loop schedules, as baselines beside OpenMP's and
 * TBB's (not in the library): FAC2, weighted factoring (WF), adaptive
 * weighted factoring with weights updated every batch (AWF-B), and
 * adaptive factoring (AF), written from their papers (docs/REFERENCES.md)
 * and run on the bal_for pool's threads, each worker taking chunks from
 * one shared counter under a lock. */
#ifndef BALLAST_BENCH_FOR_FACTORING_H
#define BALLAST_BENCH_FOR_FACTORING_H

#include <ballast/for.h>

#include "kernels.h"

typedef enum { FAC_FAC2, FAC_WF, FAC_AWFB, FAC_AF } fac_kind;

/* Run the job's items once with schedule k on the pool's workers (every
 * item exactly once; each worker credits its items to its slot). Returns
 * 0, or -1 when out of memory (nothing run). */
int fac_run(fac_kind k, bal_pool *pool, const bench_job *job);

#endif
