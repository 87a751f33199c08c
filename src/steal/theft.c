/* Stealing: a thief's request, the victim's reply (tasks from the front of
 * its queue) and the thief's back-off. The choice of victim is the
 * policy's (victim.c and its files). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "steal_internal.h"
#include "transport.h"

int bal__steal_handle_request(bal_steal *s, int src) {
  pthread_mutex_lock(&s->mu);
  size_t n = bal__steal_q_size(s);
  size_t k = 0;
  /* Once every result is home no task is left to give; a policy that does
   * not steal answers (unexpected) requests with no task. */
  if (bal__steal_tasks_open(s) && s->victim->steals) {
    k = (size_t)((double)n * s->cfg.steal_fraction);
    if (k == 0 && n >= 2) k = 1;
    /* A running task that splits itself on demand (spawning when its
     * rank's queue runs low, as ballast uts does) leaves one spawned task
     * queued at a time: it was split off to be shared while the task goes
     * on, so a busy victim gives it rather than turn every thief away
     * until the next split (T1 on 28 simulated ranks: efficiency 0.75 ->
     * 0.84). Queued tasks that were added, not spawned, keep the rule
     * above, and with it DLB_Bench's figures. */
    if (k == 0 && n == 1 && s->busy > 0 && bal__steal_q_front(s, 0)->idx == BAL__STEAL_SPAWNED)
      k = 1;
    /* A victim running nothing keeps one task (steal_fraction 1 would give
     * it all): two idle ranks could otherwise pass the same tasks back and
     * forth forever, each answering the other's request in the loop that
     * received them, before running any. */
    if (k == n && n > 0 && s->busy == 0) k = n - 1;
  }
  unsigned char *buf;
  size_t bytes, bulk;
  int64_t took = bal__steal_pack_front(s, k, &buf, &bytes, &bulk);
  pthread_mutex_unlock(&s->mu);
  if (took < 0) return (int)took;
  /* An empty reply carries no work: a control message, not counted. */
  if (took == 0) return bal__tp_send_msg(&s->tp, src, BAL__STEAL_TAG_TASKS, buf, bytes, bulk);
  return bal__steal_send_basic(s, src, BAL__STEAL_TAG_TASKS, buf, bytes, bulk);
}

int bal__steal_handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len) {
  int64_t now = bal__now_ns();
  s->outstanding = false;
  if (s->victim->replied) s->victim->replied(s, src, s->t_req, now);
  if (s->cfg.trace)
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_STEAL, bal__steal_secs(s, s->t_req),
                 bal__steal_secs(s, now), src);
  int64_t got = bal__steal_unpack_tasks(s, buf, len);
  if (got < 0) return (int)got;
  if (got == 0) {
    int64_t cap = (int64_t)(s->cfg.backoff_max_s * 1e9);
    s->backoff = s->backoff ? s->backoff * 2 : (int64_t)(s->cfg.poll_interval_s * 1e9) + 1000;
    if (s->backoff > cap) s->backoff = cap;
    s->next_steal = now + s->backoff;
    return BAL_OK;
  }
  s->backoff = 0;
  s->next_steal = now;
  s->st.thefts++;
  return BAL_OK;
}

int bal__steal_if_due(bal_steal *s, bool empty, int64_t now) {
  if (!bal__steal_tasks_open(s) || !empty || s->outstanding || !s->victim->steals ||
      s->size < 2 || now < s->next_steal)
    return 0;
  int v = s->victim->pick(s);
  if (v < 0) return v; /* a policy's error ends the run: retrying would repeat it */
  int rc = bal__tp_send_msg(&s->tp, v, BAL__STEAL_TAG_REQ, NULL, 0, 0);
  if (rc != BAL_OK) return rc;
  s->outstanding = true;
  s->t_req = now;
  s->st.steal_attempts++;
  return 1;
}
