/* easy: EASY backfilling ([Mu'alem 2001]). The queue head gets
 * a reservation at the shadow time; a later job starts now if it fits and
 * either ends (by its requested time) before the shadow time or fits in the
 * extra nodes. The pass itself lives in backfill.c, shared with sd. */
#include "sim.h"

static void schedule(bal__sched_sim *s) { bal__sched_backfill_pass(s, NULL); }

const bal__sched_policy bal__sched_policy_easy = {.name = "easy", .schedule = schedule};
