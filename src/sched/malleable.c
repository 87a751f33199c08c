/* One malleable start, SD-Policy's decision for a job that cannot start
 * statically ([D'Amico 2019] §3.1, Listing 1): predict its end without
 * malleability (static start estimate + requested time) and with it (start
 * now, requested time stretched by the worst-case model, Eq. 6: the guest
 * gets what ballast/share.h's rule lends per node, less on a mate that
 * keeps more than one core for its ranks); when sharing ends earlier,
 * pick mates (mates.c) and start it inside their nodes. Shared by sd and
 * its variants, which call it from their own bal__sched_malleable_fn. */
#include <math.h>

#include "sim.h"

bool bal__sched_start_malleable(bal__sched_sim *s, int32_t j, const bal__sched_reservation *r,
                                bool head, bal__sched_mate_cost cost) {
  sjob *jb = &s->jobs[j];
  /* guest_cores < cpn always (the sharing rule keeps a mate's rank a
   * core), SF = 1 included; 0 when a node has one core: nothing to share. */
  if (!jb->malleable || s->guest_cores < 1) return false;
  double dur = jb->req / bal__sched_share_rate(s->guest_cores, jb->demand);
  int32_t mates[BAL_SCHED_MAX_MATES];
  int n = bal__sched_select_mates(s, j, dur, cost, mates);
  if (n == 0) return false;
  /* A mate with few cores to spare beyond its ranks lends fewer than
   * guest_cores (sjob.lend): the guest then runs at its least-served
   * node's pace, and must still end inside every mate. */
  double f = 1.0;
  for (int i = 0; i < n; i++) f = fmin(f, bal__sched_share_rate(s->jobs[mates[i]].lend, jb->demand));
  double shared_dur = jb->req / f;
  if (shared_dur > dur) {
    for (int i = 0; i < n; i++)
      if (s->jobs[mates[i]].pred_end < s->now + shared_dur) return false;
    dur = shared_dur;
  }
  double start = head ? r->shadow : bal__sched_static_start(s, jb->nodes, jb->req, r);
  double static_end = start - s->now + jb->req;
  if (!(static_end > dur)) return false;
  bal__sched_start_guest(s, j, mates, n);
  return true;
}
