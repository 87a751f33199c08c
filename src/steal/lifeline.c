/* Lifelines (bal_steal_config::lifelines): a thief that stops asking.
 *
 * Why. An idle thief whose requests come back empty asks again after its
 * back-off, at most backoff_max_s later, for as long as the run lasts. When
 * little work is left and most ranks are idle (the end of an iteration,
 * the thin parts of a tree), nearly all messages are such requests and
 * their empty replies; under SimGrid SMPI each one is an event, and at
 * thousands of simulated ranks they cost more than the work simulated
 * (docs/BENCHMARKS.md, "Toward 14,336 simulated ranks"). The remedy is
 * Saraswat et al.'s lifeline-based global load balancing [Saraswat 2011]:
 * after `lifelines` empty replies in a row a thief registers with its
 * lifeline buddies and goes dormant -- it sends no request until one of
 * them pushes it work.
 *
 * The lifeline graph. With an overlay, a rank's buddies are its overlay
 * neighbours, so a rank still only ever talks to them; without one, the
 * ranks (r + 2^k) mod P for 2^k < P, a graph of degree ceil(log2 P) and
 * diameter ceil(log2 P). Work spreads along the registrations: a rank with
 * work to spare pushes it to the thieves registered with it, who push to
 * theirs in turn.
 *
 * The protocol.
 *  - Thief: on its `lifelines`-th empty reply in a row while it has
 *    nothing queued or running (a rank still running tasks may ask ahead,
 *    THREAD mode or several workers; that does not count) it sends a
 *    registration (BAL__STEAL_TAG_LIFELINE, no payload) to every buddy and
 *    becomes dormant: bal__steal_if_due() sends nothing while it is. Any
 *    task that arrives (a reply, a push) makes it active again; it does
 *    not withdraw its other registrations, whose buddies may still push
 *    (as in [Saraswat 2011]).
 *  - Stale registrations. A registration outlives its dormancy, so two
 *    dormant neighbours hold each other, and work pushed to one would be
 *    pushed back by the other as soon as it had some to spare. A rank
 *    therefore drops src from its held list whenever a message shows
 *    that src is awake: tasks from src (src has work) or a steal request
 *    from src (src is asking, and gets its answer directly).
 *  - Buddy: acknowledges every registration (BAL__STEAL_TAG_LIFELINE_ACK)
 *    and, while tasks are open, keeps the thief in its held list once.
 *    Every round of its progress loop it gives the oldest held thief
 *    what it would give a thief's request (bal__steal_amount), pushed as a
 *    basic message (BAL__STEAL_TAG_PUSH, counted by Mattern's counters),
 *    until it has nothing to spare.
 *  - Termination. Pushes carry tasks, so the waves count them like any
 *    theft. Registrations and acknowledgements are control messages: a
 *    rank enters the final barrier only once each of its registrations is
 *    acknowledged (bal__steal_ll_settled, terminate.c), so none is in
 *    flight when the run ends; an acknowledgement needs none, since its
 *    receiver waits for it before entering the barrier.
 *  - A dormant rank is passive; with idle_wait it blocks in MPI until a
 *    message comes (run.c), as a thief waiting for its reply does. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "steal_internal.h"
#include "transport.h"

void bal__steal_ll_start(bal_steal *s) {
  s->dormant = false;
  s->fails = 0;
  s->nheld = 0;
  s->ll_unacked = 0;
  s->ll_dormancies = 0;
}

void bal__steal_ll_end(bal_steal *s) {
  free(s->held);
  s->held = NULL;
  s->nheld = s->capheld = 0;
}

void bal__steal_ll_woke(bal_steal *s) {
  s->dormant = false;
  s->fails = 0;
  s->backoff = 0; /* as after a theft: its next miss starts short */
}

/* Remove held[i], keeping the others oldest first. */
static void drop_held(bal_steal *s, int i) {
  for (int j = i + 1; j < s->nheld; j++) s->held[j - 1] = s->held[j];
  s->nheld--;
}

void bal__steal_ll_awake(bal_steal *s, int src) {
  for (int i = 0; i < s->nheld; i++)
    if (s->held[i] == src) {
      drop_held(s, i);
      return;
    }
}

