/* bal_steal_run(): one progress loop per rank does all communication
 * (progress_once); tasks run on cfg.workers worker threads (THREAD mode) or
 * between polls on the calling thread plus cfg.workers - 1 worker threads
 * (POLL mode, where a task on the calling thread may call bal_steal_poll()). */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "steal_internal.h"
#include "transport.h"

/* Act on one message from src (buf freed here). */
static int dispatch(bal_steal *s, int src, int tag, void *buf, size_t len) {
  int rc;
  bool basic = bal__steal_is_basic(tag, buf, len);
  if (basic) s->basic_recv++; /* Mattern's counters (terminate.c) */
  /* A request, or tasks, from src: src is not a dormant thief (lifeline.c). */
  if (tag == BAL__STEAL_TAG_REQ || (basic && tag != BAL__STEAL_TAG_RESULTS))
    bal__steal_ll_awake(s, src);
  if (tag == BAL__STEAL_TAG_REQ)
    rc = bal__steal_handle_request(s, src);
  else if (tag == BAL__STEAL_TAG_TASKS)
    rc = bal__steal_handle_tasks(s, src, buf, len);
  else if (tag == BAL__STEAL_TAG_RESULTS)
    rc = bal__steal_handle_results(s, buf, len);
  else if (tag == BAL__STEAL_TAG_PUSH)
    rc = bal__steal_handle_push(s, buf, len);
  else if (tag == BAL__STEAL_TAG_WAVE_UP || tag == BAL__STEAL_TAG_WAVE_DOWN)
    rc = bal__steal_term_handle(s, src, tag, buf, len);
  else if ((tag == BAL__STEAL_TAG_LIFELINE || tag == BAL__STEAL_TAG_LIFELINE_ACK) && len == 0)
    rc = bal__steal_ll_handle(s, src, tag);
  else if (tag >= BAL__STEAL_TAG_POLICY && tag < BAL__STEAL_TAG_POLICY + BAL__STEAL_POLICY_TAGS &&
           s->policy->handle)
    rc = s->policy->handle(s, src, tag, buf, len);
  else
    rc = BAL_EMPI;
  free(buf);
  return rc;
}

/* One round of communication; returns >0 if anything happened, 0 if idle,
 * or a negative error. */
static int progress_once(bal_steal *s) {
  int act = 0, rc;
  for (int m = 0; m < 64; m++) {
    int src, tag;
    void *buf;
    size_t len;
    rc = bal__tp_recv_msg(&s->tp, &src, &tag, &buf, &len);
    if (rc < 0) return rc;
    if (rc == 0) break;
    act = 1;
    if ((rc = dispatch(s, src, tag, buf, len)) != BAL_OK) return rc;
  }

  pthread_mutex_lock(&s->mu);
  bal__steal_result *done = s->done;
  size_t ndone = s->ndone;
  int werr = s->err;
  s->done = NULL;
  s->ndone = s->capdone = 0;
  bool empty = bal__steal_q_size(s) == 0;
  bool idle = empty && s->busy == 0;
  pthread_mutex_unlock(&s->mu);
  if (werr) {
    for (size_t i = 0; i < ndone; i++) free(done[i].data);
    free(done);
    return werr;
  }
  rc = BAL_OK;
  for (size_t i = 0; i < ndone; i++) {
    if (rc == BAL_OK)
      rc = bal__steal_deliver(s, done[i].owner, done[i].status, done[i].idx, done[i].len, done[i].data);
    else
      free(done[i].data);
  }
  free(done);
  if (rc != BAL_OK) return rc;
  if (ndone) act = 1;
  if (bal__steal_cb_drain(s)) act = 1;

  if ((rc = bal__steal_ll_push_due(s)) < 0) return rc;
  if (rc) act = 1;
  int64_t now = bal__now_ns();
  if ((rc = bal__steal_if_due(s, empty, now)) < 0) return rc;
  if (rc) act = 1;
  if (s->policy->step) {
    if ((rc = s->policy->step(s, now)) < 0) return rc;
    if (rc) act = 1;
  }
  if ((rc = bal__steal_route_flush_due(s, idle, now)) < 0) return rc;
  if (rc) act = 1;
  rc = bal__tp_progress(&s->tp);
  if (rc != BAL_OK) return rc;

  if ((rc = bal__steal_term_step(s)) < 0) return rc;
  if (rc) act = 1;
  return act;
}

