/* Per-item kernels of the bal_for benchmark and the job every schedule runs.
 *
 * Every schedule (bal_for, the OpenMP schedules, TBB) executes the very same
 * per-item code, inlined from this header into its own loop, and adds its
 * result to the accumulator slot of the thread that ran it (slots are one
 * cache line each, so no false sharing, and the compiler cannot drop the
 * work). Written in the common subset of C11 and C++17: schedule_tbb.cpp
 * includes it too. */
#ifndef BALLAST_BENCH_FOR_KERNELS_H
#define BALLAST_BENCH_FOR_KERNELS_H

#include <stdint.h>
#include <time.h>

#include "core/clock.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KERNEL_TINY, KERNEL_SPIN, KERNEL_SLEEP } kernel_kind;

/* One thread's accumulator; allocated 64-byte aligned, one per cache line. */
typedef struct acc_slot {
  uint64_t sum;   /* keeps the computed values alive */
  int64_t items;  /* items run by this thread (checked against n after a run) */
  char pad[64 - 2 * sizeof(uint64_t)];
} acc_slot;

/* What a schedule runs: items [0, n) with the given kernel. */
typedef struct bench_job {
  kernel_kind kind;
  int64_t n;
  const uint64_t *spin_iters; /* KERNEL_SPIN: loop iterations per item */
  const int64_t *sleep_ns;    /* KERNEL_SLEEP: nanoseconds per item */
  acc_slot *acc;              /* threads slots */
  int threads;
  int64_t chunk; /* OpenMP dynamic,chunk */
} bench_job;

/* Tiny body (~1-2 ns): one multiply-xor step of a dependent chain, so it
 * can be neither vectorized nor folded. */
static inline uint64_t kernel_tiny(uint64_t x, int64_t i) {
  return (x ^ (uint64_t)i) * UINT64_C(0x9E3779B97F4A7C15);
}

/* Calibrated spin: a dependent integer recurrence of `iters` steps (a
 * multiplicative LCG has no closed form the compiler could substitute).
 * Out of line, and the only copy every schedule and the calibration run:
 * the rate of this four-instruction loop depends on where it lies (on the
 * project's AMD EPYC guests an inlined copy that crossed a 32-byte boundary
 * spun 5-10% slower than its aligned copies in other schedules and in the
 * calibration, docs/BENCHMARKS.md). The call costs ~1 ns against items of
 * hundreds of nanoseconds and more. */
uint64_t kernel_spin(uint64_t x, uint64_t iters);

/* The last part of a sleep item that is spun on the clock instead of slept:
 * a guest vCPU woken from idle overshoots a sleep by 50-100 us here, even
 * with 1 ns of timer slack (docs/BENCHMARKS.md, "Sleep items that last
 * what they ask"), which lengthened every schedule's items by 1-3% and
 * put the bound in requested time out of reach of all of them. */
#define KERNEL_SLEEP_SPIN_NS INT64_C(150000)

/* An item of ns nanoseconds: sleep until KERNEL_SLEEP_SPIN_NS before its
 * end (absolute, CLOCK_MONOTONIC: bal__sleep_until_ns, EINTR restarts),
 * then read the clock until the end, so that it lasts what it asks unless
 * the thread is preempted in that last stretch. */
static inline uint64_t kernel_sleep(uint64_t x, int64_t ns) {
  int64_t end = bal__now_ns() + ns;
  bal__sleep_until_ns(end - KERNEL_SLEEP_SPIN_NS);
  while (bal__now_ns() < end) {
  }
  return x + 1;
}

/* Run items [lo, hi) of the job and credit them to `slot`: the body of
 * bal_for and TBB (the OpenMP loops inline the kernels item by item). */
static inline void bench_run_range(const bench_job *job, int64_t lo, int64_t hi, acc_slot *slot) {
  uint64_t x = slot->sum;
  switch (job->kind) {
  case KERNEL_TINY:
    for (int64_t i = lo; i < hi; i++) x = kernel_tiny(x, i);
    break;
  case KERNEL_SPIN:
    for (int64_t i = lo; i < hi; i++) x = kernel_spin(x, job->spin_iters[i]);
    break;
  case KERNEL_SLEEP:
    for (int64_t i = lo; i < hi; i++) x = kernel_sleep(x, job->sleep_ns[i]);
    break;
  }
  slot->sum = x;
  slot->items += hi - lo;
}

/* Calibration (kernels.c). Spin iterations per nanosecond: the best rate of
 * 41 short timed runs (the best one is the least disturbed by other
 * tenants). */
double kernel_calibrate_spin(void);
/* The spin rate the pool's threads sustain together over bursts of 2 ms
 * (what items of a long run see), starting from `guess`, the short-burst
 * rate above: the best median of five groups of bursts. This is the rate
 * for-bench converts requested nanoseconds with. */
struct bal_pool;
double kernel_calibrate_spin_sustained(struct bal_pool *pool, double guess);
/* Nanoseconds per item of the tiny body, single thread, best of several. */
double kernel_calibrate_tiny(void);

/* Median by how much a sleep item of ns nanoseconds (kernel_sleep)
 * overshoots (single thread, 21 items): what no schedule can avoid. */
double kernel_sleep_overshoot_ns(int64_t ns);

#ifdef __cplusplus
}
#endif

#endif
