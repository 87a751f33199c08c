/* The scheduler's state, one implementation for the simulator (sim.c) and
 * the public decision step (state.c): queueing, starting and ending jobs,
 * node accounting, progress rates of shrunk jobs (runtime models),
 * predicted ends and time limits (sched.h's rule), and decide(), which runs
 * the policy and records what it started. The policy decides what starts;
 * this file decides what that does. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

double bal__sched_share_rate(int64_t cores, int64_t demand) {
  return cores >= demand ? 1.0 : (double)cores / (double)demand;
}

void bal__sched_job_init(bal__sched_sim *s, int32_t j, int64_t procs, int64_t nodes) {
  const bal_sched_config *cfg = s->cfg;
  sjob *jb = &s->jobs[j];
  jb->nodes = nodes > 0 ? nodes : (procs + s->cpn - 1) / s->cpn;
  int64_t per_node = (procs + jb->nodes - 1) / jb->nodes;
  jb->demand = per_node < s->cpn && cfg->core_demand == BAL_SCHED_DEMAND_PROCS ? per_node : s->cpn;
  /* As a mate it keeps a core per rank on each node, as the node manager
   * does (ballast/node.h); the log does not say how many ranks that is. */
  int64_t ranks = cfg->ranks_per_node == 0 || cfg->ranks_per_node > per_node
                      ? per_node
                      : cfg->ranks_per_node;
  jb->lend = bal_share_lend(s->cfg->sharing_factor, s->cpn, ranks);
  jb->state = JOB_PENDING;
  jb->start = jb->end = jb->reservation = -1;
  jb->guest = jb->host_next = jb->mate_head = -1;
  jb->run_pos = jb->bprev = jb->bnext = -1;
  if (s->nhead) s->nhead[j] = s->ntail[j] = -1;
}

void bal__sched_enqueue(bal__sched_sim *s, int32_t j) {
  /* by submit time, after equal ones: a log's arrivals append at the end */
  double sub = s->jobs[j].submit;
  int32_t k = s->nqueue;
  while (k > 0 && s->jobs[s->queue[k - 1]].submit > sub) k--;
  memmove(s->queue + k + 1, s->queue + k, (size_t)(s->nqueue - k) * sizeof *s->queue);
  s->queue[k] = j;
  s->nqueue++;
  s->jobs[j].state = JOB_WAITING;
}

void bal__sched_dequeue(bal__sched_sim *s, int32_t j) {
  int32_t k = 0;
  while (k < s->nqueue && s->queue[k] != j) k++;
  if (k == s->nqueue) return;
  memmove(s->queue + k, s->queue + k + 1, (size_t)(s->nqueue - k - 1) * sizeof *s->queue);
  s->nqueue--;
  s->jobs[j].state = JOB_DONE;
}

static void resched(bal__sched_sim *s, int32_t j) {
  if (s->resched) s->resched(s, j);
}

/* Bring j's remaining work up to now (before its rate changes). */
static void catch_up(bal__sched_sim *s, sjob *jb) {
  jb->work_left -= jb->rate * (s->now - jb->last);
  if (jb->work_left < 0) jb->work_left = 0;
  jb->last = s->now;
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

static int64_t job_id(const bal__sched_sim *s, int32_t j) { return s->ids ? s->ids[j] : j; }

/* A new decision for j; decide() reserved room for it. */
static bal_sched_decision *record(bal__sched_sim *s, int32_t j, bal_sched_decision_kind kind) {
  bal_sched_decision *d = &s->dec.d[s->dec.n++];
  d->kind = kind;
  d->id = job_id(s, j);
  d->time_limit = s->jobs[j].limit;
  d->nodes = NULL;
  d->nnodes = s->jobs[j].nodes;
  d->nmates = 0;
  return d;
}

/* Start j statically, on the given free nodes or (NULL) the state's choice. */
static void start_static_on(bal__sched_sim *s, int32_t j, const int64_t *which) {
  sjob *jb = &s->jobs[j];
  begin(s, j, 1.0);
  s->free_nodes -= jb->nodes;
  if (s->node_next) bal__sched_nodes_take(s, j, jb->nodes, which);
  jb->limit = jb->req;
  jb->pred_end = s->now + jb->req;
  jb->psd = (jb->pred_end - jb->submit) / fmax(1.0, jb->req);
  bal__sched_run_insert(s, j);
  if (s->policy->sharing && shareable(jb)) bal__sched_bucket_add(s, j);
  resched(s, j);
  record(s, j, BAL_SCHED_START_STATIC);
  if (s->node_next) s->dec.nnodes += bal__sched_nodes_append(s, j, s->dec.nodes + s->dec.nnodes);
}

void bal__sched_start_static(bal__sched_sim *s, int32_t j) { start_static_on(s, j, NULL); }

void bal__sched_start_static_on(bal__sched_sim *s, int32_t j, const int64_t *nodes) {
  start_static_on(s, j, nodes);
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
    resched(s, mates[i]);
  }
  g->rate = guest_rate(s, g);
  /* sched.h's rule: the guest's limit is its request at the worst-served
   * node's speed; each mate's grows by what it loses over that time */
  g->limit = g->req / guest_predicted_rate(s, g);
  g->pred_end = s->now + g->limit;
  g->psd = (g->pred_end - g->submit) / fmax(1.0, g->req);
  bal__sched_run_insert(s, j);
  for (int i = 0; i < nmates; i++) predict(s, mates[i]);
  resched(s, j);
  bal_sched_decision *d = record(s, j, BAL_SCHED_START_GUEST);
  d->nmates = nmates;
  for (int i = 0; i < nmates; i++) {
    sjob *m = &s->jobs[mates[i]];
    double ext = g->limit * (1.0 - m->rate);
    m->limit += ext;
    d->mates[i] = (bal_sched_mate_decision){
        .id = job_id(s, mates[i]), .cores_lent = m->lend, .slowdown = m->psd, .extension = ext};
    if (s->node_next)
      s->dec.nnodes += bal__sched_nodes_append(s, mates[i], s->dec.nodes + s->dec.nnodes);
  }
}

