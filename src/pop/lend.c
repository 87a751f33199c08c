/* Lending at blocking MPI calls (lend.h; docs/node.md, "Lending").
 *
 * The process lends through the attachment its `for` pools share
 * (src/for/follow.c): one attachment per process is all a registry allows,
 * and the pools must see the CPUs go and come back. Taking a reference
 * here attaches if no pool has yet (the registry from
 * BALLAST_NODE_REGISTRY), and keeps the attachment alive while lending is
 * on; it is released when the process exits.
 *
 * Nested and concurrent calls (MPI_THREAD_MULTIPLE) count: the first enter
 * lends, the last exit reclaims. The count and the call it triggers are
 * under one spin flag, so a lend and a reclaim never interleave. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/decimal.h"
#include "core/log.h"
#include "for/pool.h"
#include "pop/lend.h"

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_rc;
static bal__for_node *g_node; /* set once, before g_on */
static pid_t g_pid;           /* the process that took the reference */
static atomic_bool g_on;
static atomic_flag g_busy = ATOMIC_FLAG_INIT;
static int64_t g_depth; /* under g_busy */

/* A child forked after init is another process: the attachment is its
 * parent's (node.h), so it lends nothing. */
static void child_off(void) { atomic_store(&g_on, false); }

static void release_at_exit(void) {
  atomic_store(&g_on, false);
  if (getpid() == g_pid) bal__for_node_release(g_node); /* not a forked child's to release */
}

static void init_once(void) {
  const char *env = getenv("BALLAST_LEND");
  int64_t v = 0;
  if (env && !bal__decimal(env, 0, 1, &v)) {
    bal__log(BAL_LOG_ERROR, "pop", "BALLAST_LEND='%s': expected 1 (lend CPUs at blocking MPI "
                                   "calls), 0 or unset (do not lend)", env);
    g_init_rc = BAL_EINVAL;
    return;
  }
  if (v == 0) return;
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  int64_t ncpus;
  bool is_virtual;
  int rc = bal__for_node_acquire(&cfg, &g_node, &ncpus, &is_virtual);
  if (rc != BAL_OK) {
    const char *reg = getenv(BAL_NODE_REGISTRY_ENV);
    bal__log(BAL_LOG_ERROR, "pop", "BALLAST_LEND=1 but this process could not attach to the node "
                                   "registry '%s' (%s): it does not lend",
             reg ? reg : "(BALLAST_NODE_REGISTRY unset)", bal_strerror(rc));
    g_init_rc = rc;
    return;
  }
  g_pid = getpid();
  atexit(release_at_exit);
  pthread_atfork(NULL, NULL, child_off);
  atomic_store(&g_on, true);
}

int bal__pop_lend_init(void) {
  pthread_once(&g_once, init_once);
  return g_init_rc;
}

static void lock(void) {
  while (atomic_flag_test_and_set_explicit(&g_busy, memory_order_acquire)) {
  }
}

static void unlock(void) { atomic_flag_clear_explicit(&g_busy, memory_order_release); }

void bal__pop_blocking_enter(void) {
  pthread_once(&g_once, init_once);
  if (!atomic_load_explicit(&g_on, memory_order_relaxed)) return;
  lock();
  if (g_depth++ == 0) bal_node_lend(bal__for_node_proc(g_node)); /* an error: nothing lent */
  unlock();
}

void bal__pop_blocking_exit(void) {
  if (!atomic_load_explicit(&g_on, memory_order_relaxed)) return;
  lock();
  if (g_depth > 0 && --g_depth == 0) bal_node_reclaim(bal__for_node_proc(g_node));
  unlock();
}