/* Send one registration; counts it as unacknowledged. */
static int register_with(bal_steal *s, int buddy) {
  int rc = bal__tp_send_msg(&s->tp, buddy, BAL__STEAL_TAG_LIFELINE, NULL, 0, 0);
  if (rc == BAL_OK) s->ll_unacked++;
  return rc;
}

/* Register with every buddy (the lifeline graph above). */
static int register_all(bal_steal *s) {
  int rc;
  if (s->ov) {
    const int64_t *nb;
    int deg;
    if ((rc = bal_overlay_neighbors(s->ov, s->rank, &nb, &deg)) != BAL_OK) return rc;
    for (int i = 0; i < deg; i++)
      if ((rc = register_with(s, (int)nb[i])) != BAL_OK) return rc;
    return BAL_OK;
  }
  for (int64_t step = 1; step < s->size; step *= 2)
    if ((rc = register_with(s, (int)(((int64_t)s->rank + step) % s->size))) != BAL_OK) return rc;
  return BAL_OK;
}

int bal__steal_ll_failed(bal_steal *s) {
  if (!s->cfg.lifelines || s->dormant || !bal__steal_tasks_open(s)) return BAL_OK;
  pthread_mutex_lock(&s->mu);
  bool idle = s->busy == 0 && bal__steal_q_size(s) == 0;
  pthread_mutex_unlock(&s->mu);
  if (!idle) return BAL_OK;
  if (++s->fails < s->cfg.lifelines) return BAL_OK;
  int rc = register_all(s);
  if (rc == BAL_OK) {
    s->dormant = true;
    s->ll_dormancies++;
  }
  return rc;
}

/* Keep src in the held list, once. */
static int hold(bal_steal *s, int src) {
  for (int i = 0; i < s->nheld; i++)
    if (s->held[i] == src) return BAL_OK;
  if (s->nheld == s->capheld) {
    int cap = s->capheld ? 2 * s->capheld : 8;
    int *h = realloc(s->held, (size_t)cap * sizeof *h);
    if (!h) return BAL_ENOMEM;
    s->held = h;
    s->capheld = cap;
  }
  s->held[s->nheld++] = src;
  return BAL_OK;
}

int bal__steal_ll_handle(bal_steal *s, int src, int tag) {
  if (tag == BAL__STEAL_TAG_LIFELINE_ACK) {
    if (s->ll_unacked <= 0) return BAL_EMPI; /* an acknowledgement of nothing */
    s->ll_unacked--;
    return BAL_OK;
  }
  int rc = bal__tp_send_msg(&s->tp, src, BAL__STEAL_TAG_LIFELINE_ACK, NULL, 0, 0);
  if (rc != BAL_OK) return rc;
  /* After termination no task is left to push. */
  return bal__steal_tasks_open(s) ? hold(s, src) : BAL_OK;
}

int bal__steal_ll_push_due(bal_steal *s) {
  if (s->nheld == 0) return 0;
  if (!bal__steal_tasks_open(s)) {
    s->nheld = 0;
    return 0;
  }
  int pushed = 0;
  while (s->nheld > 0) {
    pthread_mutex_lock(&s->mu);
    size_t k = bal__steal_amount(bal__steal_q_size(s), s->busy, s->cfg.steal_fraction);
    unsigned char *buf = NULL;
    size_t bytes = 0, bulk = 0;
    int64_t took = k ? bal__steal_pack_front(s, k, &buf, &bytes, &bulk) : 0;
    pthread_mutex_unlock(&s->mu);
    if (took < 0) return (int)took;
    if (took == 0) {
      free(buf);
      break;
    }
    int thief = s->held[0];
    drop_held(s, 0);
    int rc = bal__steal_send_basic(s, thief, BAL__STEAL_TAG_PUSH, buf, bytes, bulk);
    if (rc != BAL_OK) return rc;
    pushed = 1;
  }
  return pushed;
}

bool bal__steal_ll_settled(const bal_steal *s) {
  return s->ll_unacked == 0;
}
