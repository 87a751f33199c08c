/* The backfill machinery shared by easy and sd: the head's reservation
 * (shadow time, extra nodes), a static start estimate for any queued job,
 * and the EASY pass over the queue. Predictions use requested times; a job
 * past its prediction is predicted to end now. */
#include <math.h>

#include "sim.h"

/* Nodes a running job returns when it ends: a guest holds only the nodes
 * of mates that ended before it (the others go back with their mates). */
static int64_t returns(const sjob *jb) { return jb->nmates > 0 ? jb->full_nodes : jb->nodes; }

void bal__sched_reserve(const bal__sched_sim *s, int64_t need, bal__sched_reservation *r) {
  int64_t avail = s->free_nodes;
  r->head_nodes = need;
  r->shadow = INFINITY;
  r->extra = 0;
  int32_t i = 0;
  if (avail >= need) {
    r->shadow = s->now;
  } else {
    for (; i < s->nrun; i++) {
      const sjob *jb = &s->jobs[s->run[i]];
      avail += returns(jb);
      if (avail >= need) {
        r->shadow = fmax(jb->pred_end, s->now);
        i++;
        break;
      }
    }
  }
  if (r->shadow == INFINITY) return;
  /* everything ending at the shadow time itself counts as extra too */
  for (; i < s->nrun; i++) {
    const sjob *jb = &s->jobs[s->run[i]];
    if (fmax(jb->pred_end, s->now) > r->shadow) break;
    avail += returns(jb);
  }
  r->extra = avail - need;
}

double bal__sched_static_start(const bal__sched_sim *s, int64_t need, double req, const bal__sched_reservation *r) {
  double t1 = INFINITY, t2 = INFINITY;
  int64_t avail = s->free_nodes, need2 = need + r->head_nodes;
  if (avail >= need) t1 = s->now;
  if (avail >= need2) t2 = s->now;
  for (int32_t i = 0; i < s->nrun && t2 == INFINITY; i++) {
    const sjob *jb = &s->jobs[s->run[i]];
    avail += returns(jb);
    double t = fmax(jb->pred_end, s->now);
    if (t1 == INFINITY && avail >= need) t1 = t;
    if (avail >= need2) t2 = t;
  }
  /* Before the shadow time the job may run if it ends in time or fits in
   * the extra nodes; otherwise it needs room beside the head, or the head's
   * end (its requested time after the shadow time). */
  if (t1 < r->shadow && (t1 + req <= r->shadow || need <= r->extra)) return t1;
  return fmax(t1, fmin(r->shadow + r->head_req, t2));
}

void bal__sched_backfill_pass(bal__sched_sim *s, bal__sched_malleable_fn malleable) {
  bool have = false;
  bal__sched_reservation r = {0};
  for (int32_t i = 0; i < s->nqueue; i++) {
    int32_t j = s->queue[i];
    sjob *jb = &s->jobs[j];
    if (!have) {
      if (jb->nodes <= s->free_nodes) {
        bal__sched_start_static(s, j);
        continue;
      }
      bal__sched_reserve(s, jb->nodes, &r);
      r.head_req = jb->req;
      if (malleable && malleable(s, j, &r, true)) continue;
      if (jb->reservation < 0) jb->reservation = r.shadow;
      have = true;
      continue;
    }
    if (jb->nodes <= s->free_nodes) {
      bool ends_in_time = s->now + jb->req <= r.shadow;
      if (ends_in_time || jb->nodes <= r.extra) {
        bal__sched_start_static(s, j);
        if (!ends_in_time) r.extra -= jb->nodes;
        continue;
      }
    }
    if (malleable) malleable(s, j, &r, false);
    else if (s->free_nodes == 0) break;
  }
}
