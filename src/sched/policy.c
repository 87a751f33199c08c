/* The policy registry: adding a policy is one file defining a bal__policy
 * plus one line here. */
#include <string.h>

#include "sim.h"

extern const bal__policy bal__policy_fcfs, bal__policy_easy, bal__policy_sd;

static const bal__policy *const policies[] = {&bal__policy_fcfs, &bal__policy_easy,
                                              &bal__policy_sd};
#define NPOLICIES ((int)(sizeof policies / sizeof policies[0]))

const bal__policy *bal__policy_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NPOLICIES; i++)
    if (strcmp(policies[i]->name, name) == 0) return policies[i];
  return NULL;
}

const char *bal_sched_policy_name(int i) {
  return i >= 0 && i < NPOLICIES ? policies[i]->name : NULL;
}
