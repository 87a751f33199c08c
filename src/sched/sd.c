/* sd: SD-Policy ([D'Amico 2019] §3, Listing 1): the EASY pass, and for each
 * job that cannot start statically a malleable start (malleable.c).
 * Settings: "sd.mate_cost" = "nodes" (default: a choice of mates costs
 * Σ p × nodes, as the SLURM implementation weighs it) or "sum" (Σ p,
 * Eq. 1 as printed). A variant is a copy of this file with its own name,
 * settings and malleable hook, plus a line in policy.c. */
#include <string.h>

#include "sim.h"

typedef struct sd_state {
  bal__sched_mate_cost cost;
} sd_state;

static int configure(void *state, const char *key, const char *value) {
  sd_state *st = state;
  if (strcmp(key, "mate_cost") != 0) return BAL_EINVAL;
  if (!strcmp(value, "nodes")) st->cost = BAL__SCHED_COST_NODES;
  else if (!strcmp(value, "sum")) st->cost = BAL__SCHED_COST_SUM;
  else return BAL_EINVAL;
  return BAL_OK;
}

static bool try_malleable(bal__sched_sim *s, int32_t j, const bal__sched_reservation *r,
                          bool head) {
  const sd_state *st = s->policy_state;
  return bal__sched_start_malleable(s, j, r, head, st->cost);
}

static void schedule(bal__sched_sim *s) { bal__sched_backfill_pass(s, try_malleable); }

static const bal__sched_setting_info settings[] = {{"mate_cost", "nodes, sum"}, {NULL, NULL}};

const bal__sched_policy bal__sched_policy_sd = {
    .name = "sd", .sharing = true, .state_size = sizeof(sd_state), .configure = configure,
    .settings = settings, .schedule = schedule};
