/* Private: where a sleeping background worker wakes up (steer.c).
 *
 * Why. A worker that slept through the gap between two calls is woken by
 * the caller, and the kernel often queues it on the caller's own CPU while
 * another CPU of the process sits idle: on the 2-vCPU KVM machines Ballast
 * is measured on, 97 of 100 wake-ups after a 30 ms gap landed there and
 * started 1.8 ms later (p50), when the caller was preempted, instead of
 * ~0.1 ms on the idle CPU. A loop of a few milliseconds then runs on one
 * CPU for most of its length. Steering: just before it wakes them, the
 * caller gives each sleeping worker a one-CPU affinity, a CPU of the
 * worker's own set other than the caller's (spread by worker id), so the
 * kernel must wake it there; the worker restores its own set as soon as it
 * runs, so the scheduler is free again for the rest of the call.
 *
 * Only for pools whose background workers keep the affinity they started
 * with: not BALLAST_BIND placement (already one CPU each) nor pools that
 * follow a node registry (follow.c places those), and not oversubscribed
 * pools (no idle CPU to steer to). Best effort: a worker that is falling
 * asleep while the caller looks is not steered, and any failing affinity
 * call leaves the kernel's placement. */
#ifndef BALLAST_FOR_STEER_H
#define BALLAST_FOR_STEER_H
#include <stdbool.h>

struct bal_pool;
struct bal__for_worker;

/* At pool creation: whether this pool steers its workers (see above). */
bool bal__for_steer_enabled(const struct bal_pool *pool);

/* Worker w, on its own thread before its first wait: remember its CPU set. */
void bal__for_steer_home_init(struct bal__for_worker *w);

/* The dispatcher, before it moves the epoch: give every sleeping
 * background worker [1, active) a CPU other than the calling thread's. */
void bal__for_steer_sleepers(struct bal_pool *pool);

/* Worker w, on its own thread after it woke: back to its own CPU set if
 * it was steered. */
void bal__for_steer_return(struct bal__for_worker *w);

#endif
