/* The pool: persistent threads, how they wait for a call, join it and leave.
 * The balancing itself is in loop.c. */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/decimal.h"
#include "core/log.h"
#include "for/pool.h"
#include "for/steer.h"

_Thread_local int bal__for_tls_worker_id = -1;

/* How long an idle worker polls for the next call before it sleeps. Long
 * enough to catch back-to-back loops without a futex wake-up, short enough
 * not to burn a shared core for long. */
#define IDLE_SPIN_NS 50000

static int online_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n; /* honours taskset and cgroup cpusets */
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* Pool size for nthreads == 0: BALLAST_NUM_THREADS, else the usable CPUs.
 * Strict, as the tools' flags are (for.h): set but empty, signed, padded
 * or with a leading zero is refused, not read as something else. */
static int default_size(int *out) {
  const char *env = getenv("BALLAST_NUM_THREADS");
  if (!env) {
    *out = online_cpus();
    return BAL_OK;
  }
  int64_t v;
  if (!bal__decimal(env, 1, BAL_POOL_MAX_THREADS, &v)) {
    bal__log(BAL_LOG_ERROR, "for",
             "BALLAST_NUM_THREADS='%s': expected a decimal integer in [1, %d] (no sign, "
             "spaces or leading zeros), or unset for the CPUs this process may use",
             env, BAL_POOL_MAX_THREADS);
    return BAL_EINVAL;
  }
  *out = (int)v;
  return BAL_OK;
}

/* Join the current call if it is still open. */
static bool join_call(bal_pool *pool) {
  uint64_t p = atomic_load_explicit(&pool->participants, memory_order_acquire);
  while (!(p & BAL__CALL_CLOSED)) {
    if (atomic_compare_exchange_weak_explicit(&pool->participants, &p, p + 1,
                                              memory_order_acquire, memory_order_acquire))
      return true;
  }
  return false;
}

/* Wait until the epoch moves past `seen`: poll briefly, then sleep. */
static uint64_t wait_for_epoch(bal_pool *pool, bal__for_worker *w, uint64_t seen) {
  uint64_t e;
  if (!pool->oversubscribed) {
    int64_t deadline = bal__now_ns() + IDLE_SPIN_NS;
    for (unsigned i = 1;; i++) {
      e = atomic_load_explicit(&pool->epoch, memory_order_acquire);
      if (e != seen) return e;
      bal__for_cpu_relax();
      if ((i & 63) == 0 && bal__now_ns() > deadline) break;
    }
  }
  pthread_mutex_lock(&pool->wake_lock);
  /* seq_cst on sleepers and epoch pairs with the dispatcher's
   * epoch-increment-then-read-sleepers: one of the two sees the other. */
  atomic_fetch_add(&pool->sleepers, 1);
  atomic_store_explicit(&w->asleep, true, memory_order_release);
  while ((e = atomic_load(&pool->epoch)) == seen)
    pthread_cond_wait(&pool->wake_cond, &pool->wake_lock);
  atomic_store_explicit(&w->asleep, false, memory_order_relaxed);
  atomic_fetch_sub(&pool->sleepers, 1);
  pthread_mutex_unlock(&pool->wake_lock);
  bal__for_steer_return(w);
  return e;
}

static bool parked(const bal_pool *pool, const bal__for_worker *w) {
  return w->id >= atomic_load_explicit(&pool->active, memory_order_acquire);
}

/* Attached pools: sleep (no spinning) while this worker is not active. */
static void park(bal_pool *pool, bal__for_worker *w) {
  pthread_mutex_lock(&pool->wake_lock);
  while (parked(pool, w) && !atomic_load(&pool->shutdown))
    pthread_cond_wait(&pool->park_cond, &pool->wake_lock);
  pthread_mutex_unlock(&pool->wake_lock);
}

static void *worker_main(void *argp) {
  bal__for_worker *w = argp;
  bal_pool *pool = w->pool;
  if (w->cpus) bal__for_bind_self(w->cpus, w->id);
  if (pool->steer) bal__for_steer_home_init(w);
  uint64_t seen = 0;
  /* The worker left the last call because it was parked: it goes through
   * park() next, even if a grow made it active again meanwhile. Waiting
   * for the next epoch instead would leave the running call without it,
   * and a last grain shorter than the grain left in its range is stolen
   * from parked owners only (steal_round, loop.c): the caller would wait
   * for it forever. */
  bool left_parked = false;
  for (;;) {
    if (pool->node && (left_parked || parked(pool, w))) {
      left_parked = false;
      park(pool, w);
      /* Woken by a grow, or active again since it left: join the running
       * call, if any (its own range first, if it left one). The epoch is
       * read before the call's state, so a call opened after this read
       * moves the epoch past `seen` and is not missed; and before
       * `shutdown`, which stop_workers sets before it moves the epoch: a
       * worker that reads the epoch stop_workers moved sees the shutdown
       * too, instead of waiting for an epoch past it that never comes. */
      seen = atomic_load(&pool->epoch);
      if (atomic_load(&pool->shutdown)) break;
    } else {
      seen = wait_for_epoch(pool, w, seen);
      if (atomic_load_explicit(&pool->shutdown, memory_order_acquire)) break;
      if (pool->node && parked(pool, w)) continue;
    }
    if (!join_call(pool)) continue; /* woke too late: that call is over */
    if (pool->bind_node &&
        w->bound_version != atomic_load_explicit(&pool->layout_version, memory_order_acquire))
      bal__for_rebind(pool, w);
    left_parked = bal__for_work(pool, w->id);
    atomic_fetch_sub_explicit(&pool->participants, 1, memory_order_release);
  }
  return NULL;
}