int bal_steal_poll(bal_steal *s) {
  if (!s) return BAL_EINVAL;
  /* Only the progress thread's own task (POLL mode's worker 0) may poll. */
  bool progress_thread = false;
  if (!bal__steal_in_task(s, &progress_thread) || !progress_thread) return BAL_ENOTSUP;
  s->in_poll = true; /* result callbacks wait until the task has returned */
  int rc = progress_once(s);
  s->in_poll = false;
  return rc < 0 ? rc : BAL_OK;
}

/* Sleep of an idle POLL-mode loop: poll_interval_s after activity, then
 * doubling on every quiet round up to backoff_max_s. Thousands of idle
 * simulated ranks under SMPI would otherwise flood the simulator with
 * empty probes; a quiet rank has no work to give, so answering a little
 * later costs its thieves one empty reply's delay, no more. */
static int64_t idle_nap(bal_steal *s) {
  int64_t first = (int64_t)(s->cfg.poll_interval_s * 1e9);
  /* Once the waves found no work left only the final barrier is left:
   * every rank is at it, briefly, so poll at full speed to end sooner. */
  if (!bal__steal_tasks_open(s)) return first;
  /* Waiting for the answer to its own steal request, a rank polls at full
   * speed: the reply may bring work, and sleeping through it is idle time. */
  if (s->outstanding) return first;
  int64_t cap = (int64_t)(s->cfg.backoff_max_s * 1e9);
  if (cap < first) cap = first;
  s->idle_nap = s->idle_nap ? 2 * s->idle_nap : first;
  if (s->idle_nap > cap) s->idle_nap = cap;
  return s->idle_nap;
}

/* Wait on cv (mu held) for at most ns nanoseconds. */
static void wait_ns(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t ns) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int64_t t = (int64_t)ts.tv_nsec + ns;
  ts.tv_sec += (time_t)(t / 1000000000);
  ts.tv_nsec = (long)(t % 1000000000);
  pthread_cond_timedwait(cv, mu, &ts);
}

/* idle_wait: whether this idle round (nothing received, nothing to run)
 * may block until a message comes. Only a message can change anything
 * then: the rank's request is out (no new one until its reply) or it is a
 * dormant thief (lifeline.c: no request until a buddy pushes work), its
 * one worker is this thread (none can spawn or finish a task), no policy
 * timer runs, and no result waits in a route buffer (an idle round
 * flushed them all). */
static bool may_wait_in_mpi(const bal_steal *s) {
  bool waits = s->outstanding || (s->dormant && bal__steal_tasks_open(s));
  return s->cfg.idle_wait && s->cfg.workers == 1 && waits && !s->policy->step && s->nactive == 0;
}

/* Block until one message comes, and act on it. */
static int wait_in_mpi(bal_steal *s) {
  int src, tag;
  void *buf;
  size_t len;
  int rc = bal__tp_wait_msg(&s->tp, &src, &tag, &buf, &len);
  if (rc <= 0) return rc;
  return dispatch(s, src, tag, buf, len);
}

