/* Thread placement for pool workers. With hwloc (detected at build time)
 * "core" means a physical core, hyperthread siblings included, in the
 * topology's order; without hwloc (or if it cannot read the topology) both
 * policies use the CPUs of the process's affinity mask in order. Only
 * background workers are bound: the thread that calls bal_for() belongs to
 * the application. */
#include "for/bind.h"

#include <ballast/error.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"

#ifdef BALLAST_HAVE_HWLOC
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#endif

int bal__for_bind_policy_from_env(bal__for_bind_policy *out) {
  const char *env = getenv("BALLAST_BIND");
  if (!env || !strcmp(env, "none")) /* set but empty is "another value" (for.h) */
    *out = BAL__BIND_NONE;
  else if (!strcmp(env, "core"))
    *out = BAL__BIND_CORE;
  else if (!strcmp(env, "pu"))
    *out = BAL__BIND_PU;
  else {
    bal__log(BAL_LOG_ERROR, "for", "BALLAST_BIND='%s': expected none, core or pu, or unset",
             env);
    return BAL_EINVAL;
  }
  return BAL_OK;
}

#ifdef BALLAST_HAVE_HWLOC
static bool plan_hwloc(bal__for_bind_policy policy, int n, cpu_set_t *sets) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return false;
  bool ok = false;
  if (hwloc_topology_load(topo) == 0) {
    hwloc_obj_type_t type = policy == BAL__BIND_CORE ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    int count = hwloc_get_nbobjs_by_type(topo, type);
    if (count <= 0) { /* no core level reported: use hardware threads */
      type = HWLOC_OBJ_PU;
      count = hwloc_get_nbobjs_by_type(topo, type);
    }
    ok = count > 0;
    for (int i = 0; ok && i < n; i++) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)(i % count));
      ok = obj && hwloc_cpuset_to_glibc_sched_affinity(topo, obj->cpuset, &sets[i],
                                                         sizeof sets[i]) == 0;
    }
  }
  hwloc_topology_destroy(topo);
  return ok;
}
#endif

static void plan_affinity(int n, cpu_set_t *sets) {
  cpu_set_t allowed;
  int cpus[CPU_SETSIZE], count = 0;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
      if (CPU_ISSET(cpu, &allowed)) cpus[count++] = cpu;
  if (count == 0) cpus[count++] = 0;
  for (int i = 0; i < n; i++) {
    CPU_ZERO(&sets[i]);
    CPU_SET(cpus[i % count], &sets[i]);
  }
}

void bal__for_bind_plan(bal__for_bind_policy policy, int n, cpu_set_t *sets) {
#ifdef BALLAST_HAVE_HWLOC
  if (plan_hwloc(policy, n, sets)) return;
  bal__log(BAL_LOG_WARN, "for", "hwloc could not read the topology; binding to CPUs in order");
#else
  (void)policy;
#endif
  plan_affinity(n, sets);
}

void bal__for_bind_self(const cpu_set_t *set, int index) {
  if (sched_setaffinity(0, sizeof *set, set) != 0)
    bal__log(BAL_LOG_WARN, "for", "could not bind worker %d", index);
}
