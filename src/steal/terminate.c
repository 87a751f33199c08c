/* Termination with dynamic work: Mattern's four-counter method [Mattern
 * 1987] (message counting checked by two successive waves), then one
 * barrier.
 *
 * Basic messages are the ones that carry work: task messages with at
 * least one task (steal replies, a policy's pushes) and result messages; an
 * empty steal reply is a control message like the request it answers (idle
 * thieves keep exchanging those, and counting them would keep the counts
 * moving forever). Every rank counts those it
 * sent and received in this run (basic_sent, basic_recv; sends through
 * bal__steal_send_basic, receipts in run.c's progress loop). A rank is
 * passive when it holds no work: its queue is empty, no task is running on
 * any of its workers, and no result waits in its done list, its route
 * buffers or its callback queue (passive() below). Only a message can make
 * a passive rank active again.
 *
 * Waves. The ranks form a tree rooted at rank 0 in which rank r has the
 * children WAVE_FANOUT r + 1 .. WAVE_FANOUT r + WAVE_FANOUT. In wave k each rank, once it has its children's reports for wave k
 * and is passive, adds its counters to theirs and reports the sums (S, R) to
 * its parent; the root, on its own report, holds S_k and R_k and sends its
 * verdict down the tree, which starts wave k+1 or ends the detection.
 *
 * Invariant (the verdict). If S_k == R_{k-1}, no task and no result existed
 * anywhere when wave k-1 ended at the root (time t): every rank was passive
 * when it reported in wave k-1, and one that became active again before t
 * did so by receiving a basic message after its report, so R(t) > R_{k-1};
 * every report of wave k comes after t and counters only grow, so
 * S(t) <= S_k = R_{k-1} < R(t) <= S(t), a contradiction; and S(t) = R(t)
 * means no message was in flight. A terminated system stays terminated (a
 * passive rank sends no basic message), so the verdict is final. The
 * converse holds too: once everything is done, the next two waves see equal
 * counts, so detection follows termination within two waves.
 *
 * Then the old second phase: steal requests and a policy's control
 * messages (sharing's tokens; not counted) may still be in flight. Each
 * rank stops asking, waits for the reply to its own outstanding request
 * (answering others' requests with empty replies) and until its policy is
 * settled (its settled hook: sharing's tokens passed on from here are
 * acknowledged, sharing.c), then enters a non-blocking tree barrier
 * (transport.c); when it completes no message is in flight and the
 * remaining sends can be completed with MPI_Wait. The "stops asking" and
 * "empty replies" halves live in theft.c (bal__steal_tasks_open() false). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "steal_internal.h"
#include "transport.h"

/* Wide and shallow: a wave crosses the tree twice, and each hop waits for
 * an idle rank's next poll (up to backoff_max_s in POLL mode), so depth
 * costs more than a few more messages at each parent: 3 levels up to 585
 * ranks, 4 up to 4,681. */
#define WAVE_FANOUT 8

typedef struct wave_msg {
  int64_t wave;
  int64_t s, r; /* up: sums of the subtree; down: s = 1 if terminated */
} wave_msg;

static int first_child(const bal_steal *s) { return WAVE_FANOUT * s->rank + 1; }

static int parent(int r) { return (r - 1) / WAVE_FANOUT; }

static int nchildren(const bal_steal *s) {
  int64_t first = (int64_t)first_child(s), end = first + WAVE_FANOUT;
  if (end > s->size) end = s->size;
  return first < end ? (int)(end - first) : 0;
}

static bool passive(bal_steal *s) {
  pthread_mutex_lock(&s->mu);
  bool p = bal__steal_q_size(s) == 0 && s->busy == 0 && s->ndone == 0;
  pthread_mutex_unlock(&s->mu);
  return p && s->nactive == 0 && s->ncbq == 0;
}

static int send_wave(bal_steal *s, int dest, int tag, int64_t a, int64_t b) {
  wave_msg *m = malloc(sizeof *m);
  if (!m) return BAL_ENOMEM;
  *m = (wave_msg){s->wave, a, b};
  return bal__tp_send_ctl(&s->tp, dest, tag, m, sizeof *m);
}

