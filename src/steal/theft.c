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

size_t bal__steal_amount(size_t n, int busy, double fraction) {
  size_t k = (size_t)((double)n * fraction);
  if (k == 0) k = 1; /* at least one, when the victim can spare it (below) */
  /* The victim keeps one task to run, queued or running: a busy victim may
   * give its last queued task (a task that splits on demand, as ballast
   * uts's, keeps exactly one queued while it runs: T1 on 28 simulated
   * ranks, efficiency 0.75 -> 0.84), and an idle one keeps one even when
   * fraction is 1: two idle ranks could otherwise pass the same tasks
   * back and forth forever, each answering the other's request in the
   * loop that received them, before running any. */
  size_t keep = busy > 0 ? 0 : 1;
  size_t most = n > keep ? n - keep : 0;
  return k < most ? k : most;
}

int bal__steal_handle_request(bal_steal *s, int src) {
  pthread_mutex_lock(&s->mu);
  size_t k = 0;
  /* Once every result is home no task is left to give; a policy that does
   * not steal answers (unexpected) requests with no task. */
  if (bal__steal_tasks_open(s) && s->policy->steals)
    k = bal__steal_amount(bal__steal_q_size(s), s->busy, s->cfg.steal_fraction);
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
  if (s->policy->replied) s->policy->replied(s, src, s->t_req, now);
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
    return bal__steal_ll_failed(s);
  }
  bal__steal_ll_woke(s);
  s->backoff = 0;
  s->next_steal = now;
  s->st.thefts++;
  return BAL_OK;
}

int bal__steal_if_due(bal_steal *s, bool empty, int64_t now) {
  if (!bal__steal_tasks_open(s) || !empty || s->outstanding || !s->policy->steals ||
      s->size < 2 || now < s->next_steal || s->dormant)
    return 0;
  int v = s->policy->pick(s);
  if (v < 0) return v; /* a policy's error ends the run: retrying would repeat it */
  int rc = bal__tp_send_msg(&s->tp, v, BAL__STEAL_TAG_REQ, NULL, 0, 0);
  if (rc != BAL_OK) return rc;
  s->outstanding = true;
  s->t_req = now;
  s->st.steal_attempts++;
  return 1;
}
