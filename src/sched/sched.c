/* Public entry points of the simulator: configuration, setting up the
 * simulation from a trace, and the result with its summary metrics. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "sim.h"

#define MAX_MATES 16

struct bal_sched_result {
  bal_sched_summary summary;
  bal_sched_job *jobs;
  size_t njobs;
};

int bal_sched_config_init(bal_sched_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->policy = "easy";
  cfg->max_mates = 2;
  cfg->max_slowdown = 10.0;
  cfg->sharing_factor = 0.5;
  cfg->runtime_model = BAL_SCHED_IDEAL;
  cfg->malleable_fraction = 1.0;
  cfg->seed = 1;
  return BAL_OK;
}

static bool valid(const bal_sched_config *c) {
  return c->nodes > 0 && c->nodes <= INT32_MAX && c->cores_per_node > 0 &&
         c->cores_per_node <= INT32_MAX && c->max_mates >= 1 && c->max_mates <= MAX_MATES &&
         c->max_slowdown > 0 && !isnan(c->max_slowdown) && c->sharing_factor > 0 &&
         c->sharing_factor < 1 &&
         (c->runtime_model == BAL_SCHED_IDEAL || c->runtime_model == BAL_SCHED_WORST) &&
         (c->core_demand == BAL_SCHED_DEMAND_PROCS || c->core_demand == BAL_SCHED_DEMAND_NODE) &&
         c->malleable_fraction >= 0 && c->malleable_fraction <= 1;
}

static void release(bal__sim *s) {
  free(s->jobs);
  free(s->queue);
  free(s->run);
  free(s->bucket_head);
  free(s->bucket_count);
  free(s->sizes);
  free(s->heap);
  free(s->best_idx);
  free(s->best_p);
  free(s->best_n);
  free(s->best_stamp);
  free(s->fail_dur);
  free(s->fail_epoch);
}

static int setup(bal__sim *s, const bal_swf_trace *t, const bal_sched_config *cfg) {
  size_t n = t->njobs;
  size_t nodes = (size_t)cfg->nodes + 1, m = (size_t)cfg->max_mates;
  s->jobs = calloc(n + 1, sizeof *s->jobs);
  s->queue = malloc((n + 1) * sizeof *s->queue);
  s->run = malloc((n + 1) * sizeof *s->run);
  s->capheap = (int32_t)(n * (s->policy->sharing ? 1 + 3 * m : 1) + 16);
  s->heap = malloc((size_t)s->capheap * sizeof *s->heap);
  if (!s->jobs || !s->queue || !s->run || !s->heap) return BAL_ENOMEM;
  if (s->policy->sharing) {
    s->bucket_head = malloc(nodes * sizeof *s->bucket_head);
    s->bucket_count = calloc(nodes, sizeof *s->bucket_count);
    s->sizes = malloc(nodes * sizeof *s->sizes);
    s->best_idx = malloc(nodes * m * sizeof *s->best_idx);
    s->best_p = malloc(nodes * m * sizeof *s->best_p);
    s->best_n = malloc(nodes * sizeof *s->best_n);
    s->best_stamp = calloc(nodes, sizeof *s->best_stamp);
    s->fail_dur = malloc(nodes * sizeof *s->fail_dur);
    s->fail_epoch = calloc(nodes, sizeof *s->fail_epoch);
    if (!s->bucket_head || !s->bucket_count || !s->sizes || !s->best_idx || !s->best_p ||
        !s->best_n || !s->best_stamp || !s->fail_dur || !s->fail_epoch)
      return BAL_ENOMEM;
    for (size_t i = 0; i < nodes; i++) s->bucket_head[i] = -1;
  }
  bal__rng rng;
  bal__rng_seed(&rng, cfg->seed);
  for (size_t i = 0; i < n; i++) {
    const bal_swf_job *src = &t->jobs[i];
    sjob *jb = &s->jobs[i];
    jb->submit = (double)src->submit;
    jb->runtime = (double)src->runtime;
    jb->req = (double)src->req_time;
    jb->nodes = (src->procs + s->cpn - 1) / s->cpn;
    int64_t per_node = (src->procs + jb->nodes - 1) / jb->nodes;
    jb->demand = per_node < s->cpn && cfg->core_demand == BAL_SCHED_DEMAND_PROCS ? per_node : s->cpn;
    /* one draw per job whatever the fraction, so seeds stay comparable */
    jb->malleable = bal__rng_uniform(&rng) < cfg->malleable_fraction;
    jb->state = jb->nodes > s->nodes ? JOB_REJECTED : JOB_PENDING;
    jb->start = jb->end = jb->reservation = -1;
    jb->guest = jb->host_next = jb->mate_head = -1;
    jb->run_pos = jb->bprev = jb->bnext = -1;
  }
  s->njobs = (int32_t)n;
  s->free_nodes = s->nodes;
  s->epoch = 1;
  return BAL_OK;
}

