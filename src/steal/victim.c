/* The registry of policies: adding one is a file defining a
 * bal__steal_policy (steal_internal.h: a victim policy's pick, or the
 * per-run hooks a policy like "sharing" uses) plus one line here; the core
 * calls the hooks and never a policy by name. The order is
 * the order bal_steal_policy_name() lists them in, and so the order in
 * which tools compare them (`ballast dlb-bench --policy all`): the
 * baselines first, then the overlay-constrained policies. */
#include <string.h>

#include "steal_internal.h"

extern const bal__steal_policy bal__steal_policy_none, bal__steal_policy_sharing,
    bal__steal_policy_random, bal__steal_policy_smallworld, bal__steal_policy_biased;

static const bal__steal_policy *const policies[] = {
    &bal__steal_policy_none, &bal__steal_policy_sharing, &bal__steal_policy_random,
    &bal__steal_policy_smallworld, &bal__steal_policy_biased};
#define NPOLICIES ((int)(sizeof policies / sizeof policies[0]))

const bal__steal_policy *bal__steal_policy_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NPOLICIES; i++)
    if (strcmp(policies[i]->name, name) == 0) return policies[i];
  return NULL;
}

const char *bal_steal_policy_name(int i) {
  return i >= 0 && i < NPOLICIES ? policies[i]->name : NULL;
}
