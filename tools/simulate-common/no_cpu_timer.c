/* Preloaded into SimGrid's smpimain by the simulate launchers (simrun.c):
 * reads of the thread CPU clock return 0 instead of entering the kernel.
 *
 * SMPI times every stretch of code between two MPI calls with
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) (xbt_os_threadtimer_start/stop in
 * smpi_bench_begin/end), two reads per MPI call, and injects that time
 * into the simulation only with smpi/simulate-computation on. The
 * launchers turn it off (costs are modelled, not measured), but SMPI reads
 * the clock all the same, and that clock is a system call: the vDSO
 * serves only the wall clocks. On a virtual machine a system call is
 * dear; a profile of T3L on 1,792 simulated ranks put 40% of the
 * simulation's CPU time in these reads (docs/BENCHMARKS.md, "SMPI's CPU
 * timers"). SimGrid has no setting to skip them, so this library stands in
 * for clock_gettime: the thread CPU clock reads as 0 (every benched
 * stretch is 0 s long, which nothing uses), every other clock is passed
 * to the C library's. Nothing in the simulated programs reads the thread
 * CPU clock (smpicc maps their clock_gettime to SMPI's simulated one).
 *
 * Not part of libballast; built as a module only (tools/simulate-common). */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <time.h>

typedef int clock_gettime_fn(clockid_t, struct timespec *);

static clock_gettime_fn *next_clock_gettime;

/* Resolved at load, before smpimain starts its simulated ranks (a lazy
 * lookup would race when SimGrid runs contexts in parallel threads). */
__attribute__((constructor)) static void find_next(void) {
  /* POSIX's way to store dlsym's object pointer in a function pointer. */
  *(void **)&next_clock_gettime = dlsym(RTLD_NEXT, "clock_gettime");
}

__attribute__((visibility("default"))) int clock_gettime(clockid_t id, struct timespec *tp) {
  if (id == CLOCK_THREAD_CPUTIME_ID) { /* tp: nonnull, as <time.h> declares it */
    tp->tv_sec = 0;
    tp->tv_nsec = 0;
    return 0;
  }
  if (!next_clock_gettime) {
    errno = ENOSYS;
    return -1;
  }
  return next_clock_gettime(id, tp);
}
