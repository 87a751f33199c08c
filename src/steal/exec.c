/* Executing one task, on a worker thread (THREAD mode, and the extra
 * workers of POLL mode) or between polls on the progress thread (POLL
 * mode's worker 0). Tasks come from the back of the queue; results go to
 * the `done` list for the progress loop to deliver. Every worker has its
 * own result buffer, so the rank's workers run tasks concurrently and meet
 * only at s->mu (queue, done list, statistics). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "sim_bulk.h"
#include "steal_internal.h"

/* The worker thread whose task runs on this thread, for bal_steal_spawn()
 * and bal_steal_poll(): a thread-local, since several workers of a rank
 * (and of several balancers) run tasks at once. POLL mode's worker 0 is the
 * progress thread and flags its task in s->in_task instead: under SimGrid
 * SMPI every simulated rank runs on the same thread, so a thread-local
 * would be shared by all of them (and overwritten by another rank's task
 * whenever one blocks in MPI). Only real threads use `current`. */
static _Thread_local bal__steal_worker *current;

/* A task of another worker thread is running on this thread. */
static bool on_worker_thread(const bal__steal_worker *w) {
  return w && (w->index > 0 || w->s->mode == BAL_STEAL_PROGRESS_THREAD);
}

bool bal__steal_in_task(const bal_steal *s, bool *progress_thread) {
  const bal__steal_worker *w = current;
  *progress_thread = false;
  if (on_worker_thread(w)) return w->s == s;
  *progress_thread = true;
  return s->mode == BAL_STEAL_PROGRESS_POLL && s->in_task;
}

void bal__steal_run_task(bal__steal_worker *w, bal__steal_task *t) {
  bal_steal *s = w->s;
  size_t out_len = 0;
  int64_t a = bal__now_ns();
  const unsigned char *input = t->len ? t->data : NULL;
  size_t kept = bal__steal_stored_len(t->len);
  int status = 0;
  if (kept < t->len) {
    /* SMPI build: the kept prefix, then the unstored bulk (sim_bulk.h), in
     * one buffer of this worker reused from task to task. */
    if (w->whole_cap < t->len) {
      free(w->whole);
      w->whole_cap = 0;
      if ((w->whole = malloc(t->len)) != NULL) w->whole_cap = t->len;
    }
    if (w->whole) {
      memcpy(w->whole, t->data, kept);
      input = w->whole;
    } else {
      status = BAL_ENOMEM;
    }
  }
  if (status == 0) {
    bool poll = s->mode == BAL_STEAL_PROGRESS_POLL && w->index == 0;
    bal__steal_worker *prev = current;
    if (poll)
      s->in_task = true;
    else
      current = w;
    status = s->fn(input, t->len, w->scratch, s->max_out, &out_len, s->arg);
    if (poll)
      s->in_task = false;
    else
      current = prev;
  }
  int64_t b = bal__now_ns();
  if (status == 0 && out_len > s->max_out) status = BAL_ERANGE;
  if (status != 0) out_len = 0;
  /* An empty result of a spawned task is not delivered at all. */
  bool deliver = t->idx != BAL__STEAL_SPAWNED || status != 0 || out_len > 0;
  unsigned char *copy = NULL;
  if (out_len > 0 && (copy = malloc(out_len)) != NULL) memcpy(copy, w->scratch, out_len);
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
  if (deliver && s->ndone == s->capdone) {
    size_t cap = s->capdone ? 2 * s->capdone : 64;
    bal__steal_result *n = realloc(s->done, cap * sizeof *n);
    if (!n) {
      /* Cannot queue the result: the run would not terminate without it,
       * so report it as the run's error. */
      s->err = BAL_ENOMEM;
      free(copy);
      deliver = false;
    } else {
      s->done = n;
      s->capdone = cap;
    }
  }
  if (deliver) s->done[s->ndone++] = (bal__steal_result){t->owner, status, t->idx, out_len, copy};
  s->busy--;
  pthread_cond_signal(&s->prog_cv);
  pthread_mutex_unlock(&s->mu);
}

void *bal__steal_worker_main(void *arg) {
  bal__steal_worker *w = arg;
  bal_steal *s = w->s;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    bal__steal_task t;
    if (bal__steal_q_pop_back(s, &t)) {
      pthread_mutex_unlock(&s->mu);
      bal__steal_run_task(w, &t);
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
