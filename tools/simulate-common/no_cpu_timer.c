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
 * dear: without these reads simulations took 2.9-4.6x less wall time
 * here (docs/BENCHMARKS.md, "SMPI's CPU timers"). SimGrid has no setting
 * to skip them, so this library stands in for clock_gettime: the thread
 * CPU clock reads as 0 (every benched stretch is 0 s long; the launchers'
 * runs use none of them, and smpi/display-timing would report 0 s of
 * computation), every other clock is passed to the C library's. Nothing
 * in the simulated programs reads the thread CPU clock (smpicc maps their
 * clock_gettime to SMPI's simulated one).
 *
 * Not part of libballast; built as a module only (tools/simulate-common). */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

typedef int clock_gettime_fn(clockid_t, struct timespec *);

static _Atomic(clock_gettime_fn *) next_clock_gettime;

/* The C library's clock_gettime. Looked up at the first call of another
 * clock, which may come from a constructor that runs before this
 * library's (a preloaded library's constructors run after those of the
 * libraries the program links); dlsym is thread-safe, and two threads
 * looking it up at once store the same pointer. */
static clock_gettime_fn *next(void) {
  clock_gettime_fn *f = atomic_load_explicit(&next_clock_gettime, memory_order_acquire);
  if (!f) {
    /* POSIX's way to store dlsym's object pointer in a function pointer. */
    *(void **)&f = dlsym(RTLD_NEXT, "clock_gettime");
    atomic_store_explicit(&next_clock_gettime, f, memory_order_release);
  }
  return f;
}

__attribute__((visibility("default"))) int clock_gettime(clockid_t id, struct timespec *tp) {
  if (id == CLOCK_THREAD_CPUTIME_ID) { /* tp: nonnull, as <time.h> declares it */
    tp->tv_sec = 0;
    tp->tv_nsec = 0;
    return 0;
  }
  clock_gettime_fn *f = next();
  if (!f) {
    errno = ENOSYS;
    return -1;
  }
  return f(id, tp);
}