bool bal__steal_is_basic(int tag, const void *buf, size_t len) {
  if (tag == BAL__STEAL_TAG_RESULTS) return true;
  if (tag != BAL__STEAL_TAG_TASKS && tag != BAL__STEAL_TAG_PUSH) return false;
  uint64_t cnt = 0; /* a task message starts with its task count (batch.c) */
  if (len >= sizeof cnt) memcpy(&cnt, buf, sizeof cnt);
  return cnt > 0;
}

int bal__steal_send_basic(bal_steal *s, int dest, int tag, void *buf, size_t len, size_t bulk) {
  int rc = bal__tp_send_msg(&s->tp, dest, tag, buf, len, bulk);
  if (rc == BAL_OK) s->basic_sent++;
  return rc;
}

void bal__steal_term_start(bal_steal *s) {
  s->basic_sent = s->basic_recv = 0;
  s->wave = 1;
  s->wave_children = 0;
  s->wave_reported = false;
  s->wave_s = s->wave_r = 0;
  s->wave_prev_r = -1;
}

/* The verdict of the current wave, at the root or arriving from the parent:
 * pass it to the children, then end detection or start the next wave. */
static int verdict(bal_steal *s, bool terminated) {
  int rc;
  for (int i = 0; i < nchildren(s); i++)
    if ((rc = send_wave(s, first_child(s) + i, BAL__STEAL_TAG_WAVE_DOWN, terminated, 0)) != BAL_OK)
      return rc;
  s->st.term_waves++;
  if (terminated) {
    s->phase = BAL__STEAL_DRAINING;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    return BAL_OK;
  }
  s->wave++;
  s->wave_children = 0;
  s->wave_reported = false;
  s->wave_s = s->wave_r = 0;
  return BAL_OK;
}

int bal__steal_term_handle(bal_steal *s, int src, int tag, const unsigned char *buf, size_t len) {
  wave_msg m;
  if (len != sizeof m || s->phase != BAL__STEAL_WORKING) return BAL_EMPI;
  memcpy(&m, buf, sizeof m);
  if (m.wave != s->wave) return BAL_EMPI; /* waves are sequential: see above */
  if (tag == BAL__STEAL_TAG_WAVE_UP) {
    if (src == 0 || parent(src) != s->rank || s->wave_children >= nchildren(s)) return BAL_EMPI;
    s->wave_children++;
    s->wave_s += m.s;
    s->wave_r += m.r;
    return BAL_OK;
  }
  if (s->rank == 0 || src != parent(s->rank) || !s->wave_reported) return BAL_EMPI;
  return verdict(s, m.s != 0);
}

/* This rank's report of the current wave, once it is due. */
static int report(bal_steal *s) {
  if (s->wave_reported || s->wave_children < nchildren(s) || !passive(s)) return 0;
  s->wave_reported = true;
  int64_t S = s->wave_s + s->basic_sent, R = s->wave_r + s->basic_recv;
  if (s->rank != 0) {
    int rc = send_wave(s, parent(s->rank), BAL__STEAL_TAG_WAVE_UP, S, R);
    return rc != BAL_OK ? rc : 1;
  }
  bool terminated = s->wave_prev_r >= 0 && S == s->wave_prev_r && S == R;
  s->wave_prev_r = R;
  int rc = verdict(s, terminated);
  return rc != BAL_OK ? rc : 1;
}

int bal__steal_term_step(bal_steal *s) {
  int act = 0, rc;
  int done_flag = 0;
  switch (s->phase) {
  case BAL__STEAL_WORKING:
    if ((rc = report(s)) < 0) return rc;
    act = rc;
    break;
  case BAL__STEAL_DRAINING:
    if (!s->outstanding && bal__steal_ll_settled(s) &&
        (!s->policy->settled || s->policy->settled(s))) {
      if ((rc = bal__tp_barrier_start(&s->tp)) != BAL_OK) return rc;
      s->phase = BAL__STEAL_BARRIER;
      act = 1;
    }
    break;
  case BAL__STEAL_BARRIER:
    if ((rc = bal__tp_barrier_test(&s->tp, &done_flag)) != BAL_OK) return rc;
    if (done_flag) {
      s->phase = BAL__STEAL_DONE;
      act = 1;
    }
    break;
  case BAL__STEAL_DONE: break;
  }
  return act;
}