void bal__for_pool_wake(bal_pool *pool) {
  atomic_fetch_add(&pool->epoch, 1);
  if (atomic_load(&pool->sleepers) > 0) {
    pthread_mutex_lock(&pool->wake_lock);
    pthread_cond_broadcast(&pool->wake_cond);
    pthread_mutex_unlock(&pool->wake_lock);
  }
}

void bal__for_pool_dispatch(bal_pool *pool) {
  /* Open the call: the caller has written pool->call and the ranges; the
   * release pairs with join_call's acquire. */
  atomic_store_explicit(&pool->participants, 0, memory_order_release);
  if (atomic_load_explicit(&pool->active, memory_order_relaxed) > 1) {
    bal__for_steer_sleepers(pool);
    bal__for_pool_wake(pool);
  }
  bal__for_work(pool, 0);
  /* Every unit is done. Close the call so late wakers stay out, and wait
   * for those inside to leave before the call's state can be reused. */
  uint64_t p = atomic_fetch_or_explicit(&pool->participants, BAL__CALL_CLOSED,
                                        memory_order_acq_rel);
  for (unsigned spins = 0; (p & ~BAL__CALL_CLOSED) != 0; spins++) {
    if (spins < 256 && !pool->oversubscribed)
      bal__for_cpu_relax();
    else
      sched_yield();
    p = atomic_load_explicit(&pool->participants, memory_order_acquire);
  }
}

static void free_pool(bal_pool *pool) {
  bal__for_node_release(pool->node);
  pthread_mutex_destroy(&pool->mask_lock);
  pthread_cond_destroy(&pool->park_cond);
  pthread_cond_destroy(&pool->done_cond);
  pthread_mutex_destroy(&pool->done_lock);
  pthread_cond_destroy(&pool->wake_cond);
  pthread_mutex_destroy(&pool->wake_lock);
  pthread_mutex_destroy(&pool->call_lock);
  free(pool->bind_sets);
  free(pool->ranges);
  free(pool->workers);
  free(pool);
}

/* Tell the first `started` background workers to exit and join them. */
static void stop_workers(bal_pool *pool, int started) {
  atomic_store_explicit(&pool->shutdown, true, memory_order_release);
  bal__for_pool_wake(pool);
  pthread_mutex_lock(&pool->wake_lock);
  pthread_cond_broadcast(&pool->park_cond);
  pthread_mutex_unlock(&pool->wake_lock);
  for (int i = 1; i <= started; i++) pthread_join(pool->workers[i].thread, NULL);
}

/* `size` >= 1 workers on `cpus` usable CPUs; `node` (may be NULL) is
 * handed over to the pool, released on failure too. */
