/* The balancer registry: adding a balancer is one file defining a
 * bal__rebalance_balancer plus one line here. The order is the order of
 * bal_rebalance_balancer_name(); the first is the default. */
#include <string.h>

#include "rebalance_internal.h"

extern const bal__rebalance_balancer bal__rebalance_string, bal__rebalance_direct,
    bal__rebalance_none;

static const bal__rebalance_balancer *const balancers[] = {
    &bal__rebalance_string,
    &bal__rebalance_direct,
    &bal__rebalance_none,
};
#define NBALANCERS ((int)(sizeof balancers / sizeof balancers[0]))

const bal__rebalance_balancer *bal__rebalance_balancer_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NBALANCERS; i++)
    if (strcmp(balancers[i]->name, name) == 0) return balancers[i];
  return NULL;
}

const char *bal_rebalance_balancer_name(int i) {
  return i >= 0 && i < NBALANCERS ? balancers[i]->name : NULL;
}
