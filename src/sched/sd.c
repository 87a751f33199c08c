/* sd: SD-Policy (seed 003, Listing 1). The EASY pass, and for each job that
 * cannot start statically and is malleable: predict its end without
 * malleability (static start estimate + requested time) and with it (start
 * now, requested time stretched by the worst-case model, Eq. 6: the guest
 * gets floor(SharingFactor x cores) per node); when sharing ends earlier,
 * pick mates (mates.c) and start it inside their nodes. */
#include "sim.h"

static bool try_malleable(bal__sim *s, int32_t j, const bal__reservation *r, bool head) {
  sjob *jb = &s->jobs[j];
  if (!jb->malleable || s->guest_cores < 1 || s->guest_cores >= s->cpn) return false;
  double dur = jb->req / bal__share_rate(s->guest_cores, jb->demand);
  int32_t mates[64];
  int n = bal__select_mates(s, j, dur, mates);
  if (n == 0) return false;
  double start = head ? r->shadow : bal__static_start(s, jb->nodes, jb->req, r);
  double static_end = start - s->now + jb->req;
  if (!(static_end > dur)) return false;
  bal__sim_start_guest(s, j, mates, n);
  return true;
}

static void schedule(bal__sim *s) { bal__backfill_pass(s, try_malleable); }

const bal__policy bal__policy_sd = {"sd", true, schedule};
