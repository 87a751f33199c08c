/* OpenMP baselines: the same per-item kernels as bal_for, inlined into
 * `#pragma omp for schedule(...)` loops. Compiled with OpenMP. */
#include <omp.h>

#include "schedules.h"

/* One parallel region of P threads; each accumulates locally and adds its
 * result to its own slot. ITEM updates x for item i. */
#define OMP_LOOP(SCHED, ITEM)                                                  \
  _Pragma("omp parallel num_threads(job->threads)") {                          \
    acc_slot *slot = &job->acc[omp_get_thread_num()];                          \
    uint64_t x = slot->sum;                                                    \
    int64_t done = 0;                                                          \
    _Pragma(SCHED) for (int64_t i = 0; i < n; i++) {                           \
      ITEM;                                                                    \
      done++;                                                                  \
    }                                                                          \
    slot->sum = x;                                                             \
    slot->items += done;                                                       \
  }

#define OMP_SCHEDULES(ITEM)                                                    \
  switch (sched) {                                                             \
  case OMP_STATIC: OMP_LOOP("omp for schedule(static) nowait", ITEM) break;    \
  case OMP_DYNAMIC_1: OMP_LOOP("omp for schedule(dynamic, 1) nowait", ITEM) break; \
  case OMP_DYNAMIC_CHUNK:                                                      \
    OMP_LOOP("omp for schedule(dynamic, chunk) nowait", ITEM) break;           \
  case OMP_GUIDED: OMP_LOOP("omp for schedule(guided) nowait", ITEM) break;    \
  }

void omp_run(omp_schedule sched, const bench_job *job) {
  const int64_t n = job->n, chunk = job->chunk;
  const uint64_t *iters = job->spin_iters;
  const int64_t *ns = job->sleep_ns;
  switch (job->kind) {
  case KERNEL_TINY: OMP_SCHEDULES(x = kernel_tiny(x, i)) break;
  case KERNEL_SPIN: OMP_SCHEDULES(x = kernel_spin(x, iters[i])) break;
  case KERNEL_SLEEP: OMP_SCHEDULES(x = kernel_sleep(x, ns[i])) break;
  }
}
