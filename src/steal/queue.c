/* The local task queue, shared by the progress loop and the workers (callers
 * hold s->mu; s->queued mirrors its size for bal_steal_queued()). Front = [qhead], back = [qtail-1]: the owner pushes and pops
 * the back (work-first), thieves take the front. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "steal_internal.h"

int bal__steal_q_reserve(bal_steal *s, size_t extra) {
  if (s->qhead > 0 && s->qtail + extra > s->qcap) {
    memmove(s->q, s->q + s->qhead, (s->qtail - s->qhead) * sizeof *s->q);
    s->qtail -= s->qhead;
    s->qhead = 0;
  }
  if (s->qtail + extra <= s->qcap) return BAL_OK;
  size_t cap = s->qcap ? s->qcap : 64;
  while (cap < s->qtail + extra) cap *= 2;
  bal__steal_task *n = realloc(s->q, cap * sizeof *n);
  if (!n) return BAL_ENOMEM;
  s->q = n;
  s->qcap = cap;
  return BAL_OK;
}

size_t bal__steal_q_size(const bal_steal *s) { return s->qtail - s->qhead; }

/* ---- owner end ---- */

static void publish(bal_steal *s) {
  atomic_store_explicit(&s->queued, (int_least64_t)(s->qtail - s->qhead), memory_order_relaxed);
}

void bal__steal_q_push_back(bal_steal *s, bal__steal_task t) {
  s->q[s->qtail++] = t;
  publish(s);
}

/* Pop from the back for local execution, counting the task as running
 * (s->busy, decremented when its result is queued); false if empty. */
bool bal__steal_q_pop_back(bal_steal *s, bal__steal_task *t) {
  if (s->qtail == s->qhead) return false;
  *t = s->q[--s->qtail];
  s->busy++;
  publish(s);
  return true;
}

/* ---- thief end ---- */

bal__steal_task *bal__steal_q_front(bal_steal *s, size_t i) { return &s->q[s->qhead + i]; }

void bal__steal_q_drop_front(bal_steal *s, size_t n) {
  s->qhead += n;
  publish(s);
}

void bal__steal_q_clear(bal_steal *s) {
  for (size_t i = s->qhead; i < s->qtail; i++)
    if (s->q[i].own_data) free(s->q[i].data);
  s->qhead = s->qtail = 0;
  publish(s);
}
