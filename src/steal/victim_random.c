/* "random": any other rank, uniformly: the all-pairs baseline, whose
 * thieves may end up talking to every rank. */
#include "core/rng.h"
#include "steal_internal.h"

static int pick(bal_steal *s) {
  int v = (int)bal__rng_below(&s->rng, (uint64_t)(s->size - 1));
  return v >= s->rank ? v + 1 : v;
}

const bal__steal_policy bal__steal_policy_random = {.name = "random", .steals = true, .pick = pick};