static int poll_loop(bal_steal *s) {
  s->idle_nap = 0;
  while (s->phase != BAL__STEAL_DONE) {
    int act = progress_once(s);
    if (act < 0) return act;
    pthread_mutex_lock(&s->mu);
    bal__steal_task t;
    bool got = bal__steal_q_pop_back(s, &t);
    pthread_mutex_unlock(&s->mu);
    if (got || act) s->idle_nap = 0;
    if (got) {
      bal__steal_run_task(&s->wk[0], &t);
      continue;
    }
    if (!act) {
      int64_t a = bal__now_ns();
      if (may_wait_in_mpi(s)) {
        int rc = wait_in_mpi(s);
        if (rc < 0) return rc;
      } else {
        int64_t nap = idle_nap(s);
        if (nap > 0 && s->cfg.workers > 1) {
          /* Another worker may spawn a task for this thread, or finish one
           * (a result to send home; the worker, idle now, wants this thread
           * to steal for it) at any moment: wait for its signal (prog_cv,
           * spawn.c and exec.c) rather than sleep through it. */
          pthread_mutex_lock(&s->mu);
          if (bal__steal_q_size(s) == 0 && s->ndone == 0) wait_ns(&s->prog_cv, &s->mu, nap);
          pthread_mutex_unlock(&s->mu);
        } else if (nap > 0) {
          bal__sleep_ns(nap);
        }
      }
      if (bal__steal_tasks_open(s)) {
        int64_t b = bal__now_ns();
        pthread_mutex_lock(&s->mu);
        s->st.idle_s += (double)(b - a) * 1e-9;
        pthread_mutex_unlock(&s->mu);
        if (s->cfg.trace)
          s->cfg.trace(s->cfg.trace_arg, BAL_STEAL_EV_IDLE, bal__steal_secs(s, a),
                       bal__steal_secs(s, b), -1);
      }
    }
  }
  return BAL_OK;
}

/* Stop the worker threads started from `first` on, and wait for them. */
static void stop_workers(bal_steal *s, int first) {
  pthread_mutex_lock(&s->mu);
  s->stop = true;
  pthread_cond_broadcast(&s->work_cv);
  pthread_mutex_unlock(&s->mu);
  for (int i = first; i < s->cfg.workers; i++)
    if (s->wk[i].started) {
      pthread_join(s->wk[i].th, NULL);
      s->wk[i].started = false;
    }
}

/* Start worker threads first .. cfg.workers - 1; BAL_ESYS (and none left
 * running) if one cannot be created. */
static int start_workers(bal_steal *s, int first) {
  for (int i = first; i < s->cfg.workers; i++) {
    if (pthread_create(&s->wk[i].th, NULL, bal__steal_worker_main, &s->wk[i]) != 0) {
      stop_workers(s, first);
      return BAL_ESYS;
    }
    s->wk[i].started = true;
  }
  return BAL_OK;
}

static int run_poll(bal_steal *s) {
  int rc = start_workers(s, 1);
  if (rc != BAL_OK) return rc;
  rc = poll_loop(s);
  stop_workers(s, 1);
  return rc;
}

static int run_thread(bal_steal *s) {
  int rc = start_workers(s, 0);
  if (rc != BAL_OK) return rc;
  while (s->phase != BAL__STEAL_DONE) {
    int act = progress_once(s);
    if (act < 0) {
      rc = act;
      break;
    }
    if (!act) {
      pthread_mutex_lock(&s->mu);
      if (s->ndone == 0 && s->cfg.poll_interval_s > 0)
        wait_ns(&s->prog_cv, &s->mu, (int64_t)(s->cfg.poll_interval_s * 1e9));
      pthread_mutex_unlock(&s->mu);
    }
  }
  stop_workers(s, 0);
  return rc;
}

/* The run's workers and their result buffers; BAL_ENOMEM. */
static int alloc_workers(bal_steal *s, size_t max_out) {
  s->wk = calloc((size_t)s->cfg.workers, sizeof *s->wk);
  if (!s->wk) return BAL_ENOMEM;
  for (int i = 0; i < s->cfg.workers; i++) {
    s->wk[i].s = s;
    s->wk[i].index = i;
    if (!(s->wk[i].scratch = malloc(max_out ? max_out : 1))) return BAL_ENOMEM;
  }
  return BAL_OK;
}

static void free_workers(bal_steal *s) {
  for (int i = 0; s->wk && i < s->cfg.workers; i++) {
    free(s->wk[i].scratch);
    free(s->wk[i].whole);
  }
  free(s->wk);
  s->wk = NULL;
}

