/* The public decision step (bal_sched_state_*): the engine of the
 * simulator (engine.c) behind job ids, argument checks and node identities.
 * Job slots are reused after a job ends, so memory follows the jobs in the
 * state, not the jobs ever seen; ids map to slots through a sorted array
 * (binary search; a live scheduler's ids mostly grow, so inserts land at
 * the end). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct bal_sched_state {
  bal__sched_sim s;
  bal_sched_config cfg; /* the engine's s.cfg points here */
  int64_t *map_id;      /* ids of the jobs in the state, ascending */
  int32_t *map_slot;    /* their slots */
  int32_t nmap;
  int32_t *free_slots;  /* slots of ended jobs, reused first */
  int32_t nfree;
  int32_t cap;          /* slots allocated */
  int64_t *scratch;     /* bal_sched_state_job_nodes() answers, nodes entries */
};

int bal_sched_request_init(bal_sched_request *rq) {
  if (!rq) return BAL_EINVAL;
  memset(rq, 0, sizeof *rq);
  rq->id = -1;
  rq->procs = 1;
  return BAL_OK;
}

/* Position of id in the map, or where it would go (*found false). */
static int32_t map_find(const bal_sched_state *st, int64_t id, bool *found) {
  int32_t lo = 0, hi = st->nmap;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (st->map_id[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  *found = lo < st->nmap && st->map_id[lo] == id;
  return lo;
}

static int32_t slot_of(const bal_sched_state *st, int64_t id) {
  bool found;
  int32_t pos = map_find(st, id, &found);
  return found ? st->map_slot[pos] : -1;
}

/* Grow one array to cap elements of size sz; false (unchanged) on failure. */
static bool grow(void **p, size_t cap, size_t sz) {
  void *q = realloc(*p, cap * sz);
  if (!q) return false;
  *p = q;
  return true;
}

/* Room for one more job: every per-slot array holds cap entries. */
static int reserve_slot(bal_sched_state *st) {
  bal__sched_sim *s = &st->s;
  if (st->nfree > 0 || s->njobs < st->cap) return BAL_OK;
  if (st->cap >= (int32_t)BAL_SCHED_MAX_JOBS / 2) return BAL_ENOMEM;
  size_t cap = st->cap ? 2 * (size_t)st->cap : 64;
  /* each array keeps its old contents if a later one fails: harmless */
  if (!grow((void **)&s->jobs, cap, sizeof *s->jobs) ||
      !grow((void **)&s->queue, cap, sizeof *s->queue) ||
      !grow((void **)&s->run, cap, sizeof *s->run) ||
      !grow((void **)&s->ids, cap, sizeof *s->ids) ||
      !grow((void **)&s->nhead, cap, sizeof *s->nhead) ||
      !grow((void **)&s->ntail, cap, sizeof *s->ntail) ||
      !grow((void **)&st->map_id, cap, sizeof *st->map_id) ||
      !grow((void **)&st->map_slot, cap, sizeof *st->map_slot) ||
      !grow((void **)&st->free_slots, cap, sizeof *st->free_slots))
    return BAL_ENOMEM;
  st->cap = (int32_t)cap;
  return BAL_OK;
}

int bal_sched_state_create(const bal_sched_config *cfg, bal_sched_state **out) {
  if (!cfg || !out) return BAL_EINVAL;
  bal_sched_state *st = calloc(1, sizeof *st);
  if (!st) return BAL_ENOMEM;
  st->cfg = *cfg;
  st->cfg.progress = NULL;
  int rc = bal__sched_init(&st->s, &st->cfg);
  bal__sched_sim *s = &st->s;
  if (rc == BAL_OK) st->cfg.policy = s->policy->name; /* the caller's string may go */
  /* node identities: 32-bit node numbers, as the simulator's limits say */
  size_t n = (size_t)cfg->nodes;
  if (rc == BAL_OK && n > SIZE_MAX / sizeof(int64_t)) rc = BAL_ENOMEM;
  if (rc == BAL_OK) rc = bal__sched_alloc_sharing(s);
  if (rc == BAL_OK) {
    s->node_next = malloc(n * sizeof *s->node_next);
    s->node_prev = malloc(n * sizeof *s->node_prev);
    s->node_owner = malloc(n * sizeof *s->node_owner);
    st->scratch = malloc(n * sizeof *st->scratch);
    if (!s->node_next || !s->node_prev || !s->node_owner || !st->scratch) rc = BAL_ENOMEM;
  }
  if (rc == BAL_OK) rc = reserve_slot(st);
  if (rc != BAL_OK) {
    bal_sched_state_destroy(st);
    return rc;
  }
  for (size_t v = 0; v < n; v++) {
    s->node_next[v] = v + 1 < n ? (int32_t)(v + 1) : -1;
    s->node_prev[v] = (int32_t)v - 1;
    s->node_owner[v] = -1;
  }
  s->free_head = 0;
  s->free_nodes = s->nodes;
  s->now = -INFINITY;
  *out = st;
  return BAL_OK;
}

void bal_sched_state_destroy(bal_sched_state *st) {
  if (!st) return;
  bal__sched_release(&st->s);
  free(st->map_id);
  free(st->map_slot);
  free(st->free_slots);
  free(st->scratch);
  free(st);
}

/* The job's node count, or -1 if the request is malformed. */
static int64_t request_nodes(const bal_sched_state *st, const bal_sched_request *rq) {
  int64_t cpn = st->s.cpn;
  if (rq->id < 0 || !isfinite(rq->submit) || rq->procs < 1 || rq->nodes < 0 ||
      !isfinite(rq->req_time) || rq->req_time < 0)
    return -1;
  if (rq->nodes == 0) return rq->procs > INT64_MAX - cpn ? -1 : (rq->procs + cpn - 1) / cpn;
  return (rq->procs - 1) / rq->nodes + 1 <= cpn ? rq->nodes : -1;
}

int bal_sched_state_submit(bal_sched_state *st, const bal_sched_request *rq) {
  if (!st || !rq) return BAL_EINVAL;
  bal__sched_sim *s = &st->s;
  int64_t nodes = request_nodes(st, rq);
  if (nodes < 0) return BAL_EINVAL;
  bool found;
  int32_t pos = map_find(st, rq->id, &found);
  if (found) return BAL_EINVAL;
  if (nodes > s->nodes) return BAL_ERANGE;
  int rc = reserve_slot(st);
  if (rc != BAL_OK) return rc;
  int32_t j = st->nfree > 0 ? st->free_slots[--st->nfree] : s->njobs++;
  sjob *jb = &s->jobs[j];
  memset(jb, 0, sizeof *jb);
  jb->submit = rq->submit;
  jb->req = rq->req_time;
  jb->runtime = rq->req_time; /* work is counted in requested seconds */
  jb->malleable = rq->malleable;
  bal__sched_job_init(s, j, rq->procs, nodes);
  s->ids[j] = rq->id;
  memmove(st->map_id + pos + 1, st->map_id + pos, (size_t)(st->nmap - pos) * sizeof *st->map_id);
  memmove(st->map_slot + pos + 1, st->map_slot + pos,
          (size_t)(st->nmap - pos) * sizeof *st->map_slot);
  st->map_id[pos] = rq->id;
  st->map_slot[pos] = j;
  st->nmap++;
  bal__sched_enqueue(s, j);
  return BAL_OK;
}

static bool valid_time(const bal_sched_state *st, double t) {
  return isfinite(t) && t >= st->s.now;
}

/* Find a waiting job for a start call: its slot, or a negative code. */
static int32_t waiting_slot(const bal_sched_state *st, int64_t id, double t) {
  if (!valid_time(st, t)) return BAL_EINVAL;
  int32_t j = slot_of(st, id);
  if (j < 0) return BAL_ENOTFOUND;
  return st->s.jobs[j].state == JOB_WAITING ? j : BAL_EINVAL;
}

int bal_sched_state_start(bal_sched_state *st, int64_t id, double t, const int64_t *nodes,
                          int64_t nnodes) {
  if (!st || (!nodes && nnodes > 0)) return BAL_EINVAL;
  bal__sched_sim *s = &st->s;
  int32_t j = waiting_slot(st, id, t);
  if (j < 0) return j;
  if (nnodes != s->jobs[j].nodes) return BAL_EINVAL;
  int64_t i = 0;
  for (; i < nnodes; i++) { /* free, and (marked as we go) distinct */
    if (nodes[i] < 0 || nodes[i] >= s->nodes || s->node_owner[nodes[i]] != -1) break;
    s->node_owner[nodes[i]] = -2;
  }
  for (int64_t k = 0; k < i; k++) s->node_owner[nodes[k]] = -1;
  if (i < nnodes) return BAL_EINVAL;
  int rc = bal__sched_decisions_reserve(s, 1);
  if (rc != BAL_OK) return rc;
  s->now = t;
  bal__sched_dequeue(s, j);
  bal__sched_start_static_on(s, j, nodes);
  bal__sched_decisions_link(s);
  return BAL_OK;
}

int bal_sched_state_start_guest(bal_sched_state *st, int64_t id, double t, const int64_t *mates,
                                int64_t nmates) {
  if (!st || !mates || nmates < 1 || nmates > st->cfg.max_mates) return BAL_EINVAL;
  bal__sched_sim *s = &st->s;
  int32_t j = waiting_slot(st, id, t);
  if (j < 0) return j;
  if (!s->jobs[j].malleable) return BAL_EINVAL;
  int32_t m[BAL_SCHED_MAX_MATES];
  int64_t sum = 0;
  for (int64_t i = 0; i < nmates; i++) {
    m[i] = slot_of(st, mates[i]);
    if (m[i] < 0) return BAL_ENOTFOUND;
    const sjob *mb = &s->jobs[m[i]];
    if (mb->state != JOB_RUNNING || !mb->malleable || mb->lend < 1 || mb->guest >= 0 ||
        mb->nmates > 0)
      return BAL_EINVAL;
    for (int64_t k = 0; k < i; k++)
      if (m[k] == m[i]) return BAL_EINVAL;
    sum += mb->nodes;
  }
  if (sum != s->jobs[j].nodes) return BAL_EINVAL;
  int rc = bal__sched_decisions_reserve(s, 1);
  if (rc != BAL_OK) return rc;
  s->now = t;
  bal__sched_dequeue(s, j);
  bal__sched_start_guest(s, j, m, (int)nmates);
  bal__sched_decisions_link(s);
  return BAL_OK;
}

int bal_sched_state_end(bal_sched_state *st, int64_t id, double t) {
  if (!st || !valid_time(st, t)) return BAL_EINVAL;
  bal__sched_sim *s = &st->s;
  bool found;
  int32_t pos = map_find(st, id, &found);
  if (!found) return BAL_ENOTFOUND;
  int32_t j = st->map_slot[pos];
  s->now = t;
  if (s->jobs[j].state == JOB_RUNNING) bal__sched_finish(s, j);
  else bal__sched_dequeue(s, j);
  s->dec.n = 0; /* earlier decisions may name this slot's nodes: not valid past a change */
  memmove(st->map_id + pos, st->map_id + pos + 1, (size_t)(st->nmap - pos - 1) * sizeof *st->map_id);
  memmove(st->map_slot + pos, st->map_slot + pos + 1,
          (size_t)(st->nmap - pos - 1) * sizeof *st->map_slot);
  st->nmap--;
  st->free_slots[st->nfree++] = j;
  return BAL_OK;
}

int bal_sched_state_decide(bal_sched_state *st, double t, const bal_sched_decision **out,
                           int64_t *n) {
  if (!st || !out || !n || !valid_time(st, t)) return BAL_EINVAL;
  bal__sched_sim *s = &st->s;
  double before = s->now;
  s->now = t;
  int rc = bal__sched_decide(s);
  if (rc != BAL_OK) {
    s->now = before;
    return rc;
  }
  *out = s->dec.n > 0 ? s->dec.d : NULL;
  *n = s->dec.n;
  return BAL_OK;
}

int bal_sched_state_job(const bal_sched_state *st, int64_t id, bal_sched_job_info *out) {
  if (!st || !out) return BAL_EINVAL;
  const bal__sched_sim *s = &st->s;
  int32_t j = slot_of(st, id);
  if (j < 0) return BAL_ENOTFOUND;
  const sjob *jb = &s->jobs[j];
  bool running = jb->state == JOB_RUNNING;
  memset(out, 0, sizeof *out);
  out->status = running ? BAL_SCHED_RUNNING : BAL_SCHED_WAITING;
  out->submit = jb->submit;
  out->start = running ? jb->start : -1;
  out->time_limit = running ? jb->limit : jb->req;
  out->predicted_end = running ? jb->pred_end : -1;
  out->predicted_slowdown = running ? jb->psd : NAN;
  out->rate = running ? jb->rate : 1.0;
  out->nodes = jb->nodes;
  out->guest = jb->guest >= 0 ? s->ids[jb->guest] : -1;
  for (int32_t m = running ? jb->mate_head : -1; m >= 0; m = s->jobs[m].host_next)
    out->mates[out->nmates++] = s->ids[m];
  out->full_nodes = running && jb->nmates > 0 ? jb->full_nodes : 0;
  out->malleable = jb->malleable;
  return BAL_OK;
}

int bal_sched_state_job_nodes(const bal_sched_state *st, int64_t id, const int64_t **nodes,
                              int64_t *n) {
  if (!st || !nodes || !n) return BAL_EINVAL;
  const bal__sched_sim *s = &st->s;
  int32_t j = slot_of(st, id);
  if (j < 0) return BAL_ENOTFOUND;
  const sjob *jb = &s->jobs[j];
  int64_t k = 0;
  if (jb->state == JOB_RUNNING) {
    for (int32_t m = jb->mate_head; m >= 0; m = s->jobs[m].host_next)
      k += bal__sched_nodes_append(s, m, st->scratch + k);
    k += bal__sched_nodes_append(s, j, st->scratch + k);
  }
  *nodes = st->scratch;
  *n = k;
  return BAL_OK;
}

int64_t bal_sched_state_free_nodes(const bal_sched_state *st) {
  return st ? st->s.free_nodes : BAL_EINVAL;
}
