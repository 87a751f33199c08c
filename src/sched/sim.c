/* The simulator: an event loop over a trace. Arrivals are queued at their
 * submit time, completions come from a heap of events at the time each
 * running job's remaining work runs out at its current rate, and after the
 * events of each instant the policy's pass runs through the engine
 * (engine.c), as the public decision step runs it (state.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sim.h"

/* Make room for one more event, doubling from 64: the heap holds the live
 * event of each running job plus stale ones not yet popped, far fewer than
 * the bound in sched.h in practice. On failure record BAL_ENOMEM (the loop
 * stops there). */
static bool heap_reserve(bal__sched_sim *s) {
  if (s->nheap < s->capheap) return true;
  size_t cap = s->capheap ? 2 * s->capheap : 64;
  if (cap > SIZE_MAX / sizeof *s->heap) {
    s->rc = BAL_ENOMEM;
    return false;
  }
  event *h = realloc(s->heap, cap * sizeof *h);
  if (!h) {
    s->rc = BAL_ENOMEM;
    return false;
  }
  s->heap = h;
  s->capheap = cap;
  return true;
}

static void heap_push(bal__sched_sim *s, double t, int32_t j) {
  if (!heap_reserve(s)) return;
  event e = {t, j, s->jobs[j].gen};
  size_t i = s->nheap++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (s->heap[p].t <= t) break;
    s->heap[i] = s->heap[p];
    i = p;
  }
  s->heap[i] = e;
}

static event heap_pop(bal__sched_sim *s) {
  event top = s->heap[0], last = s->heap[--s->nheap];
  size_t i = 0, n = s->nheap;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && s->heap[c + 1].t < s->heap[c].t) c++;
    if (s->heap[c].t >= last.t) break;
    s->heap[i] = s->heap[c];
    i = c;
  }
  if (n > 0) s->heap[i] = last;
  return top;
}

/* (Re)schedule j's completion at its current rate; older events go stale
 * and are dropped when they reach the top. The engine calls this (its
 * resched hook) once per start, and per mate selection at most three times
 * (the mate shrinks, the mate expands back when its guest ends, or the
 * guest expands when that mate ends first): at most 1 + 3 max_mates events
 * per job, as sched.h states. */
static void schedule_end(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  jb->gen++;
  heap_push(s, s->now + jb->work_left / jb->rate, j);
}

int bal__sched_loop(bal__sched_sim *s) {
  s->resched = schedule_end;
  int32_t next = 0;
  int64_t total = 2 * (int64_t)s->njobs, step = total / 100 + 1, shown = 0;
  while (s->rc == BAL_OK) {
    while (next < s->njobs && s->jobs[next].state == JOB_REJECTED) next++;
    double t = INFINITY;
    if (next < s->njobs) t = s->jobs[next].submit;
    if (s->nheap > 0 && s->heap[0].t < t) t = s->heap[0].t;
    if (t == INFINITY) break;
    s->now = t;
    while (s->nheap > 0 && s->heap[0].t <= t) {
      event e = heap_pop(s);
      if (e.gen != s->jobs[e.job].gen || s->jobs[e.job].state != JOB_RUNNING) continue;
      bal__sched_finish(s, e.job);
      s->events++;
    }
    for (; next < s->njobs && s->jobs[next].submit <= t; next++) {
      if (s->jobs[next].state == JOB_REJECTED) continue;
      bal__sched_enqueue(s, next);
      s->events++;
    }
    if (s->nqueue > s->max_queue) s->max_queue = s->nqueue;
    /* the policy's pass, exactly as a caller of bal_sched_state_decide()
     * gets it; the resched hook has queued the completions of what it
     * started */
    int rc = bal__sched_decide(s);
    if (rc != BAL_OK) {
      s->rc = rc;
      break;
    }
    if (s->cfg->check_invariants && !bal__sched_check(s)) s->violations++;
    if (s->cfg->progress && s->events - shown >= step) {
      shown = s->events;
      s->cfg->progress(s->events, total, s->cfg->progress_arg);
    }
  }
  if (s->rc == BAL_OK && s->cfg->progress) s->cfg->progress(total, total, s->cfg->progress_arg);
  return s->rc;
}
