/* Pools that follow a node registry's mask (ballast/for.h, bal_pool_config).
 *
 * A process has at most one attachment (node.h), so the pools of a process
 * share one: a reference-counted bal__for_node. Its handle may be polled by
 * one thread at a time, so polls go through the `polling` flag: whoever
 * holds it polls and, when the mask changed, publishes the new mask under
 * `mask_lock` with a new `version`. Each pool compares that version with the
 * one it adopted and, when they differ, adopts the new mask: a new active
 * count, a new layout_version (workers rebind when they see it), a
 * broadcast to the parked workers when it grew, and when it shrank, a
 * wake-up of the caller if a newly parked worker left units behind. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "for/pool.h"

struct bal__for_node {
  bal_node_proc *proc;
  pid_t pid;             /* the process that attached (a forked child must not use it) */
  int refs;              /* pools using it; under g_lock */
  bool is_virtual;
  int64_t ncpus;
  atomic_flag polling;   /* held while a thread polls proc */
  bool error_logged;     /* under polling */
  pthread_mutex_t mask_lock;
  bal_node_mask mask;    /* the mask at `version`, under mask_lock */
  _Atomic uint64_t version;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bal__for_node *g_node;

/* Poll the handle (the caller holds `polling`) and publish a change. */
static void poll_node(bal__for_node *n) {
  bal_node_mask m;
  bool changed = false;
  int rc = bal_node_poll(n->proc, &m, &changed);
  if (rc != BAL_OK && !n->error_logged) {
    n->error_logged = true;
    if (rc == BAL_ENOTFOUND)
      bal__log(BAL_LOG_WARN, "for", "this process was removed from its node registry: "
                                    "pools run on worker 0 alone");
    else if (rc == BAL_ESYS)
      bal__log(BAL_LOG_WARN, "for", "the node registry's mask could not be applied with "
                                    "sched_setaffinity; workers follow its size all the same");
    else
      bal__log(BAL_LOG_WARN, "for", "polling the node registry failed (%s): pools keep their "
                                    "last mask", bal_strerror(rc));
  }
  if (!changed) return;
  pthread_mutex_lock(&n->mask_lock);
  n->mask = m;
  atomic_fetch_add_explicit(&n->version, 1, memory_order_release);
  pthread_mutex_unlock(&n->mask_lock);
}

int bal__for_node_acquire(const bal_node_attach_config *cfg, bal__for_node **out, int64_t *ncpus,
                          bool *is_virtual) {
  *out = NULL;
  bal_node_attach_config def;
  if (!cfg) bal_node_attach_config_init(&def);
  pthread_mutex_lock(&g_lock);
  if (g_node && g_node->pid != getpid()) {
    /* Inherited from the parent across fork(): its handle is the parent's
     * (node.h), so forget it without detaching. */
    g_node = NULL;
  }
  bal__for_node *n = g_node;
  if (!n) {
    n = calloc(1, sizeof *n);
    if (!n) {
      pthread_mutex_unlock(&g_lock);
      if (!cfg) bal__log(BAL_LOG_WARN, "for", "BALLAST_NODE=1: out of memory, pool not attached");
      return cfg ? BAL_ENOMEM : BAL_OK;
    }
    int rc = bal_node_attach(cfg ? cfg : &def, &n->proc);
    if (rc != BAL_OK) {
      free(n);
      pthread_mutex_unlock(&g_lock);
      if (cfg) return rc;
      bal__log(BAL_LOG_WARN, "for",
               "BALLAST_NODE=1 but the pool could not attach to the node registry '%s' (%s): it "
               "runs unattached",
               getenv(BAL_NODE_REGISTRY_ENV) ? getenv(BAL_NODE_REGISTRY_ENV) : "(unset)",
               bal_strerror(rc));
      return BAL_OK;
    }
    n->pid = getpid();
    bal_node_proc_cpus(n->proc, &n->ncpus, &n->is_virtual);
    atomic_flag_clear(&n->polling);
    pthread_mutex_init(&n->mask_lock, NULL);
    atomic_init(&n->version, 0);
    poll_node(n); /* the first poll reports the mask: version 1 */
    g_node = n;
  }
  n->refs++;
  pthread_mutex_unlock(&g_lock);
  *out = n;
  *ncpus = n->ncpus;
  *is_virtual = n->is_virtual;
  return BAL_OK;
}

bal_node_proc *bal__for_node_proc(const bal__for_node *n) { return n->proc; }

