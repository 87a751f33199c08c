/* Executing one task, on the worker thread (THREAD mode) or between polls
 * on the progress thread (POLL mode). Tasks come from the back of the queue;
 * results go to the `done` list for the progress loop to deliver. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sim_bulk.h"
#include "steal_internal.h"

void bal__steal_run_task(bal_steal *s, bal__steal_task *t) {
  size_t out_len = 0;
  int64_t a = bal__now_ns();
  bool poll = s->mode == BAL_STEAL_PROGRESS_POLL;
  const unsigned char *input = t->len ? t->data : NULL;
  size_t kept = bal__steal_stored_len(t->len);
  int status = 0;
  if (kept < t->len) {
    /* SMPI build: the kept prefix, then the unstored bulk (sim_bulk.h), in
     * one buffer reused from task to task (one task runs at a time). */
    if (s->whole_cap < t->len) {
      free(s->whole);
      s->whole_cap = 0;
      if ((s->whole = malloc(t->len)) != NULL) s->whole_cap = t->len;
    }
    if (s->whole) {
      memcpy(s->whole, t->data, kept);
      input = s->whole;
    } else {
      status = BAL_ENOMEM;
    }
  }
  if (status == 0) {
    if (poll) s->in_task = true;
    status = s->fn(input, t->len, s->scratch, s->max_out, &out_len, s->arg);
    if (poll) s->in_task = false;
  }
  int64_t b = bal__now_ns();
  if (status == 0 && out_len > s->max_out) status = BAL_ERANGE;
  if (status != 0) out_len = 0;
  unsigned char *copy = NULL;
  if (out_len > 0 && (copy = malloc(out_len)) != NULL) memcpy(copy, s->scratch, out_len);
  if (out_len > 0 && !copy) {
    status = BAL_ENOMEM;
    out_len = 0;
  }
  if (t->own_data) free(t->data);
  if (s->cfg.trace)
    s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_WORK, bal__steal_secs(s, a), bal__steal_secs(s, b),
                 t->owner);
  pthread_mutex_lock(&s->mu);
  s->st.work_s += (double)(b - a) * 1e-9;
  if (t->owner == s->rank)
    s->st.executed_own++;
  else
    s->st.executed_stolen++;
  if (s->ndone == s->capdone) {
    size_t cap = s->capdone ? 2 * s->capdone : 64;
    bal__steal_result *n = realloc(s->done, cap * sizeof *n);
    if (!n) {
      /* Cannot queue the result: record the failure; the run would not
       * terminate without it, so report it as the run's error. */
      s->err = BAL_ENOMEM;
      free(copy);
      pthread_mutex_unlock(&s->mu);
      return;
    }
    s->done = n;
    s->capdone = cap;
  }
  s->done[s->ndone++] = (bal__steal_result){t->owner, status, t->idx, out_len, copy};
  s->worker_busy = false;
  pthread_cond_signal(&s->prog_cv);
  pthread_mutex_unlock(&s->mu);
}

void *bal__steal_worker_main(void *arg) {
  bal_steal *s = arg;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    bal__steal_task t;
    if (bal__steal_q_pop_back(s, &t)) {
      pthread_mutex_unlock(&s->mu);
      bal__steal_run_task(s, &t);
      pthread_mutex_lock(&s->mu);
      continue;
    }
    if (s->stop) break;
    int64_t a = bal__now_ns();
    pthread_cond_wait(&s->work_cv, &s->mu);
    int64_t b = bal__now_ns();
    s->st.idle_s += (double)(b - a) * 1e-9;
    if (s->cfg.trace && !s->stop)
      s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_IDLE, bal__steal_secs(s, a), bal__steal_secs(s, b),
                   -1);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}
