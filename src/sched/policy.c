/* The policy registry: adding a policy is one file defining a
 * bal__sched_policy plus one line here; bal_sched_policy_name() lists them
 * for tools, tests and the fuzzer. */
#include <string.h>

#include "sim.h"

extern const bal__sched_policy bal__sched_policy_fcfs, bal__sched_policy_easy,
    bal__sched_policy_sd;

static const bal__sched_policy *const policies[] = {&bal__sched_policy_fcfs,
                                                    &bal__sched_policy_easy, &bal__sched_policy_sd};
#define NPOLICIES ((int64_t)(sizeof policies / sizeof policies[0]))

const bal__sched_policy *bal__sched_policy_find(const char *name, ptrdiff_t len) {
  if (!name) return NULL;
  for (int64_t i = 0; i < NPOLICIES; i++) {
    const char *p = policies[i]->name;
    if (len < 0 ? strcmp(p, name) == 0 : strlen(p) == (size_t)len && !strncmp(p, name, (size_t)len))
      return policies[i];
  }
  return NULL;
}

bool bal_sched_policy_shares(const char *name) {
  const bal__sched_policy *p = bal__sched_policy_find(name, -1);
  return p && p->sharing;
}

const char *bal_sched_policy_name(int i) {
  return i >= 0 && i < NPOLICIES ? policies[i]->name : NULL;
}
