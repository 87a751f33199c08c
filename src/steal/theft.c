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

/* Largest steal reply we build (at least one task is always sent). */
#define STEAL_MAX_BYTES ((size_t)64 << 20)

int bal__handle_request(bal_steal *s, int src) {
  pthread_mutex_lock(&s->mu);
  size_t n = bal__q_size(s);
  size_t k = 0;
  if (s->phase < 2 && s->cfg.policy != BAL_STEAL_NONE) {
    k = (size_t)((double)n * s->cfg.steal_fraction);
    if (k == 0 && n >= 2) k = 1;
  }
  size_t bytes = sizeof(uint64_t), take = 0;
  while (take < k) {
    size_t add = sizeof(bal__wire_hdr) + bal__q_front(s, take)->len;
    if (take > 0 && bytes + add > STEAL_MAX_BYTES) break;
    bytes += add;
    take++;
  }
  unsigned char *buf = malloc(bytes);
  if (!buf) {
    take = 0;
    bytes = sizeof(uint64_t);
    buf = malloc(bytes);
    if (!buf) {
      pthread_mutex_unlock(&s->mu);
      return BAL_ENOMEM;
    }
  }
  uint64_t cnt = take;
  memcpy(buf, &cnt, sizeof cnt);
  size_t off = sizeof cnt;
  for (size_t i = 0; i < take; i++) {
    bal__task *t = bal__q_front(s, i);
    bal__wire_hdr h = {t->owner, 0, t->idx, t->len};
    memcpy(buf + off, &h, sizeof h);
    off += sizeof h;
    if (t->len) memcpy(buf + off, t->data, t->len);
    off += t->len;
    if (t->own_data) free(t->data);
  }
  bal__q_drop_front(s, take);
  s->st.tasks_given += (long long)take;
  pthread_mutex_unlock(&s->mu);
  return bal__tp_send_msg(&s->tp, src, BAL__TAG_TASKS, buf, bytes);
}

int bal__handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len) {
  uint64_t cnt = 0;
  if (len < sizeof cnt) return BAL_EMPI;
  memcpy(&cnt, buf, sizeof cnt);
  int64_t now = bal__now_ns();
  s->outstanding = false;
  if (s->cfg.trace)
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_STEAL, bal__steal_secs(s, s->t_req),
                 bal__steal_secs(s, now), src);
  if (cnt == 0) {
    int64_t cap = (int64_t)(s->cfg.backoff_max_s * 1e9);
    s->backoff = s->backoff ? s->backoff * 2 : (int64_t)(s->cfg.poll_interval_s * 1e9) + 1000;
    if (s->backoff > cap) s->backoff = cap;
    s->next_steal = now + s->backoff;
    return BAL_OK;
  }
  s->backoff = 0;
  s->next_steal = now;
  s->st.thefts++;
  pthread_mutex_lock(&s->mu);
  int rc = bal__q_reserve(s, (size_t)cnt);
  size_t off = sizeof cnt;
  for (uint64_t i = 0; rc == BAL_OK && i < cnt; i++) {
    bal__wire_hdr h;
    if (off + sizeof h > len) {
      rc = BAL_EMPI;
      break;
    }
    memcpy(&h, buf + off, sizeof h);
    off += sizeof h;
    if (h.len > len - off || h.owner < 0 || h.owner >= s->size) { /* as handle_results */
      rc = BAL_EMPI;
      break;
    }
    bal__task t = {h.owner, 1, h.idx, (size_t)h.len, NULL};
    if (t.len && !(t.data = malloc(t.len))) {
      rc = BAL_ENOMEM;
      break;
    }
    if (t.len) memcpy(t.data, buf + off, t.len);
    off += t.len;
    /* Stolen tasks go to the back too: they are this rank's work now,
     * and their front end is what its own thieves will take. */
    bal__q_push_back(s, t);
  }
  pthread_cond_signal(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  return rc;
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
  if (s->phase < 2 && empty && !s->outstanding && s->cfg.policy != BAL_STEAL_NONE &&
      s->size > 1 && now >= s->next_steal) {
    int v = pick_victim(s);
    if (v >= 0) {
      int rc = bal__tp_send_msg(&s->tp, v, BAL__TAG_REQ, NULL, 0);
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