static int create_pool(int size, int cpus, bal__for_node *node, bool is_virtual, bal_pool **out) {
  bal__for_bind_policy bind;
  int rc = bal__for_bind_policy_from_env(&bind);
  if (rc != BAL_OK) {
    bal__for_node_release(node);
    return rc;
  }
  bal_pool *pool = calloc(1, sizeof *pool);
  if (!pool) {
    bal__for_node_release(node);
    return BAL_ENOMEM;
  }
  pool->node = node;
  pool->bind_node = node && !is_virtual;
  if (pool->bind_node) bind = BAL__BIND_NONE; /* the mask places the workers */
  pool->size = size;
  pool->oversubscribed = size > cpus;
  pool->ranges = aligned_alloc(64, sizeof(bal__for_range) * (size_t)size);
  pool->workers = aligned_alloc(64, sizeof(bal__for_worker) * (size_t)size);
  if (!pool->ranges || !pool->workers) {
    free(pool->ranges);
    free(pool->workers);
    free(pool);
    bal__for_node_release(node);
    return BAL_ENOMEM;
  }
  memset(pool->workers, 0, sizeof(bal__for_worker) * (size_t)size);
  if (bind != BAL__BIND_NONE) {
    pool->bind_sets = malloc(sizeof(cpu_set_t) * (size_t)size);
    if (!pool->bind_sets) {
      free(pool->ranges);
      free(pool->workers);
      free(pool);
      bal__for_node_release(node);
      return BAL_ENOMEM;
    }
    bal__for_bind_plan(bind, size, pool->bind_sets);
  }
  for (int i = 0; i < size; i++) {
    bal__for_range_set(&pool->ranges[i], 0, 0);
    pool->workers[i].id = i;
    pool->workers[i].pool = pool;
    pool->workers[i].cpus = pool->bind_sets && i > 0 ? &pool->bind_sets[i] : NULL;
    bal__rng_seed(&pool->workers[i].rng, 0x62616c6c617374ull + (uint64_t)i);
    atomic_init(&pool->workers[i].asleep, false);
    atomic_init(&pool->workers[i].steered, false);
  }
  pool->steer = bal__for_steer_enabled(pool);
  pthread_mutex_init(&pool->call_lock, NULL);
  pthread_mutex_init(&pool->wake_lock, NULL);
  pthread_cond_init(&pool->wake_cond, NULL);
  pthread_mutex_init(&pool->done_lock, NULL);
  pthread_cond_init(&pool->done_cond, NULL);
  atomic_init(&pool->caller_waiting, false);
  atomic_init(&pool->participants, BAL__CALL_CLOSED);
  atomic_init(&pool->remaining, 0);
  atomic_init(&pool->epoch, 0);
  atomic_init(&pool->sleepers, 0);
  atomic_init(&pool->shutdown, false);
  atomic_init(&pool->orphans, 0);
  pthread_cond_init(&pool->park_cond, NULL);
  pthread_mutex_init(&pool->mask_lock, NULL);
  atomic_flag_clear(&pool->adopting);
  atomic_init(&pool->active, size);
  atomic_init(&pool->layout_version, 0);
  atomic_init(&pool->adopted, 0);
  atomic_init(&pool->next_poll_ns, 0);
  if (node) bal__for_follow(pool, true, bal__now_ns()); /* active from the current mask */

  for (int i = 1; i < size; i++) {
    int err = pthread_create(&pool->workers[i].thread, NULL, worker_main, &pool->workers[i]);
    if (err) {
      bal__log(BAL_LOG_ERROR, "for", "cannot start worker %d of %d: %s", i, size, strerror(err));
      stop_workers(pool, i - 1);
      free_pool(pool);
      return BAL_ESYS;
    }
  }
  *out = pool;
  return BAL_OK;
}

void bal_pool_destroy(bal_pool *pool) {
  if (!pool) return;
  stop_workers(pool, pool->size - 1);
  free_pool(pool);
}

int bal_pool_size(const bal_pool *pool) { return pool ? pool->size : BAL_EINVAL; }

int bal_worker_id(void) { return bal__for_tls_worker_id; }

int bal_pool_config_init(bal_pool_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  return BAL_OK;
}

/* BALLAST_NODE=1 asks pools created without a node configuration to
 * attach; 0 or unset, not to. Any other value attaches nothing either (the
 * variable never makes creation fail, for.h), but is logged: "yes" or
 * "true" silently meaning "no" is a trap. */
static bool node_from_env(void) {
  const char *env = getenv("BALLAST_NODE");
  if (!env || !strcmp(env, "0")) return false;
  if (!strcmp(env, "1")) return true;
  bal__log(BAL_LOG_WARN, "for", "BALLAST_NODE='%s': expected 1 (attach pools to the node "
                                "registry) or 0; the pool is not attached", env);
  return false;
}

int bal_pool_create_with(const bal_pool_config *cfg, bal_pool **out) {
  bal_pool_config def;
  if (!cfg) {
    bal_pool_config_init(&def);
    cfg = &def;
  }
  if (!out || cfg->nthreads < 0 || cfg->nthreads > BAL_POOL_MAX_THREADS) return BAL_EINVAL;
  bal__for_node *node = NULL;
  int64_t ncpus = 0;
  bool is_virtual = false;
  /* Counted before attaching: in a real-CPU registry the first poll binds
   * this thread to the process's mask, which may be smaller than what
   * the pool will run on later. */
  int cpus = online_cpus();
  if (cfg->node || node_from_env()) {
    int rc = bal__for_node_acquire(cfg->node, &node, &ncpus, &is_virtual);
    if (rc != BAL_OK) return rc;
  }
  int size = cfg->nthreads;
  if (size == 0 && node) {
    size = ncpus < BAL_POOL_MAX_THREADS ? (int)ncpus : BAL_POOL_MAX_THREADS;
  } else if (size == 0) {
    int rc = default_size(&size);
    if (rc != BAL_OK) return rc;
  }
  if (node && !is_virtual && ncpus > cpus) cpus = (int)ncpus; /* the node's CPUs */
  return create_pool(size, cpus, node, is_virtual, out);
}

int bal_pool_create(int nthreads, bal_pool **out) {
  bal_pool_config cfg;
  bal_pool_config_init(&cfg);
  cfg.nthreads = nthreads;
  return bal_pool_create_with(&cfg, out);
}

int bal_pool_active(const bal_pool *pool) {
  return pool ? atomic_load_explicit(&((bal_pool *)pool)->active, memory_order_acquire) : BAL_EINVAL;
}
