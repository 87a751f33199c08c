/* Termination, in two non-blocking barriers (a tree barrier over
 * point-to-point messages, see transport.c):
 *  1. a rank enters barrier 1 once the results of all its own tasks are
 *     home. It keeps stealing, running and forwarding afterwards: tasks it
 *     still receives belong to owners that have not entered yet. Since
 *     tasks cannot create tasks, barrier 1 completes only when every result
 *     of the run is at its owner, hence no task and no result remains.
 *  2. steal requests may still be in flight then. Each rank stops asking,
 *     waits for the reply to its own outstanding request (answering others'
 *     requests with empty replies) and enters barrier 2; when it completes
 *     every request has been answered, so no message is in flight and the
 *     remaining sends can be completed with MPI_Wait. Under the sharing
 *     policy a rank also waits until the arrival of every token it passed
 *     on is acknowledged (sharing.c).
 * The "stops asking" and "empty replies" halves live in theft.c (bal__steal_tasks_open() false). */
#include <stdbool.h>

#include "steal_internal.h"
#include "transport.h"

int bal__steal_term_step(bal_steal *s) {
  int act = 0, rc;
  int done_flag = 0;
  switch (s->phase) {
  case BAL__STEAL_WORKING:
    if (s->own_home == s->own_n) {
      if ((rc = bal__tp_barrier_start(&s->tp)) != BAL_OK) return rc;
      s->phase = BAL__STEAL_BARRIER1;
      act = 1;
    }
    break;
  case BAL__STEAL_BARRIER1:
    if ((rc = bal__tp_barrier_test(&s->tp, &done_flag)) != BAL_OK) return rc;
    if (done_flag) {
      s->phase = BAL__STEAL_DRAINING;
      pthread_mutex_lock(&s->mu);
      s->stop = true;
      pthread_cond_signal(&s->work_cv);
      pthread_mutex_unlock(&s->mu);
      act = 1;
    }
    break;
  case BAL__STEAL_DRAINING:
    if (!s->outstanding && s->token_unacked == 0) {
      if ((rc = bal__tp_barrier_start(&s->tp)) != BAL_OK) return rc;
      s->phase = BAL__STEAL_BARRIER2;
      act = 1;
    }
    break;
  case BAL__STEAL_BARRIER2:
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
