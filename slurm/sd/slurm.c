/* The cluster as the scheduler sees it, and the acts it performs on it,
 * through libslurm's public API only (slurm/slurm.h, Debian libslurm-dev). */
#define _POSIX_C_SOURCE 200809L
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "slurmsd.h"

static int fail(char *err, size_t errlen, const char *what) {
  snprintf(err, errlen, "%s: %s", what, slurm_strerror(slurm_get_errno()));
  return -1;
}

static void copy(char *dst, size_t n, const char *src) { snprintf(dst, n, "%s", src ? src : ""); }

/* Count the indices in a SLURM index-pair list (start, end, ..., -1). */
static int64_t count_inx(const int32_t *inx) {
  int64_t n = 0;
  for (int i = 0; inx && inx[i] >= 0 && inx[i + 1] >= 0; i += 2) n += inx[i + 1] - inx[i] + 1;
  return n;
}

static int fill_nodes(sd_job *j, const int32_t *inx) {
  int64_t n = count_inx(inx);
  if (n == 0) return 0;
  if (!(j->node_idx = malloc((size_t)n * sizeof *j->node_idx))) return -1;
  for (int i = 0; inx[i] >= 0 && inx[i + 1] >= 0; i += 2)
    for (int32_t k = inx[i]; k <= inx[i + 1]; k++) j->node_idx[j->nnode_idx++] = k;
  return 0;
}

static sd_job_state job_state(const slurm_job_info_t *ji, bool decided) {
  uint32_t base = ji->job_state & JOB_STATE_BASE;
  if (base == JOB_PENDING) {
    if (decided) return SD_RELEASED;
    return ji->priority == 0 ? SD_QUEUED : SD_FOREIGN;
  }
  if (base == JOB_RUNNING || base == JOB_SUSPENDED) return SD_RUNNING;
  /* ended, but its nodes are not free until the epilog is done */
  if (ji->job_state & JOB_COMPLETING) return SD_RUNNING;
  return SD_FINISHED;
}

int sd_cluster_load(sd_cluster *c, const char *partition, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  node_info_msg_t *ni = NULL;
  job_info_msg_t *ji = NULL;
  if (slurm_load_node(0, &ni, SHOW_ALL) != SLURM_SUCCESS) return fail(err, errlen, "slurm_load_node");
  if (slurm_load_jobs(0, &ji, SHOW_ALL | SHOW_DETAIL) != SLURM_SUCCESS) {
    slurm_free_node_info_msg(ni);
    return fail(err, errlen, "slurm_load_jobs");
  }
  c->loaded = time(NULL);
  c->nodes = calloc(ni->record_count + 1, sizeof *c->nodes);
  c->jobs = calloc(ji->record_count + 1, sizeof *c->jobs);
  int rc = 0;
  if (!c->nodes || !c->jobs) {
    snprintf(err, errlen, "out of memory");
    rc = -1;
  }
  for (uint32_t i = 0; rc == 0 && i < ni->record_count; i++) {
    const node_info_t *n = &ni->node_array[i];
    sd_node *d = &c->nodes[c->nnodes++];
    copy(d->name, sizeof d->name, n->name);
    uint32_t base = n->node_state & NODE_STATE_BASE;
    d->usable = n->name && base != NODE_STATE_DOWN && base != NODE_STATE_FUTURE &&
                base != NODE_STATE_UNKNOWN && !(n->node_state & NODE_STATE_DRAIN) &&
                !(n->node_state & NODE_STATE_FAIL);
    d->cpus = n->cpus;
  }
  for (uint32_t i = 0; rc == 0 && i < ji->record_count; i++) {
    const slurm_job_info_t *s = &ji->job_array[i];
    if (partition && (!s->partition || strcmp(s->partition, partition))) continue;
    sd_job *j = &c->jobs[c->njobs++];
    j->id = s->job_id;
    copy(j->admin, sizeof j->admin, s->admin_comment);
    copy(j->name, sizeof j->name, s->name);
    copy(j->comment, sizeof j->comment, s->comment);
    bool by_admin = false, by_comment = false;
    sd_parse_admin(j->admin, &j->decided, &by_admin, j->mates, &j->nmates);
    j->bad_mates = j->nmates < 0; /* the plugin refuses it too: no guest here */
    if (j->bad_mates) j->nmates = 0;
    double req = 0;
    sd_parse_comment(s->comment, &by_comment, &req);
    j->malleable = by_admin || by_comment;
    j->time_limit = s->time_limit;
    j->req_s = req > 0 ? req
               : s->time_limit == INFINITE || s->time_limit == NO_VAL ? 365.0 * 86400
                                                                       : 60.0 * s->time_limit;
    j->state = job_state(s, j->decided);
    j->held = s->priority == 0;
    j->nodes = s->num_nodes > 0 ? s->num_nodes : 1;
    j->cpus = s->num_cpus;
    j->submit = s->submit_time;
    j->start = s->start_time;
    j->end = s->end_time;
    j->exit_state = s->job_state & JOB_STATE_BASE;
    j->restarts = s->restart_cnt;
    const int32_t *inx = j->state == SD_RUNNING ? s->node_inx
                         : j->state == SD_RELEASED ? s->req_node_inx
                                                   : NULL;
    if (fill_nodes(j, inx) != 0) {
      snprintf(err, errlen, "out of memory");
      rc = -1;
    }
  }
  slurm_free_job_info_msg(ji);
  slurm_free_node_info_msg(ni);
  if (rc != 0) sd_cluster_free(c);
  return rc;
}

