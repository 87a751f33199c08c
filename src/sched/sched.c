/* Public entry points of the simulator: configuration and policy settings,
 * setting up the simulation from a trace, and the result with its summary
 * metrics. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "sim.h"

struct bal_sched_result {
  bal_sched_summary summary;
  bal_sched_job *jobs;
  int64_t njobs;
};

int bal_sched_config_init(bal_sched_config *cfg) {
  if (!cfg) return BAL_EINVAL;
  memset(cfg, 0, sizeof *cfg);
  cfg->policy = "easy";
  cfg->max_mates = 2;
  cfg->max_slowdown = 10.0;
  cfg->sharing_factor = BAL_SHARE_FACTOR_DEFAULT;
  cfg->runtime_model = BAL_SCHED_IDEAL;
  cfg->malleable_fraction = 1.0;
  cfg->ranks_per_node = 1;
  cfg->seed = 1;
  return BAL_OK;
}

static bool valid(const bal_sched_config *c) {
  return c->nodes > 0 && c->nodes <= BAL_SCHED_MAX_NODES && c->cores_per_node > 0 &&
         c->cores_per_node <= BAL_SCHED_MAX_NODES && c->max_mates >= 1 &&
         c->max_mates <= BAL_SCHED_MAX_MATES && c->max_slowdown > 0 && !isnan(c->max_slowdown) &&
         bal_share_factor_valid(c->sharing_factor) &&
         ((int)c->runtime_model == BAL_SCHED_IDEAL || (int)c->runtime_model == BAL_SCHED_WORST) &&
         ((int)c->core_demand == BAL_SCHED_DEMAND_PROCS ||
          (int)c->core_demand == BAL_SCHED_DEMAND_NODE) &&
         c->malleable_fraction >= 0 && c->malleable_fraction <= 1 && c->ranks_per_node >= 0 &&
         c->nsettings >= 0 &&
         c->nsettings <= BAL_SCHED_MAX_SETTINGS;
}

/* "<policy>.<name>": both parts non-empty, the whole shorter than the field. */
static const char *setting_dot(const char *key) {
  size_t len = strnlen(key, BAL_SCHED_SETTING_LEN);
  const char *dot = strchr(key, '.');
  if (len == 0 || len >= BAL_SCHED_SETTING_LEN || !dot || dot == key || dot[1] == '\0')
    return NULL;
  return dot;
}

static bal_sched_setting *find_setting(const bal_sched_config *cfg, const char *key) {
  for (int64_t i = 0; i < cfg->nsettings && i < BAL_SCHED_MAX_SETTINGS; i++)
    if (!strncmp(cfg->settings[i].key, key, BAL_SCHED_SETTING_LEN))
      return (bal_sched_setting *)&cfg->settings[i];
  return NULL;
}

int bal_sched_config_set(bal_sched_config *cfg, const char *key, const char *value) {
  if (!cfg || !key || !value || !setting_dot(key) ||
      strnlen(value, BAL_SCHED_SETTING_LEN) >= BAL_SCHED_SETTING_LEN ||
      cfg->nsettings < 0 || cfg->nsettings > BAL_SCHED_MAX_SETTINGS)
    return BAL_EINVAL;
  bal_sched_setting *st = find_setting(cfg, key);
  if (!st) {
    if (cfg->nsettings == BAL_SCHED_MAX_SETTINGS) return BAL_EINVAL;
    st = &cfg->settings[cfg->nsettings++];
    strcpy(st->key, key);
  }
  strcpy(st->value, value);
  return BAL_OK;
}

const char *bal_sched_config_get(const bal_sched_config *cfg, const char *key) {
  if (!cfg || !key) return NULL;
  const bal_sched_setting *st = find_setting(cfg, key);
  return st ? st->value : NULL;
}

