/* Tasks spawned by tasks (bal_steal_spawn()) and the queue of their results
 * waiting for cfg.on_result.
 *
 * A spawned task is an ordinary queued task whose owner is the spawning
 * rank and whose idx is BAL__STEAL_SPAWNED, so stealing, batching and
 * routing need nothing new. Its result, once home (route.c), waits in
 * s->cbq until the progress loop runs the callback outside any task and
 * outside bal_steal_poll(): the callbacks of a rank then run one at a time
 * on the thread that called bal_steal_run(), never nested in a task that
 * happens to poll. A rank with queued results is not passive for the
 * termination waves (terminate.c), so every result is delivered before the
 * run ends. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sim_bulk.h"
#include "steal_internal.h"

int bal_steal_spawn(bal_steal *s, const void *input, size_t len) {
  bool progress_thread;
  if (!s || !bal__steal_in_task(s, &progress_thread) || (!input && len > 0) ||
      len >= (size_t)INT_MAX - 64)
    return BAL_EINVAL;
  unsigned char *copy = NULL;
  size_t kept = bal__steal_stored_len(len);
  if (kept > 0) {
    if (!(copy = malloc(kept))) return BAL_ENOMEM;
    memcpy(copy, input, kept);
  }
  pthread_mutex_lock(&s->mu);
  int rc = bal__steal_q_reserve(s, 1);
  if (rc == BAL_OK) {
    bal__steal_q_push_back(s, (bal__steal_task){s->rank, 1, BAL__STEAL_SPAWNED, len, copy});
    s->st.spawned++;
    /* Another worker of this rank may be waiting for work: a worker
     * thread, or in POLL mode the progress thread, which runs tasks too. */
    pthread_cond_signal(&s->work_cv);
    if (s->mode == BAL_STEAL_PROGRESS_POLL) pthread_cond_signal(&s->prog_cv);
  }
  pthread_mutex_unlock(&s->mu);
  if (rc != BAL_OK) free(copy);
  return rc;
}

int64_t bal_steal_queued(const bal_steal *s) {
  if (!s) return BAL_EINVAL;
  return (int64_t)atomic_load_explicit(&s->queued, memory_order_relaxed);
}

int bal__steal_cb_push(bal_steal *s, int status, size_t len, unsigned char *data) {
  if (s->ncbq == s->capcbq) {
    size_t cap = s->capcbq ? 2 * s->capcbq : 64;
    bal__steal_result *n = realloc(s->cbq, cap * sizeof *n);
    if (!n) {
      free(data);
      return BAL_ENOMEM;
    }
    s->cbq = n;
    s->capcbq = cap;
  }
  s->cbq[s->ncbq++] = (bal__steal_result){s->rank, status, BAL__STEAL_SPAWNED, len, data};
  return BAL_OK;
}

int bal__steal_cb_drain(bal_steal *s) {
  if (s->ncbq == 0 || s->in_poll) return 0;
  /* A callback cannot reach this queue (it may not call the balancer), so
   * the list stays put while it runs. */
  for (size_t i = 0; i < s->ncbq; i++) {
    bal__steal_result *r = &s->cbq[i];
    if (s->cfg.on_result) s->cfg.on_result(r->len ? r->data : NULL, r->len, r->status, s->arg);
    free(r->data);
  }
  s->st.results_delivered += (int64_t)s->ncbq;
  s->ncbq = 0;
  return 1;
}

void bal__steal_cb_clear(bal_steal *s) {
  for (size_t i = 0; i < s->ncbq; i++) free(s->cbq[i].data);
  s->ncbq = 0;
}
