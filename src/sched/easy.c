/* easy: EASY backfilling (Lifka; Mu'alem & Feitelson). The queue head gets
 * a reservation at the shadow time; a later job starts now if it fits and
 * either ends (by its requested time) before the shadow time or fits in the
 * extra nodes. The pass itself lives in backfill.c, shared with sd. */
#include "sim.h"

static void schedule(bal__sim *s) { bal__backfill_pass(s, NULL); }

const bal__policy bal__policy_easy = {"easy", false, schedule};