const char *bal_sched_setting_name(const char *policy, int i) {
  const bal__sched_policy *p = bal__sched_policy_find(policy, -1);
  if (!p || !p->settings || i < 0) return NULL;
  for (int k = 0; p->settings[k].name; k++)
    if (k == i) return p->settings[k].name;
  return NULL;
}

int bal_sched_setting_check(const char *key, const char *value, const char **accepted) {
  if (accepted) *accepted = NULL;
  if (!key || !value) return BAL_EINVAL;
  const char *dot = setting_dot(key);
  if (!dot || strnlen(value, BAL_SCHED_SETTING_LEN) >= BAL_SCHED_SETTING_LEN) return BAL_EINVAL;
  const bal__sched_policy *p = bal__sched_policy_find(key, dot - key);
  if (!p || !p->settings || !p->configure) return BAL_ENOTFOUND;
  const bal__sched_setting_info *info = p->settings;
  while (info->name && strcmp(info->name, dot + 1) != 0) info++;
  if (!info->name) return BAL_ENOTFOUND;
  if (accepted) *accepted = info->values;
  /* the policy's own parser, on a scratch state: the run will agree */
  void *scratch = p->state_size > 0 ? calloc(1, p->state_size) : NULL;
  if (p->state_size > 0 && !scratch) return BAL_ENOMEM;
  int rc = p->configure(scratch, dot + 1, value) == BAL_OK ? BAL_OK : BAL_EINVAL;
  free(scratch);
  return rc;
}

/* Hand the settings of the running policy to it; a setting naming no
 * policy, or one its policy rejects, is BAL_EINVAL. */
static int configure_policy(bal__sched_sim *s, const bal_sched_config *cfg) {
  if (s->policy->state_size > 0 && !(s->policy_state = calloc(1, s->policy->state_size)))
    return BAL_ENOMEM;
  for (int64_t i = 0; i < cfg->nsettings; i++) {
    const bal_sched_setting *st = &cfg->settings[i];
    if (!memchr(st->key, '\0', sizeof st->key) || !memchr(st->value, '\0', sizeof st->value))
      return BAL_EINVAL;
    const char *dot = setting_dot(st->key);
    if (!dot) return BAL_EINVAL;
    const bal__sched_policy *owner = bal__sched_policy_find(st->key, dot - st->key);
    if (!owner) return BAL_EINVAL;
    if (owner != s->policy) continue;
    if (!owner->configure || owner->configure(s->policy_state, dot + 1, st->value) != BAL_OK)
      return BAL_EINVAL;
  }
  return BAL_OK;
}

int bal__sched_init(bal__sched_sim *s, const bal_sched_config *cfg) {
  const bal__sched_policy *policy = bal__sched_policy_find(cfg->policy, -1);
  if (!policy || !valid(cfg)) return BAL_EINVAL;
  s->cfg = cfg;
  s->policy = policy;
  s->nodes = cfg->nodes;
  s->cpn = cfg->cores_per_node;
  /* The most a mate lends per node: the sharing rule for a mate of one
   * rank. Below SF = 1 that is floor(SF × cpn), always < cpn; at SF = 1
   * the rank's core caps it at cpn − 1. */
  s->guest_cores = bal_share_lend(cfg->sharing_factor, cfg->cores_per_node, 1);
  s->epoch = 1;
  return configure_policy(s, cfg);
}

void bal__sched_release(bal__sched_sim *s) {
  free(s->dec.d);
  free(s->dec.nodes);
  free(s->node_next);
  free(s->node_prev);
  free(s->node_owner);
  free(s->ids);
  free(s->nhead);
  free(s->ntail);
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
  free(s->policy_state);
}

int bal__sched_alloc_sharing(bal__sched_sim *s) {
  size_t nodes = (size_t)s->nodes + 1, m = (size_t)s->cfg->max_mates;
  /* sizes in bytes must not wrap (only possible where size_t is 32-bit) */
  if (nodes > SIZE_MAX / (m * sizeof(double))) return BAL_ENOMEM;
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
  return BAL_OK;
}

