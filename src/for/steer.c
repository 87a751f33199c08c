/* Where a sleeping background worker wakes up: steer.h says why. */
#include "for/steer.h"

#include <pthread.h>
#include <sched.h>

#include "for/pool.h"

bool bal__for_steer_enabled(const bal_pool *pool) {
  return pool->size > 1 && !pool->oversubscribed && !pool->node && !pool->bind_sets;
}

void bal__for_steer_home_init(bal__for_worker *w) {
  w->home_valid = pthread_getaffinity_np(pthread_self(), sizeof w->home, &w->home) == 0 &&
                  CPU_COUNT(&w->home) > 1;
}

/* The CPUs of `set` other than `from`, in cyclic order after `from`,
 * into list (CPU_SETSIZE entries); returns their count. */
static int others_after(const cpu_set_t *set, int from, int *list) {
  int n = 0;
  for (int k = 1; k <= CPU_SETSIZE; k++) {
    int cpu = (from + k) % CPU_SETSIZE;
    if (cpu != from && CPU_ISSET(cpu, set)) list[n++] = cpu;
  }
  return n;
}

void bal__for_steer_sleepers(bal_pool *pool) {
  if (!pool->steer || atomic_load(&pool->sleepers) == 0) return;
  int here = sched_getcpu();
  if (here < 0) return;
  int active = atomic_load_explicit(&pool->active, memory_order_relaxed);
  /* The candidate list of the last set seen: the workers of a pool
   * normally share one set, so it is built once per call. */
  int list[CPU_SETSIZE], count = 0;
  const cpu_set_t *listed = NULL;
  for (int i = 1; i < active; i++) {
    bal__for_worker *w = &pool->workers[i];
    if (!w->home_valid || !atomic_load_explicit(&w->asleep, memory_order_acquire)) continue;
    if (!listed || !CPU_EQUAL(listed, &w->home)) {
      count = others_after(&w->home, here, list);
      listed = &w->home;
    }
    if (count == 0) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(list[(i - 1) % count], &one);
    /* Affinity first, flag second: a worker that sees the flag restores a
     * set the kernel has already applied (one woken early by another wake
     * restores at its next wake-up instead). */
    if (pthread_setaffinity_np(w->thread, sizeof one, &one) == 0)
      atomic_store_explicit(&w->steered, true, memory_order_release);
  }
}

void bal__for_steer_return(bal__for_worker *w) {
  if (atomic_exchange_explicit(&w->steered, false, memory_order_acquire))
    (void)pthread_setaffinity_np(pthread_self(), sizeof w->home, &w->home);
}