void bal__for_node_release(bal__for_node *n) {
  if (!n) return;
  pthread_mutex_lock(&g_lock);
  if (--n->refs == 0 && g_node == n) {
    g_node = NULL;
    bal_node_detach(n->proc);
    pthread_mutex_destroy(&n->mask_lock);
    free(n);
  }
  pthread_mutex_unlock(&g_lock);
}

/* Adopt the node's current mask if this pool has not yet. */
static void adopt(bal_pool *pool) {
  bal__for_node *n = pool->node;
  if (atomic_load_explicit(&n->version, memory_order_acquire) ==
      atomic_load_explicit(&pool->adopted, memory_order_relaxed))
    return;
  if (atomic_flag_test_and_set_explicit(&pool->adopting, memory_order_acquire)) return;
  bal_node_mask m;
  pthread_mutex_lock(&n->mask_lock);
  m = n->mask;
  uint64_t v = atomic_load_explicit(&n->version, memory_order_relaxed);
  pthread_mutex_unlock(&n->mask_lock);
  int64_t count = bal_node_mask_count(&m);
  int a = count < 1 ? 1 : count > pool->size ? pool->size : (int)count;
  pthread_mutex_lock(&pool->mask_lock);
  pool->mask = m;
  int old = atomic_load_explicit(&pool->active, memory_order_relaxed);
  atomic_store(&pool->active, a);
  atomic_fetch_add_explicit(&pool->layout_version, 1, memory_order_release);
  atomic_store_explicit(&pool->adopted, v, memory_order_relaxed);
  pthread_mutex_unlock(&pool->mask_lock);
  atomic_flag_clear_explicit(&pool->adopting, memory_order_release);
  if (a < old) {
    /* Workers [a, old) are parked now. One still inside the call leaves
     * and orphans what is left of its range itself (loop.c). One already
     * out of it (parked before, its range orphaned then, but counted
     * active again by a grow it has not acted on yet) may hold a last
     * grain shorter than the grain, which thieves leave to an active
     * owner (range.h): a caller that looked during the grow sleeps past
     * it, and nobody else would wake it. `active` is stored above, before
     * the orphan count, so the caller woken here steals that range whole
     * (steal_round). */
    for (int w = a; w < old; w++)
      if (bal__for_range_size(&pool->ranges[w]) != 0) {
        bal__for_orphaned(pool);
        break;
      }
  } else if (a > old) {
    /* Parked workers check `active` under wake_lock: no lost wake-up. */
    pthread_mutex_lock(&pool->wake_lock);
    pthread_cond_broadcast(&pool->park_cond);
    pthread_mutex_unlock(&pool->wake_lock);
    /* Workers [old, a) that left the last call while still active did not
     * park: they wait for the next epoch (worker_main), and the running
     * call, dispatched while they were inactive, did not move it. Move it
     * now, so that they join the running call (or, with no call open,
     * wait again). Without this a grow inside a call reached only workers
     * parked inside a call: under lending (docs/node.md), rank 0's worker
     * 1 missed most of the CPUs lent to it. */
    bal__for_pool_wake(pool);
  }
}

void bal__for_follow(bal_pool *pool, bool entry, int64_t now_ns) {
  bal__for_node *n = pool->node;
  atomic_store_explicit(&pool->next_poll_ns, now_ns + BAL__FOR_POLL_INTERVAL_NS,
                        memory_order_relaxed);
  if (entry) {
    while (atomic_flag_test_and_set_explicit(&n->polling, memory_order_acquire))
      bal__for_cpu_relax();
  } else if (atomic_flag_test_and_set_explicit(&n->polling, memory_order_acquire)) {
    adopt(pool); /* another thread polls: take what it published so far */
    return;
  }
  poll_node(n);
  atomic_flag_clear_explicit(&n->polling, memory_order_release);
  adopt(pool);
}

void bal__for_rebind(bal_pool *pool, bal__for_worker *w) {
  pthread_mutex_lock(&pool->mask_lock);
  bal_node_mask m = pool->mask;
  uint64_t v = atomic_load_explicit(&pool->layout_version, memory_order_relaxed);
  pthread_mutex_unlock(&pool->mask_lock);
  w->bound_version = v;
  int64_t count = bal_node_mask_count(&m);
  if (count == 0 || w->id >= count) return; /* removed, or parked: nothing to bind to */
  int rc = bal_node_bind_thread(pool->node->proc, &m, w->id == 0 ? -1 : w->id);
  if (rc != BAL_OK) bal__log(BAL_LOG_WARN, "for", "could not bind worker %d within the node mask: %s",
                             w->id, bal_strerror(rc));
}
