/* fcfs: start jobs in submit order while the next one fits; never skip. */
#include "sim.h"

static void schedule(bal__sched_sim *s) {
  for (int32_t i = 0; i < s->nqueue; i++) {
    int32_t j = s->queue[i];
    if (s->jobs[j].nodes > s->free_nodes) break;
    bal__sched_start_static(s, j);
  }
}

const bal__sched_policy bal__sched_policy_fcfs = {.name = "fcfs", .schedule = schedule};
