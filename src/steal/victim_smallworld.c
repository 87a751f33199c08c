/* "smallworld" (the default): a uniformly drawn overlay neighbour, so a
 * rank only ever talks to its overlay neighbours [Fontenaille 2018]. */
#include <ballast/overlay.h>

#include "core/rng.h"
#include "steal_internal.h"

static int pick(bal_steal *s) {
  int64_t v = -1;
  uint64_t st = bal__rng_next(&s->rng);
  int rc = bal_overlay_victim_uniform(s->ov, s->rank, &st, &v);
  return rc != BAL_OK ? rc : (int)v;
}

const bal__steal_policy bal__steal_policy_smallworld = {
    .name = "smallworld", .needs_overlay = true, .steals = true, .pick = pick};
