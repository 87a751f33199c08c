/* Stealing: a thief's request, the victim's reply (tasks from the front of
 * its queue), and the thief's choice of victim and back-off. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/overlay.h>

#include "core/clock.h"
#include "core/rng.h"
#include "steal_internal.h"
#include "transport.h"

int bal__handle_request(bal_steal *s, int src) {
  pthread_mutex_lock(&s->mu);
  size_t n = bal__q_size(s);
  size_t k = 0;
  if (s->phase < 2 && (s->cfg.policy == BAL_STEAL_SMALLWORLD || s->cfg.policy == BAL_STEAL_RANDOM)) {
    k = (size_t)((double)n * s->cfg.steal_fraction);
    if (k == 0 && n >= 2) k = 1;
  }
  unsigned char *buf;
  size_t bytes, bulk;
  long long took = bal__pack_front(s, k, &buf, &bytes, &bulk);
  pthread_mutex_unlock(&s->mu);
  if (took < 0) return (int)took;
  return bal__tp_send_msg(&s->tp, src, BAL__TAG_TASKS, buf, bytes, bulk);
}

int bal__handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len) {
  int64_t now = bal__now_ns();
  s->outstanding = false;
  if (s->cfg.trace)
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_STEAL, bal__steal_secs(s, s->t_req),
                 bal__steal_secs(s, now), src);
  long long got = bal__unpack_tasks(s, buf, len);
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

static int pick_victim(bal_steal *s) {
  if (s->cfg.policy == BAL_STEAL_SMALLWORLD) {
    int64_t v = -1;
    uint64_t st = bal__rng_next(&s->rng);
    if (bal_overlay_victim_uniform(s->ov, s->rank, &st, &v) != BAL_OK) return -1;
    return (int)v;
  }
  int v = (int)bal__rng_below(&s->rng, (uint64_t)(s->size - 1));
  return v >= s->rank ? v + 1 : v;
}

int bal__steal_if_due(bal_steal *s, bool empty, int64_t now) {
  bool stealing = s->cfg.policy == BAL_STEAL_SMALLWORLD || s->cfg.policy == BAL_STEAL_RANDOM;
  if (s->phase < 2 && empty && !s->outstanding && stealing &&
      s->size > 1 && now >= s->next_steal) {
    int v = pick_victim(s);
    if (v >= 0) {
      int rc = bal__tp_send_msg(&s->tp, v, BAL__TAG_REQ, NULL, 0, 0);
      if (rc != BAL_OK) return rc;
      s->outstanding = true;
      s->victim = v;
      s->t_req = now;
      s->st.steal_attempts++;
      return 1;
    }
  }
  return 0;
}
