/* The event-driven core: job arrivals and completions, node accounting,
 * progress rates of shrunk jobs (runtime models) and predicted ends. The
 * policy decides what starts; this file decides what that does. */
#include "sim.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

double bal__sched_share_rate(int64_t cores, int64_t demand) {
  return cores >= demand ? 1.0 : (double)cores / (double)demand;
}

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

/* Bring j's remaining work up to now (before its rate changes). */
static void catch_up(bal__sched_sim *s, sjob *jb) {
  jb->work_left -= jb->rate * (s->now - jb->last);
  if (jb->work_left < 0) jb->work_left = 0;
  jb->last = s->now;
}

/* (Re)schedule j's completion at its current rate; older events go stale
 * and are dropped when they reach the top. Pushes bound the heap: one per
 * start, and per mate selection at most three (the mate shrinks, the mate
 * expands back when its guest ends, or the guest expands when that mate
 * ends first): at most 1 + 3 max_mates per job, as sched.h states. */
static void schedule_end(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  jb->gen++;
  heap_push(s, s->now + jb->work_left / jb->rate, j);
}

static double done_work(const sjob *jb) { return jb->runtime - jb->work_left; }

/* A malleable job that can lend at least a core per node (ballast/node.h's
 * floor: it keeps one per rank) is a candidate mate. */
static bool shareable(const sjob *jb) { return jb->malleable && jb->lend >= 1; }

/* Worst-case (Eq. 6) progress rate of guest g: its least-served node, on
 * the mates still sharing (each lends its own count, sjob.lend). */
static double guest_predicted_rate(const bal__sched_sim *s, const sjob *g) {
  double f = 1.0;
  for (int32_t m = g->mate_head; m >= 0; m = s->jobs[m].host_next)
    f = fmin(f, bal__sched_share_rate(s->jobs[m].lend, g->demand));
  return f;
}

/* Predicted end from the requested time: the scheduler's view. */
static void predict(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  double rem = fmax(0.0, jb->req - done_work(jb)), pred;
  if (jb->nmates > 0) {
    pred = s->now + rem / guest_predicted_rate(s, jb);
  } else if (jb->guest >= 0) {
    double g_end = s->jobs[jb->guest].pred_end, shared = fmax(0.0, g_end - s->now);
    pred = rem <= jb->rate * shared ? s->now + rem / jb->rate : g_end + rem - jb->rate * shared;
  } else {
    pred = s->now + rem;
  }
  bal__sched_run_set_pred(s, j, pred);
}

/* Actual progress rate of guest g under the configured runtime model. */
static double guest_rate(const bal__sched_sim *s, const sjob *g) {
  if (g->mate_head < 0) return 1.0;
  if (s->cfg->runtime_model == BAL_SCHED_WORST) return guest_predicted_rate(s, g);
  /* Eq. 5: the mean over its nodes of the cores it has / needs */
  double sum = (double)g->full_nodes;
  for (int32_t m = g->mate_head; m >= 0; m = s->jobs[m].host_next)
    sum += bal__sched_share_rate(s->jobs[m].lend, g->demand) * (double)s->jobs[m].nodes;
  return sum / (double)g->nodes;
}

static void begin(bal__sched_sim *s, int32_t j, double rate) {
  sjob *jb = &s->jobs[j];
  s->epoch++;
  jb->state = JOB_RUNNING;
  jb->start = s->now;
  jb->last = s->now;
  jb->work_left = jb->runtime;
  jb->rate = rate;
}

void bal__sched_start_static(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  begin(s, j, 1.0);
  s->free_nodes -= jb->nodes;
  jb->pred_end = s->now + jb->req;
  jb->psd = (jb->pred_end - jb->submit) / fmax(1.0, jb->req);
  bal__sched_run_insert(s, j);
  if (s->policy->sharing && shareable(jb)) bal__sched_bucket_add(s, j);
  schedule_end(s, j);
}