void bal__sched_finish(bal__sched_sim *s, int32_t j) {
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
    if (s->node_next) bal__sched_nodes_pass(s, j, gi);
    catch_up(s, g);
    g->rate = guest_rate(s, g);
    predict(s, gi);
    resched(s, gi);
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
      resched(s, m);
      if (s->policy->sharing && shareable(mb)) bal__sched_bucket_add(s, m);
      m = next;
    }
    jb->mate_head = -1;
    s->free_nodes += jb->full_nodes;
    if (s->node_next) bal__sched_nodes_release(s, j);
  } else {
    s->free_nodes += jb->nodes;
    if (s->node_next) bal__sched_nodes_release(s, j);
  }
}

/* Room for n more decisions and nn more node numbers. */
static int reserve(bal__sched_decisions *dc, int64_t n, int64_t nn) {
  if (dc->cap < n) {
    int64_t cap = dc->cap ? dc->cap : 16;
    while (cap < n) cap *= 2;
    bal_sched_decision *d = realloc(dc->d, (size_t)cap * sizeof *d);
    if (!d) return BAL_ENOMEM;
    dc->d = d;
    dc->cap = cap;
  }
  if (dc->capnodes < nn) {
    int64_t *p = realloc(dc->nodes, (size_t)nn * sizeof *p);
    if (!p) return BAL_ENOMEM;
    dc->nodes = p;
    dc->capnodes = nn;
  }
  return BAL_OK;
}

int bal__sched_decisions_reserve(bal__sched_sim *s, int64_t n) {
  /* a node appears in at most two decisions of one pass: a job started on
   * it, then a guest of that job */
  s->dec.n = s->dec.nnodes = 0;
  return reserve(&s->dec, n, s->node_next ? 2 * s->nodes : 0);
}

void bal__sched_decisions_link(bal__sched_sim *s) {
  int64_t off = 0;
  for (int64_t i = 0; s->node_next && i < s->dec.n; i++) {
    s->dec.d[i].nodes = s->dec.nodes + off;
    off += s->dec.d[i].nnodes;
  }
}

int bal__sched_decide(bal__sched_sim *s) {
  /* at most one decision per waiting job, one static start per free node,
   * and one guest per mate (a running job, or one started in this pass) */
  int64_t most = s->free_nodes + (s->policy->sharing ? s->free_nodes + s->nrun : 0);
  int rc = bal__sched_decisions_reserve(s, most < s->nqueue ? most : s->nqueue);
  if (rc != BAL_OK) return rc;
  s->policy->schedule(s);
  int32_t k = 0;
  for (int32_t i = 0; i < s->nqueue; i++)
    if (s->jobs[s->queue[i]].state == JOB_WAITING) s->queue[k++] = s->queue[i];
  s->nqueue = k;
  bal__sched_decisions_link(s);
  return BAL_OK;
}

bool bal__sched_check(const bal__sched_sim *s) {
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
  return ok && held + s->free_nodes == s->nodes;
}