static int setup(bal__sched_sim *s, const bal_swf_trace *t, const bal_sched_config *cfg) {
  size_t n = (size_t)t->njobs;
  if (n + 16 > SIZE_MAX / sizeof *s->jobs) return BAL_ENOMEM;
  s->jobs = calloc(n + 1, sizeof *s->jobs);
  s->queue = malloc((n + 1) * sizeof *s->queue);
  s->run = malloc((n + 1) * sizeof *s->run);
  /* the event heap is allocated and grown by sim.c, as events arrive */
  if (!s->jobs || !s->queue || !s->run) return BAL_ENOMEM;
  int rc = bal__sched_alloc_sharing(s);
  if (rc != BAL_OK) return rc;
  bal__rng rng;
  bal__rng_seed(&rng, cfg->seed);
  for (size_t i = 0; i < n; i++) {
    const bal_swf_job *src = &t->jobs[i];
    sjob *jb = &s->jobs[i];
    jb->submit = (double)src->submit;
    jb->runtime = (double)src->runtime;
    jb->req = (double)src->req_time;
    bal__sched_job_init(s, (int32_t)i, src->procs, 0);
    /* one draw per job whatever the fraction, so seeds stay comparable */
    jb->malleable = bal__rng_uniform(&rng) < cfg->malleable_fraction;
    if (jb->nodes > s->nodes) jb->state = JOB_REJECTED;
  }
  s->njobs = (int32_t)n; /* n <= BAL_SCHED_MAX_JOBS, checked by bal_sched_run() */
  s->free_nodes = s->nodes;
  s->epoch = 1;
  return BAL_OK;
}

/* The per-job records, then the summary from them (bal_sched_summarize(),
 * the one writer of the formulas) and the simulator's own counts. */
static void summarize(const bal__sched_sim *s, bal_sched_result *res, const bal_swf_trace *t) {
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
  }
  bal_sched_summary *sum = &res->summary;
  /* cannot fail: s->nodes was validated and the records exist */
  bal_sched_summarize(res->jobs, s->njobs, s->nodes, sum);
  sum->events = s->events;
  sum->max_queue = s->max_queue;
  sum->invariant_violations = s->violations;
}

int bal_sched_run(const bal_swf_trace *trace, const bal_sched_config *cfg,
                  bal_sched_result **out) {
  if (!trace || !cfg || !out || trace->njobs < 0 || (!trace->jobs && trace->njobs > 0))
    return BAL_EINVAL;
  if (trace->njobs > BAL_SCHED_MAX_JOBS) return BAL_EINVAL;
  bal__sched_sim s;
  memset(&s, 0, sizeof s);
  int rc = bal__sched_init(&s, cfg);
  bal_sched_result *res = NULL;
  if (rc == BAL_OK) {
    res = calloc(1, sizeof *res);
    rc = res ? setup(&s, trace, cfg) : BAL_ENOMEM;
  }
  if (rc == BAL_OK) {
    res->jobs = calloc((size_t)trace->njobs + 1, sizeof *res->jobs);
    if (!res->jobs) rc = BAL_ENOMEM;
  }
  if (rc == BAL_OK) rc = bal__sched_loop(&s);
  if (rc != BAL_OK) {
    bal__sched_release(&s);
    if (res) free(res->jobs);
    free(res);
    return rc;
  }
  res->njobs = trace->njobs;
  summarize(&s, res, trace);
  bal__sched_release(&s);
  *out = res;
  return BAL_OK;
}

const bal_sched_summary *bal_sched_result_summary(const bal_sched_result *r) {
  return r ? &r->summary : NULL;
}

const bal_sched_job *bal_sched_result_jobs(const bal_sched_result *r, int64_t *n) {
  if (!r) return NULL;
  if (n) *n = r->njobs;
  return r->jobs;
}

void bal_sched_result_destroy(bal_sched_result *r) {
  if (!r) return;
  free(r->jobs);
  free(r);
}