void sd_cluster_free(sd_cluster *c) {
  for (int64_t i = 0; c->jobs && i < c->njobs; i++) free(c->jobs[i].node_idx);
  free(c->jobs);
  free(c->nodes);
  memset(c, 0, sizeof *c);
}

sd_job *sd_cluster_find(sd_cluster *c, uint32_t id) {
  for (int64_t i = 0; i < c->njobs; i++)
    if (c->jobs[i].id == id) return &c->jobs[i];
  return NULL;
}

static int update(job_desc_msg_t *d, char *err, size_t errlen) {
  if (slurm_update_job(d) != SLURM_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "update of job %u", d->job_id);
    return fail(err, errlen, what);
  }
  return 0;
}

int sd_release(uint32_t id, const char *nodes, const char *admin, uint32_t time_limit, char *err,
               size_t errlen) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = id;
  d.req_nodes = (char *)nodes;
  d.admin_comment = (char *)admin;
  d.time_limit = time_limit;
  d.priority = INFINITE; /* release: SLURM computes its priority again */
  return update(&d, err, errlen);
}

int sd_set_limit(uint32_t id, uint32_t time_limit, const char *admin, char *err, size_t errlen) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = id;
  d.time_limit = time_limit;
  d.admin_comment = (char *)admin;
  return update(&d, err, errlen);
}

int sd_hold(uint32_t id, const char *admin, char *err, size_t errlen) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = id;
  d.priority = 0;
  d.admin_comment = (char *)admin;
  return update(&d, err, errlen);
}

int sd_set_comments(uint32_t id, const char *comment, const char *admin, char *err,
                    size_t errlen) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.job_id = id;
  d.comment = (char *)comment;
  d.admin_comment = (char *)admin;
  return update(&d, err, errlen);
}

const char *sd_state_name(uint32_t base) {
  /* enum job_states of slurm/slurm.h, in order (its own table is not public) */
  static const char *const names[] = {"PENDING",   "RUNNING", "SUSPENDED", "COMPLETED",
                                      "CANCELLED", "FAILED",  "TIMEOUT",   "NODE_FAIL",
                                      "PREEMPTED", "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"};
  return base < sizeof names / sizeof names[0] ? names[base] : "UNKNOWN";
}

extern char **environ;

uint32_t sd_submit_held(const char *name, const char *script, const char *comment,
                        bool malleable, int64_t nodes, int64_t cpus, uint32_t time_limit,
                        const char *out_path, const char *work_dir, char *err, size_t errlen) {
  job_desc_msg_t d;
  slurm_init_job_desc_msg(&d);
  d.name = (char *)name;
  d.script = (char *)script;
  d.comment = (char *)comment;
  d.min_nodes = d.max_nodes = (uint32_t)nodes;
  d.min_cpus = (uint32_t)cpus;
  d.time_limit = time_limit;
  d.priority = 0; /* held: SLURM's own scheduler never starts it */
  d.std_out = (char *)out_path;
  d.work_dir = (char *)work_dir;
  d.user_id = getuid();
  d.group_id = getgid();
  /* this process's environment; and the SPANK plugin's --malleable where
   * sbatch passes a plugin option: in the job's SPANK environment (which
   * slurmctld and job_submit.lua see) and, prefixed with SLURM_SPANK_, in
   * its environment, from which the job's srun steps pass it on to the
   * plugin in slurmstepd */
  uint32_t n = 0;
  while (environ[n]) n++;
  char **env = malloc((n + 2) * sizeof *env);
  if (!env) {
    snprintf(err, errlen, "out of memory");
    return 0;
  }
  memcpy(env, environ, n * sizeof *env);
  env[n] = malleable ? (char *)"SLURM_SPANK_" SD_SPANK_MALLEABLE_ENV "=" : NULL;
  env[n + 1] = NULL;
  d.environment = env;
  d.env_size = n + (malleable ? 1 : 0);
  char *spank_env[] = {(char *)SD_SPANK_MALLEABLE_ENV "=", NULL};
  if (malleable) {
    d.spank_job_env = spank_env;
    d.spank_job_env_size = 1;
  }
  submit_response_msg_t *resp = NULL;
  int rc = slurm_submit_batch_job(&d, &resp);
  free(env);
  if (rc != SLURM_SUCCESS) {
    fail(err, errlen, "slurm_submit_batch_job");
    return 0;
  }
  uint32_t id = resp->job_id;
  slurm_free_submit_response_response_msg(resp);
  return id;
}

double sd_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sd_sleep(double s) {
  if (!(s > 0)) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  nanosleep(&ts, NULL);
}
