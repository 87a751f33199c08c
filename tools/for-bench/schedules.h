/* The baseline schedules, each compiled only when its runtime is available
 * (BENCH_HAVE_OPENMP, BENCH_HAVE_TBB). */
#ifndef BALLAST_BENCH_FOR_SCHEDULES_H
#define BALLAST_BENCH_FOR_SCHEDULES_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { OMP_STATIC, OMP_DYNAMIC_1, OMP_DYNAMIC_CHUNK, OMP_GUIDED } omp_schedule;

/* `#pragma omp parallel for schedule(...)` over the job's items with
 * job->threads threads (dynamic,chunk uses job->chunk). */
void omp_run(omp_schedule sched, const bench_job *job);

/* TBB: create a task_arena of `threads` slots (and allow that many threads
 * globally); returns 0, or -1 with a message on stderr. */
int tbb_setup(int threads);
/* tbb::parallel_for over blocked_range [0, n) with auto_partitioner,
 * executed inside the arena. */
void tbb_run(const bench_job *job);
/* Release the arena. */
void tbb_teardown(void);

#ifdef __cplusplus
}
#endif

#endif
