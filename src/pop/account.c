/* The hot path: MPI time of the measured thread (pop_internal.h).
 *
 * Cost. Each measured call reads a clock twice, and on this project's test
 * machine (a VM) clock_gettime(CLOCK_MONOTONIC) costs 58-73 ns and the TSC
 * alone 41 ns (measured under load, docs/BENCHMARKS.md): the clock is the
 * whole cost of interception. So where the TSC is invariant (x86 with the
 * invariant-TSC cpuid bit, the clock source Linux itself uses then), the
 * calls read it directly and MPI time is kept in ticks, converted to
 * nanoseconds only by the report, with the ratio of the two clocks over
 * the whole run since bal_pop_init() (exact to the nanosecond clock's
 * resolution over that span). Elsewhere ticks are nanoseconds. */
#include <stddef.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include <ballast/error.h>

#include "core/clock.h"
#include "pop_internal.h"

bal__pop_state bal__pop;

static bool use_tsc;
static int64_t tick0, ns0; /* both clocks at bal_pop_init() */

static inline int64_t ticks(void) {
#ifdef HAVE_TSC
  if (use_tsc) return (int64_t)__rdtsc();
#endif
  return bal__now_ns();
}

static bool tsc_invariant(void) {
#ifdef HAVE_TSC
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return false;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return false;
  return (d >> 8) & 1u; /* EDX bit 8: invariant TSC */
#else
  return false;
#endif
}

double bal__pop_ns_per_tick(int64_t now_ns) {
  if (!use_tsc) return 1.0;
  int64_t dt = ticks() - tick0, dn = now_ns - ns0;
  return dt > 0 && dn > 0 ? (double)dn / (double)dt : 1.0;
}

/* Per thread, in one initial-exec block (one TLS access without a call to
 * __tls_get_addr; libballast is loaded at start-up, never dlopen'ed late,
 * by the programs that measure): whether it is the measured thread, how
 * deep in MPI it is (a call made from inside another, e.g. by a library's
 * callback, is not counted twice), and when the outermost call began. */
typedef struct thread_state {
  bool measured;
  bool lending; /* the outermost call lends (blocking, not a poll) */
  int depth;
  int64_t t_enter;
} thread_state;
static _Thread_local thread_state me __attribute__((tls_model("initial-exec")));

int bal_pop_init(void) {
  if (bal__pop.initialized) return BAL_OK; /* the program's and the interposer's */
  memset(&bal__pop, 0, sizeof bal__pop);
  me.measured = true;
  me.depth = 0;
  bal__pop_region *g = &bal__pop.region[BAL_POP_GLOBAL];
  strcpy(g->name, "global");
  bal__pop.nregions = 1;
  int rc = bal__pop_lend_init();
  use_tsc = tsc_invariant();
  ns0 = bal__now_ns();
  tick0 = ticks();
  bal__pop.initialized = true;
  g->running = true;
  g->start_ns = ns0;
  return rc;
}

void bal_pop_mpi_enter(void) {
  thread_state *t = &me;
  if (!t->measured || t->depth++ > 0) return;
  t->t_enter = ticks();
  t->lending = true;
  bal__pop_blocking_enter();
}

/* A test or probe returns at once: lending its CPUs for the call would
 * cost a lend and a reclaim per poll and send every borrower to the
 * registry lock at its next poll, for a CPU it could not use in time. */
void bal_pop_mpi_poll_enter(void) {
  thread_state *t = &me;
  if (!t->measured || t->depth++ > 0) return;
  t->t_enter = ticks();
  t->lending = false;
}

void bal_pop_mpi_exit(void) {
  thread_state *t = &me;
  if (!t->measured || t->depth == 0 || --t->depth > 0) return;
  if (t->lending) bal__pop_blocking_exit();
  bal__pop.mpi_ticks += ticks() - t->t_enter;
  bal__pop.calls++;
}