int bal_steal_run(bal_steal *s, bal_steal_fn fn, size_t max_out, void *arg) {
  if (!s || !fn || max_out >= (size_t)INT_MAX - 64) return BAL_EINVAL;
  if (s->running) return BAL_EBUSY;
  if (s->ran) bal__steal_new_phase(s);
  int rc = BAL_ENOMEM;
  int64_t n = s->own_n;
  size_t nn = (size_t)(n ? n : 1);
  s->res_data = calloc(nn, sizeof *s->res_data);
  s->res_len = calloc(nn, sizeof *s->res_len);
  s->res_status = calloc(nn, sizeof *s->res_status);
  s->res_have = calloc(nn, 1);
  int wrc = alloc_workers(s, max_out);
  pthread_mutex_lock(&s->mu);
  int qrc = bal__steal_q_reserve(s, (size_t)n);
  pthread_mutex_unlock(&s->mu);
  if (!s->res_data || !s->res_len || !s->res_status || !s->res_have || wrc || qrc) {
    /* Every rank must take part in the termination waves; a rank that
     * cannot even start reports the error, the others would wait:
     * MPI_Abort is the application's call, so fail before any message is
     * sent. */
    free_workers(s);
    bal__steal_free_results(s);
    return rc;
  }
  /* After a run, wait until every rank has left it: one released from its
   * final barrier would otherwise send this run's first messages (a wave
   * report, results forwarded through the overlay, counted by Mattern's
   * counters) to ranks still in that barrier, which would take them for
   * the old run's (a wave report there fails the run with BAL_EMPI). */
  if (s->tp.epoch > 0 && (rc = bal__tp_sync(&s->tp)) != BAL_OK) {
    free_workers(s);
    bal__steal_free_results(s);
    return rc;
  }
  memset(&s->st, 0, sizeof s->st);
  bal__tp_reset_stats(&s->tp);
  s->st.tasks_own = n;
  /* The peers a rank may ask: overlay neighbours, or everyone when a
   * stealing policy has no overlay. */
  int peers = s->ov ? s->ov_degree : (s->policy->steals ? s->size - 1 : 0);
  /* The policy's start may be collective (sharing forms its groups). */
  if (s->policy->start && (rc = s->policy->start(s, &peers)) != BAL_OK) {
    if (s->policy->end) s->policy->end(s);
    free_workers(s);
    bal__steal_free_results(s);
    return rc;
  }
  s->st.overlay_degree = peers;
  /* Own tasks in order: the owner pops the back, thieves take the front. */
  for (int64_t i = 0; i < n; i++)
    bal__steal_q_push_back(s, (bal__steal_task){s->rank, 0, i, s->own_len[i], s->own_in[i]});
  s->fn = fn;
  s->max_out = max_out;
  s->arg = arg;
  s->own_home = 0;
  s->phase = BAL__STEAL_WORKING;
  s->outstanding = false;
  s->backoff = 0;
  s->stop = false;
  s->busy = 0;
  s->err = 0;
  bal__steal_term_start(s);
  bal__steal_ll_start(s);
  s->running = true;
  s->t0 = bal__now_ns();
  s->next_steal = s->t0;
  rc = s->mode == BAL_STEAL_PROGRESS_THREAD ? run_thread(s) : run_poll(s);
  if (rc == BAL_OK) rc = bal__tp_wait_sends(&s->tp);
  int64_t t1 = bal__now_ns();
  s->st.run_s = (double)(t1 - s->t0) * 1e-9;
  s->st.messages_sent = s->tp.messages;
  s->st.bytes_sent = (size_t)s->tp.bytes;
  s->st.peers_contacted = s->tp.npeers;
  free_workers(s);
  bal__steal_cb_clear(s); /* left over only after an error */
  if (s->policy->end) s->policy->end(s); /* what the policy made for this run */
  pthread_mutex_lock(&s->mu);
  bal__steal_q_clear(s);
  for (size_t i = 0; i < s->ndone; i++) free(s->done[i].data);
  s->ndone = 0;
  pthread_mutex_unlock(&s->mu);
  s->running = false;
  s->ran = true;
  return rc;
}
