/* The registry of victim policies: adding one is a file defining a
 * bal__steal_victim (steal_internal.h) plus one line here. The order is
 * the order bal_steal_policy_name() lists them in, and so the order in
 * which tools compare them (`ballast dlb-bench --policy all`): the
 * baselines first, then the overlay-constrained policies. */
#include <string.h>

#include "steal_internal.h"

extern const bal__steal_victim bal__steal_victim_none, bal__steal_victim_sharing,
    bal__steal_victim_random, bal__steal_victim_smallworld, bal__steal_victim_biased;

static const bal__steal_victim *const victims[] = {
    &bal__steal_victim_none, &bal__steal_victim_sharing, &bal__steal_victim_random,
    &bal__steal_victim_smallworld, &bal__steal_victim_biased};
#define NVICTIMS ((int)(sizeof victims / sizeof victims[0]))

const bal__steal_victim *bal__steal_victim_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NVICTIMS; i++)
    if (strcmp(victims[i]->name, name) == 0) return victims[i];
  return NULL;
}

const char *bal_steal_policy_name(int i) {
  return i >= 0 && i < NVICTIMS ? victims[i]->name : NULL;
}
