/* Private: optional placement of the pool's background threads on CPUs,
 * chosen with the BALLAST_BIND environment variable. */
#ifndef BALLAST_FOR_BIND_H
#define BALLAST_FOR_BIND_H

#include <sched.h>

typedef enum bal__for_bind_policy {
  BAL__BIND_NONE, /* leave placement to the OS (default) */
  BAL__BIND_CORE, /* worker i on physical core i (mod cores), all its PUs */
  BAL__BIND_PU    /* worker i on hardware thread i (mod PUs) */
} bal__for_bind_policy;

/* Read BALLAST_BIND ("none", "core", "pu"; unset or empty = none).
 * Returns BAL_OK or BAL_EINVAL (logged) for any other value. */
int bal__for_bind_policy_from_env(bal__for_bind_policy *out);

/* Fill sets[i] with the CPUs of worker i, for i in [0, n), under `policy`
 * (not NONE). The topology is read once here, not per thread. */
void bal__for_bind_plan(bal__for_bind_policy policy, int n, cpu_set_t *sets);

/* Bind the calling thread to `set`; a failure is logged as a warning and
 * otherwise ignored: placement is an optimisation. */
void bal__for_bind_self(const cpu_set_t *set, int index);

#endif