void bal__sched_start_guest(bal__sched_sim *s, int32_t j, const int32_t *mates, int nmates) {
  sjob *g = &s->jobs[j];
  begin(s, j, 1.0);
  g->nmates = nmates;
  g->full_nodes = 0;
  g->mate_head = -1;
  for (int i = nmates - 1; i >= 0; i--) {
    sjob *m = &s->jobs[mates[i]];
    catch_up(s, m);
    bal__sched_bucket_remove(s, mates[i]);
    m->guest = j;
    m->host_next = g->mate_head;
    g->mate_head = mates[i];
    m->rate = bal__sched_share_rate(s->cpn - m->lend, m->demand);
    m->times_mate++;
    schedule_end(s, mates[i]);
  }
  g->rate = guest_rate(s, g);
  g->pred_end = s->now + g->req / guest_predicted_rate(s, g);
  g->psd = (g->pred_end - g->submit) / fmax(1.0, g->req);
  bal__sched_run_insert(s, j);
  for (int i = 0; i < nmates; i++) predict(s, mates[i]);
  schedule_end(s, j);
  s->malleable_starts++;
  s->mate_selections += nmates;
}

static void finish(bal__sched_sim *s, int32_t j) {
  sjob *jb = &s->jobs[j];
  s->epoch++;
  jb->state = JOB_DONE;
  jb->end = s->now;
  jb->work_left = 0;
  bal__sched_run_remove(s, j);
  bal__sched_bucket_remove(s, j);
  if (jb->guest >= 0) {
    /* A mate ends first: its nodes pass to the guest, which expands there. */
    int32_t gi = jb->guest;
    sjob *g = &s->jobs[gi];
    int32_t *link = &g->mate_head;
    while (*link != j) link = &s->jobs[*link].host_next;
    *link = jb->host_next;
    g->full_nodes += jb->nodes;
    catch_up(s, g);
    g->rate = guest_rate(s, g);
    predict(s, gi);
    schedule_end(s, gi);
    jb->guest = -1;
    /* the other mates' predictions depend on the guest's predicted end */
    for (int32_t m = g->mate_head; m >= 0; m = s->jobs[m].host_next) {
      catch_up(s, &s->jobs[m]);
      predict(s, m);
    }
  } else if (jb->nmates > 0) {
    /* A guest ends: its mates expand back; nodes it inherited are freed. */
    for (int32_t m = jb->mate_head; m >= 0;) {
      sjob *mb = &s->jobs[m];
      int32_t next = mb->host_next;
      catch_up(s, mb);
      mb->guest = -1;
      mb->host_next = -1;
      mb->rate = 1.0;
      predict(s, m);
      schedule_end(s, m);
      if (shareable(mb)) bal__sched_bucket_add(s, m);
      m = next;
    }
    jb->mate_head = -1;
    s->free_nodes += jb->full_nodes;
  } else {
    s->free_nodes += jb->nodes;
  }
}

/* Node conservation and sharing links, checked on request (tests). */
static void check(bal__sched_sim *s) {
  int64_t held = 0;
  bool ok = s->free_nodes >= 0;
  for (int32_t i = 0; i < s->nrun; i++) {
    const sjob *jb = &s->jobs[s->run[i]];
    ok = ok && jb->state == JOB_RUNNING && jb->start >= jb->submit;
    if (jb->nmates > 0) {
      int64_t shared = 0;
      for (int32_t m = jb->mate_head; m >= 0; m = s->jobs[m].host_next) {
        shared += s->jobs[m].nodes;
        ok = ok && s->jobs[m].state == JOB_RUNNING && s->jobs[m].guest == s->run[i];
      }
      ok = ok && shared + jb->full_nodes == jb->nodes;
      held += jb->full_nodes;
    } else {
      held += jb->nodes;
    }
  }
  ok = ok && held + s->free_nodes == s->nodes;
  if (!ok) s->violations++;
}

int bal__sched_loop(bal__sched_sim *s) {
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
      finish(s, e.job);
      s->events++;
    }
    for (; next < s->njobs && s->jobs[next].submit <= t; next++) {
      if (s->jobs[next].state == JOB_REJECTED) continue;
      s->jobs[next].state = JOB_WAITING;
      s->queue[s->nqueue++] = next;
      s->events++;
    }
    if (s->nqueue > s->max_queue) s->max_queue = s->nqueue;
    s->policy->schedule(s);
    int32_t k = 0;
    for (int32_t i = 0; i < s->nqueue; i++)
      if (s->jobs[s->queue[i]].state == JOB_WAITING) s->queue[k++] = s->queue[i];
    s->nqueue = k;
    if (s->cfg->check_invariants) check(s);
    if (s->cfg->progress && s->events - shown >= step) {
      shown = s->events;
      s->cfg->progress(s->events, total, s->cfg->progress_arg);
    }
  }
  if (s->rc == BAL_OK && s->cfg->progress) s->cfg->progress(total, total, s->cfg->progress_arg);
  return s->rc;
}