static void summarize(const bal__sim *s, bal_sched_result *res, const bal_swf_trace *t) {
  bal_sched_summary *sum = &res->summary;
  double first = INFINITY, last = -INFINITY, wait = 0, resp = 0, sd = 0, bsd = 0, work = 0;
  int64_t n = 0;
  for (int32_t i = 0; i < s->njobs; i++) {
    const sjob *jb = &s->jobs[i];
    bal_sched_job *o = &res->jobs[i];
    o->id = t->jobs[i].id;
    o->submit = t->jobs[i].submit;
    o->runtime = t->jobs[i].runtime;
    o->req_time = t->jobs[i].req_time;
    o->procs = t->jobs[i].procs;
    o->nodes = jb->nodes;
    o->start = jb->start;
    o->end = jb->end;
    o->reservation = jb->reservation;
    o->malleable = jb->malleable;
    o->mates = jb->nmates;
    o->times_mate = jb->times_mate;
    o->rejected = jb->state == JOB_REJECTED;
    if (o->rejected) {
      sum->rejected_too_large++;
      continue;
    }
    double r = jb->end - jb->submit;
    n++;
    first = fmin(first, jb->submit);
    last = fmax(last, jb->end);
    wait += jb->start - jb->submit;
    resp += r;
    sd += r / fmax(jb->runtime, 1.0);
    bsd += fmax(1.0, r / fmax(jb->runtime, 10.0));
    work += (double)jb->nodes * jb->runtime;
    if (jb->times_mate > 0) sum->mates++;
  }
  sum->jobs = n;
  if (n > 0) {
    sum->makespan = last - first;
    sum->avg_wait = wait / (double)n;
    sum->avg_response = resp / (double)n;
    sum->avg_slowdown = sd / (double)n;
    sum->avg_bounded_slowdown = bsd / (double)n;
    sum->utilization = sum->makespan > 0 ? work / ((double)s->nodes * sum->makespan) : 0;
  }
  sum->malleable_jobs = s->malleable_starts;
  sum->mate_selections = s->mate_selections;
  sum->events = s->events;
  sum->max_queue = s->max_queue;
  sum->invariant_violations = s->violations;
}

int bal_sched_run(const bal_swf_trace *trace, const bal_sched_config *cfg,
                  bal_sched_result **out) {
  if (!trace || !cfg || !out || (!trace->jobs && trace->njobs > 0)) return BAL_EINVAL;
  if (trace->njobs >= (size_t)INT32_MAX / 8) return BAL_ERANGE;
  const bal__policy *policy = bal__policy_find(cfg->policy);
  if (!policy || !valid(cfg)) return BAL_EINVAL;
  bal__sim s;
  memset(&s, 0, sizeof s);
  s.cfg = cfg;
  s.policy = policy;
  s.nodes = cfg->nodes;
  s.cpn = cfg->cores_per_node;
  s.guest_cores = (int64_t)floor(cfg->sharing_factor * (double)cfg->cores_per_node);
  bal_sched_result *res = calloc(1, sizeof *res);
  int rc = res ? setup(&s, trace, cfg) : BAL_ENOMEM;
  if (rc == BAL_OK) {
    res->jobs = calloc(trace->njobs + 1, sizeof *res->jobs);
    if (!res->jobs) rc = BAL_ENOMEM;
  }
  if (rc != BAL_OK) {
    release(&s);
    if (res) free(res->jobs);
    free(res);
    return rc;
  }
  bal__sim_loop(&s);
  res->njobs = trace->njobs;
  summarize(&s, res, trace);
  release(&s);
  *out = res;
  return BAL_OK;
}

const bal_sched_summary *bal_sched_result_summary(const bal_sched_result *r) {
  return r ? &r->summary : NULL;
}

const bal_sched_job *bal_sched_result_jobs(const bal_sched_result *r, size_t *n) {
  if (!r) return NULL;
  if (n) *n = r->njobs;
  return r->jobs;
}

void bal_sched_result_destroy(bal_sched_result *r) {
  if (!r) return;
  free(r->jobs);
  free(r);
}
