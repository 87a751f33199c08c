/* The poll's fast path, safe against a registry truncated under it.
 *
 * A shrink of the segment turns every access past its new end into
 * SIGBUS. The locked calls check the size with fstat first (shm.c), but
 * bal_node_poll() runs at every malleability point, once per bal_for()
 * call in attached pools, and a system call there cost ~0.75 µs per poll
 * against ~8 ns (docs/BENCHMARKS.md, "node"). So its one load is guarded
 * instead: a SIGBUS handler, installed when a process handle attaches,
 * jumps out of a fault that happens inside the guarded load of this
 * thread, and hands every other SIGBUS to the handler that was there
 * before (node.h documents this). */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "node_internal.h"

static _Thread_local sigjmp_buf *volatile guard; /* set only inside bal__node_load_gen */
static struct sigaction previous;                /* SIGBUS's handler before ours */
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_sigbus(int sig, siginfo_t *info, void *uctx) {
  sigjmp_buf *g = guard;
  if (g) {
    guard = NULL;
    siglongjmp(*g, 1); /* SA_NODEFER: SIGBUS is not left blocked */
  }
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(sig, info, uctx);
    return;
  }
  if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(sig);
    return;
  }
  /* The default action (an ignored SIGBUS from a fault is fatal too):
   * restore it and raise, so the process ends as it would without us. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGBUS, &dfl, NULL);
  raise(SIGBUS);
}

/* Each attach re-arms the guard if another handler replaced it since
 * (an application, or a test framework, installing its own SIGBUS handler
 * after ours): that handler becomes the one we chain to. */
int bal__node_guard_init(void) {
  pthread_mutex_lock(&install_lock);
  struct sigaction cur;
  int rc = BAL_ESYS;
  if (sigaction(SIGBUS, NULL, &cur) == 0) {
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus) {
      rc = BAL_OK;
    } else {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO | SA_NODEFER | (cur.sa_flags & SA_ONSTACK); /* as the chained one */
      sigemptyset(&sa.sa_mask);
      previous = cur; /* before ours can run */
      rc = sigaction(SIGBUS, &sa, NULL) == 0 ? BAL_OK : BAL_ESYS;
    }
  }
  pthread_mutex_unlock(&install_lock);
  return rc;
}

#if BAL__TSAN
/* Under TSan the guard cannot work: a handler's siglongjmp does not bring
 * the faulting thread back (measured: the load faults again and the
 * process dies), so the TSan build reads the counters with pread, which
 * returns short instead of faulting: four system calls or more per poll
 * (bal__node_read_u64 reads each counter until two reads agree), some
 * hundred times slower, and TSan builds are for finding races, not for
 * speed. */
int bal__node_load_gen(const bal__node_map *map, int32_t slot, uint64_t *out, uint64_t *lend) {
  int rc = bal__node_read_u64(map, &map->shm->slot[slot].gen, out);
  if (rc == BAL_OK && lend) rc = bal__node_read_u64(map, &map->shm->lend_gen, lend);
  return rc;
}
#else
int bal__node_load_gen(const bal__node_map *map, int32_t slot, uint64_t *out, uint64_t *lend) {
  const _Atomic uint64_t *gen = &map->shm->slot[slot].gen;
  uint64_t l = 0;
  sigjmp_buf jb;
  if (sigsetjmp(jb, 0)) return BAL_EFORMAT; /* the load faulted: the segment shrank */
  guard = &jb;
  atomic_signal_fence(memory_order_seq_cst); /* the guard is set before the loads ... */
  uint64_t v = atomic_load_explicit(gen, memory_order_acquire);
  if (lend) l = atomic_load_explicit(&map->shm->lend_gen, memory_order_acquire);
  atomic_signal_fence(memory_order_seq_cst); /* ... and cleared after them */
  guard = NULL;
  *out = v;
  if (lend) *lend = l;
  return BAL_OK;
}
#endif
