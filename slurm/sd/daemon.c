/* `ballast slurm-sd`: EASY or SD-Policy on a stock SLURM. Every poll it
 * loads the jobs and nodes (slurm_load_jobs, slurm_load_node), brings
 * sched's decision step (bal_sched_state, the code `ballast sched`
 * simulates with) up to date with what happened, asks it for decisions and
 * enforces them: a held job is released onto the nodes chosen for it, a
 * guest onto its mates' nodes; a mate's time limit grows by its predicted
 * slowdown. Each decision and event is one JSON line on the log. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "common/sched_flags.h"
#include "slurmsd.h"

#define PROG "ballast-slurm-sd"

typedef struct opts {
  bal_sched_config cfg;
  const char *partition;
  const char *log_path;
  int64_t poll_ms;
  int64_t polls; /* 0 = until signalled */
  int core_demand;
} opts;

/* What the daemon remembers between polls; everything else is re-read. */
typedef struct tracked {
  uint32_t id;
  bool running; /* started in the state */
} tracked;

typedef struct sdd {
  opts o;
  FILE *log;
  bal_sched_state *st;
  double clock; /* latest time given to the state */
  int64_t nnodes;
  int64_t cpn;
  int64_t *state_of; /* SLURM node index -> state node, -1 if not managed */
  int64_t *slurm_of; /* state node -> SLURM node index */
  int64_t nslurm;
  char (*names)[SD_NAME_LEN]; /* state node -> name */
  tracked *jobs;
  int64_t njobs, capjobs;
  uint32_t *noted; /* jobs whose refusal was already logged */
  int64_t nnoted, capnoted;
} sdd;

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

/* ---- the log: one JSON object per line ---- */

static void log_begin(json_writer *j, sdd *d, const char *event, double t) {
  json_init(j, d->log);
  json_object_begin(j, NULL);
  json_double(j, "t", t);
  json_string(j, "event", event);
}

static void log_simple(sdd *d, const char *event, double t, uint32_t job, const char *key,
                       const char *text) {
  json_writer j;
  log_begin(&j, d, event, t);
  if (job) json_int(&j, "job", job);
  if (key) json_string(&j, key, text);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--log");
}

static void log_nodes(json_writer *j, sdd *d, const char *key, const int64_t *nodes, int64_t n) {
  json_array_begin(j, key);
  for (int64_t i = 0; i < n; i++)
    json_string(j, NULL, nodes[i] >= 0 && nodes[i] < d->nnodes ? d->names[nodes[i]] : "?");
  json_array_end(j);
}

/* ---- tracked jobs ---- */

static tracked *find_tracked(sdd *d, uint32_t id) {
  for (int64_t i = 0; i < d->njobs; i++)
    if (d->jobs[i].id == id) return &d->jobs[i];
  return NULL;
}

static bool track(sdd *d, uint32_t id, bool running) {
  if (d->njobs == d->capjobs) {
    int64_t cap = d->capjobs ? 2 * d->capjobs : 64;
    tracked *p = realloc(d->jobs, (size_t)cap * sizeof *p);
    if (!p) return false;
    d->jobs = p;
    d->capjobs = cap;
  }
  d->jobs[d->njobs++] = (tracked){.id = id, .running = running};
  return true;
}

static void untrack(sdd *d, tracked *t) { *t = d->jobs[--d->njobs]; }

static bool noted(sdd *d, uint32_t id) {
  for (int64_t i = 0; i < d->nnoted; i++)
    if (d->noted[i] == id) return true;
  return false;
}

static void note(sdd *d, uint32_t id) {
  if (d->nnoted == d->capnoted) {
    int64_t cap = d->capnoted ? 2 * d->capnoted : 16;
    uint32_t *p = realloc(d->noted, (size_t)cap * sizeof *p);
    if (!p) return; /* it is logged again next time: harmless */
    d->noted = p;
    d->capnoted = cap;
  }
  d->noted[d->nnoted++] = id;
}

/* ---- the machine ---- */

/* Map SLURM's usable nodes to the state's nodes 0 .. n-1 (once, at start:
 * a node that goes down later is a node the daemon stops trusting only
 * after a restart, see docs/slurm.md). */
static int map_nodes(sdd *d, const sd_cluster *c) {
  d->nslurm = c->nnodes;
  d->state_of = malloc((size_t)(c->nnodes + 1) * sizeof *d->state_of);
  d->slurm_of = malloc((size_t)(c->nnodes + 1) * sizeof *d->slurm_of);
  d->names = malloc((size_t)(c->nnodes + 1) * sizeof *d->names);
  if (!d->state_of || !d->slurm_of || !d->names) return -1;
  d->cpn = 0;
  for (int64_t i = 0; i < c->nnodes; i++) {
    d->state_of[i] = -1;
    if (!c->nodes[i].usable) continue;
    d->state_of[i] = d->nnodes;
    d->slurm_of[d->nnodes] = i;
    memcpy(d->names[d->nnodes], c->nodes[i].name, SD_NAME_LEN);
    if (d->cpn == 0 || c->nodes[i].cpus < d->cpn) d->cpn = c->nodes[i].cpus;
    d->nnodes++;
  }
  return d->nnodes > 0 && d->cpn > 0 ? 0 : -2;
}

/* A job's SLURM node indices as state nodes, in out (cap entries); the count,
 * or -1 if one is not managed. */
static int64_t state_nodes(const sdd *d, const sd_job *j, int64_t *out, int64_t cap) {
  int64_t n = 0;
  for (int64_t i = 0; i < j->nnode_idx && n < cap; i++) {
    int64_t k = j->node_idx[i];
    if (k < 0 || k >= d->nslurm || d->state_of[k] < 0) return -1;
    out[n++] = d->state_of[k];
  }
  return n;
}

static void request_of(const sdd *d, const sd_job *j, bal_sched_request *rq) {
  bal_sched_request_init(rq);
  rq->id = j->id;
  rq->submit = (double)j->submit;
  rq->nodes = j->nodes;
  int64_t most = j->nodes * d->cpn;
  rq->procs = j->cpus < j->nodes ? j->nodes : j->cpus > most ? most : j->cpus;
  rq->req_time = j->req_s;
  rq->malleable = j->malleable;
}

/* Advance the daemon's clock: the state refuses times before its own. */
static double at(sdd *d, double t) {
  if (t < d->clock) t = d->clock;
  d->clock = t;
  return t;
}

/* A job the policy cannot start stays held; why is written where squeue
 * shows it (the comment, squeue's %k, which 22.05's squeue shows and its
 * admin comment it does not) and in the admin comment. */
static void pending_reason(sdd *d, sd_job *j, const char *why, double t) {
  if (noted(d, j->id)) return;
  note(d, j->id);
  char admin[SD_ADMIN_LEN], comment[SD_ADMIN_LEN], token[256], err[256];
  snprintf(admin, sizeof admin, "%s", j->admin);
  snprintf(comment, sizeof comment, "%s", j->comment);
  snprintf(token, sizeof token, "sd:pending=%s", why);
  if (!strstr(admin, "sd:pending=") && sd_admin_append(admin, sizeof admin, token) &&
      sd_admin_append(comment, sizeof comment, token) &&
      sd_set_comments(j->id, comment, admin, err, sizeof err) != 0)
    log_simple(d, "error", t, j->id, "message", err);
  log_simple(d, "pending", t, j->id, "reason", why);
}

/* ---- bringing the state up to date ---- */

/* Jobs that left SLURM (or ended) leave the state. */
static void reap(sdd *d, sd_cluster *c, double t) {
  for (int64_t i = 0; i < d->njobs;) {
    tracked *tr = &d->jobs[i];
    sd_job *j = sd_cluster_find(c, tr->id);
    bool gone = !j || j->state == SD_FINISHED || (!tr->running && j->state == SD_FOREIGN);
    if (!gone) {
      i++;
      continue;
    }
    bal_sched_state_end(d->st, tr->id, at(d, t));
    json_writer w;
    log_begin(&w, d, tr->running ? "end" : "dequeue", t);
    json_int(&w, "job", tr->id);
    if (j) {
      json_int(&w, "slurm_start", (int64_t)j->start);
      json_int(&w, "slurm_end", (int64_t)j->end);
      json_string(&w, "slurm_state", sd_state_name(j->exit_state));
    }
    json_object_end(&w);
    if (!json_finish(&w)) cli_output_failed("--log");
    untrack(d, tr);
  }
}

typedef struct restart_item {
  sd_job *j;
  double t;
} restart_item;

static int by_time(const void *a, const void *b) {
  const restart_item *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t ? 1 : (x->j->id > y->j->id) - (x->j->id < y->j->id);
}

/* A job already started (by this daemon before a restart, or by someone
 * else) enters the state as running. */
static void adopt(sdd *d, sd_job *j, double t) {
  int64_t nodes[4096];
  int64_t n = state_nodes(d, j, nodes, 4096);
  tracked *tr = find_tracked(d, j->id);
  int rc = BAL_EINVAL;
  bool guest = j->nmates > 0;
  if (guest) {
    /* its mates must still be running in the state for the relation to hold */
    bool all = true;
    for (int k = 0; k < j->nmates; k++) {
      tracked *m = find_tracked(d, (uint32_t)j->mates[k]);
      all = all && m && m->running;
    }
    if (all) rc = bal_sched_state_start_guest(d->st, j->id, at(d, t), j->mates, j->nmates);
  }
  if (rc != BAL_OK && n == j->nodes)
    rc = bal_sched_state_start(d->st, j->id, at(d, t), nodes, n);
  json_writer w;
  log_begin(&w, d, rc == BAL_OK ? "adopt" : "error", t);
  json_int(&w, "job", j->id);
  json_string(&w, "kind", rc == BAL_OK && guest ? "guest" : "static");
  log_nodes(&w, d, "nodes", nodes, n > 0 ? n : 0);
  json_string(&w, "admin_comment", j->admin);
  if (rc != BAL_OK) json_string(&w, "message", bal_strerror(rc));
  else if (j->bad_mates)
    json_string(&w, "message", "malformed sd:mates= relation: adopted as a static job");
  json_object_end(&w);
  if (!json_finish(&w)) cli_output_failed("--log");
  if (tr && rc == BAL_OK) tr->running = true;
}

static void hold_foreign(sdd *d, sd_job *j, double t) {
  char err[256];
  if (sd_hold(j->id, NULL, err, sizeof err) != 0) log_simple(d, "error", t, j->id, "message", err);
  else log_simple(d, "hold", t, j->id, "why", "pending, not held: SLURM could have started it");
}

static void admit_new(sdd *d, sd_cluster *c, double t) {
  restart_item *starts = malloc((size_t)(c->njobs + 1) * sizeof *starts);
  int64_t nstarts = 0;
  for (int64_t i = 0; i < c->njobs; i++) {
    sd_job *j = &c->jobs[i];
    if (find_tracked(d, j->id) || j->state == SD_FINISHED) continue;
    if (j->state == SD_FOREIGN) {
      hold_foreign(d, j, t);
      continue;
    }
    bal_sched_request rq;
    request_of(d, j, &rq);
    int rc = bal_sched_state_submit(d->st, &rq);
    if (rc == BAL_ERANGE || rc == BAL_EINVAL) {
      char why[160];
      snprintf(why, sizeof why, "needs-%lld-nodes-machine-has-%lld", (long long)j->nodes,
               (long long)d->nnodes);
      if (rc == BAL_EINVAL) snprintf(why, sizeof why, "request-refused-by-the-policy");
      if (j->state == SD_QUEUED) pending_reason(d, j, why, t);
      continue;
    }
    if (rc != BAL_OK || !track(d, j->id, false)) {
      log_simple(d, "error", t, j->id, "message", bal_strerror(rc));
      continue;
    }
    if (j->state == SD_QUEUED) {
      json_writer w;
      log_begin(&w, d, "queue", t);
      json_int(&w, "job", j->id);
      json_int(&w, "nodes", j->nodes);
      json_double(&w, "req_s", j->req_s);
      json_bool(&w, "malleable", j->malleable);
      json_object_end(&w);
      if (!json_finish(&w)) cli_output_failed("--log");
    } else if (starts) { /* released or running: started before we saw it */
      double ts = j->state == SD_RUNNING && j->start > 0 ? (double)j->start : t;
      starts[nstarts++] = (restart_item){j, ts};
    }
  }
  /* in start order, so mates are running before their guests */
  if (starts) qsort(starts, (size_t)nstarts, sizeof *starts, by_time);
  for (int64_t i = 0; i < nstarts; i++) adopt(d, starts[i].j, starts[i].t);
  free(starts);
}

/* A slowed mate (or a guest) must not be killed by its limit: SLURM's limit
 * (minutes) follows the state's (seconds), rounded up, never lowered. */
static void sync_limits(sdd *d, sd_cluster *c, double t) {
  for (int64_t i = 0; i < d->njobs; i++) {
    if (!d->jobs[i].running) continue;
    sd_job *j = sd_cluster_find(c, d->jobs[i].id);
    bal_sched_job_info info;
    if (!j || j->time_limit == INFINITE || j->time_limit == NO_VAL ||
        bal_sched_state_job(d->st, j->id, &info) != BAL_OK || !isfinite(info.time_limit))
      continue;
    uint32_t want = (uint32_t)ceil(info.time_limit / 60.0 - 1e-9);
    if (want <= j->time_limit) continue;
    char err[256];
    if (sd_set_limit(j->id, want, NULL, err, sizeof err) != 0) {
      log_simple(d, "error", t, j->id, "message", err);
      continue;
    }
    json_writer w;
    log_begin(&w, d, "extend", t);
    json_int(&w, "job", j->id);
    json_int(&w, "from_min", j->time_limit);
    json_int(&w, "to_min", want);
    json_double(&w, "state_limit_s", info.time_limit);
    json_double(&w, "predicted_slowdown", info.predicted_slowdown);
    json_object_end(&w);
    if (!json_finish(&w)) cli_output_failed("--log");
    j->time_limit = want;
  }
}

/* ---- decisions ---- */

static void enforce(sdd *d, sd_cluster *c, const bal_sched_decision *dc, double t) {
  char nodes[8192] = "", admin[SD_ADMIN_LEN], err[256];
  size_t len = 0;
  for (int64_t i = 0; i < dc->nnodes && len < sizeof nodes; i++) {
    int w = snprintf(nodes + len, sizeof nodes - len, "%s%s", i ? "," : "", d->names[dc->nodes[i]]);
    if (w < 0) break;
    len += (size_t)w;
  }
  /* the decision joins the tokens already there (sd:malleable) */
  char token[SD_ADMIN_LEN];
  if (dc->kind == BAL_SCHED_START_GUEST) {
    len = (size_t)snprintf(token, sizeof token, "sd:mates=");
    for (int64_t m = 0; m < dc->nmates && len < sizeof token; m++)
      len += (size_t)snprintf(token + len, sizeof token - len, "%s%lld", m ? "," : "",
                              (long long)dc->mates[m].id);
  } else {
    snprintf(token, sizeof token, "sd:static");
  }
  sd_job *j = sd_cluster_find(c, (uint32_t)dc->id);
  snprintf(admin, sizeof admin, "%s", j ? j->admin : "");
  if (!sd_admin_append(admin, sizeof admin, token)) snprintf(admin, sizeof admin, "%s", token);
  uint32_t limit = NO_VAL;
  if (dc->kind == BAL_SCHED_START_GUEST && isfinite(dc->time_limit))
    limit = (uint32_t)ceil(dc->time_limit / 60.0 - 1e-9);
  int rc = sd_release((uint32_t)dc->id, nodes, admin, limit, err, sizeof err);
  json_writer w;
  log_begin(&w, d, rc == 0 ? "start" : "error", t);
  json_int(&w, "job", dc->id);
  json_string(&w, "kind", dc->kind == BAL_SCHED_START_GUEST ? "guest" : "static");
  log_nodes(&w, d, "nodes", dc->nodes, dc->nnodes);
  json_double(&w, "time_limit_s", dc->time_limit);
  json_array_begin(&w, "mates");
  for (int64_t m = 0; m < dc->nmates; m++) {
    json_object_begin(&w, NULL);
    json_int(&w, "id", dc->mates[m].id);
    json_int(&w, "cores_lent", dc->mates[m].cores_lent);
    json_double(&w, "slowdown", dc->mates[m].slowdown);
    json_double(&w, "extension_s", dc->mates[m].extension);
    json_object_end(&w);
  }
  json_array_end(&w);
  if (rc != 0) json_string(&w, "message", err);
  json_object_end(&w);
  if (!json_finish(&w)) cli_output_failed("--log");
  tracked *tr = find_tracked(d, (uint32_t)dc->id);
  if (rc == 0) {
    if (tr) tr->running = true;
    return;
  }
  /* not enforced (the job was cancelled meanwhile, ...): forget it; if it
   * is still queued, the next poll submits it again */
  bal_sched_state_end(d->st, dc->id, at(d, t));
  if (tr) untrack(d, tr);
}

static int poll_once(sdd *d) {
  sd_cluster c;
  char err[256];
  double t = sd_now();
  if (sd_cluster_load(&c, d->o.partition, err, sizeof err) != 0) {
    log_simple(d, "error", t, 0, "message", err);
    return -1;
  }
  if (!d->st) {
    int rc = map_nodes(d, &c);
    if (rc != 0) {
      log_simple(d, "error", t, 0, "message", rc == -1 ? "out of memory" : "no usable node");
      sd_cluster_free(&c);
      return -1;
    }
    d->o.cfg.nodes = d->nnodes;
    d->o.cfg.cores_per_node = d->cpn;
    d->o.cfg.core_demand = d->o.core_demand ? BAL_SCHED_DEMAND_NODE : BAL_SCHED_DEMAND_PROCS;
    rc = bal_sched_state_create(&d->o.cfg, &d->st);
    if (rc != BAL_OK) {
      log_simple(d, "error", t, 0, "message", bal_strerror(rc));
      sd_cluster_free(&c);
      return -1;
    }
    json_writer w;
    log_begin(&w, d, "begin", t);
    json_string(&w, "policy", d->o.cfg.policy);
    json_int(&w, "nodes", d->nnodes);
    json_int(&w, "cores_per_node", d->cpn);
    json_int(&w, "max_mates", d->o.cfg.max_mates);
    if (d->o.cfg.dynamic_max_slowdown) json_string(&w, "max_slowdown", "dynamic");
    else if (isinf(d->o.cfg.max_slowdown)) json_string(&w, "max_slowdown", "inf");
    else json_double(&w, "max_slowdown", d->o.cfg.max_slowdown);
    json_double(&w, "sharing_factor", d->o.cfg.sharing_factor);
    json_int(&w, "ranks_per_node", d->o.cfg.ranks_per_node);
    json_string(&w, "partition", d->o.partition);
    json_int(&w, "poll_ms", d->o.poll_ms);
    json_array_begin(&w, "node_names");
    for (int64_t i = 0; i < d->nnodes; i++) json_string(&w, NULL, d->names[i]);
    json_array_end(&w);
    json_object_end(&w);
    if (!json_finish(&w)) cli_output_failed("--log");
  }
  reap(d, &c, t);
  admit_new(d, &c, t);
  const bal_sched_decision *dec;
  int64_t n = 0;
  int rc = bal_sched_state_decide(d->st, at(d, t), &dec, &n);
  if (rc != BAL_OK) log_simple(d, "error", t, 0, "message", bal_strerror(rc));
  for (int64_t i = 0; rc == BAL_OK && i < n; i++) enforce(d, &c, &dec[i], t);
  /* decisions changed limits (guests, mates): let SLURM know now */
  sync_limits(d, &c, t);
  sd_cluster_free(&c);
  return 0;
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  bal_sched_config_init(&o->cfg);
  o->cfg.sharing_factor = NAN; /* not given: the SPANK plugin's (main) */
  o->poll_ms = 200;
  char policy_help[192];
  sched_policy_help(policy_help, sizeof policy_help, "easy; sd is SD-Policy");
  static const char *const demands[] = {"procs", "node", NULL};
  const cli_flag flags[] = {
      CLI_SECTION("Policy (as `ballast sched`):"),
      CLI_STRING("--policy", "P", &o->cfg.policy, policy_help),
      SCHED_SD_FLAGS(&o->cfg),
      CLI_CHOICE("--core-demand", "D", &o->core_demand, demands,
                 "sd: cores a job uses per node unshrunk: procs (its\n"
                 "CPUs / nodes, default) or node (all)"),
      CLI_SECTION("SLURM:"),
      CLI_STRING("--partition", "NAME", &o->partition,
                 "schedule only the jobs of this partition (default: all)"),
      CLI_INT("--poll-ms", "MS", &o->poll_ms, 10, 600000, "time between two polls (200)"),
      CLI_INT("--polls", "N", &o->polls, 1, INT64_MAX, "stop after N polls (default: on SIGTERM)"),
      CLI_SECTION("Output:"),
      CLI_PATH("--log", "FILE", &o->log_path,
               "append the JSON lines here (default: standard output)"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast slurm-sd [--policy easy|sd] [options]",
      .description =
          "Schedule a SLURM cluster with sched's EASY or SD-Policy. Jobs are submitted\n"
          "held (priority 0: sbatch -H, or job_submit.lua holds them all); malleable\n"
          "ones carry sd:malleable in their admin comment (the SPANK plugin's option,\n"
          "through job_submit.lua) or comment. The daemon releases each job onto the\n"
          "nodes it chose, a guest onto its mates' nodes (sd:mates=ID,ID in its admin\n"
          "comment), and extends a shrunk mate's time limit. Needs operator rights\n"
          "(docs/slurm.md); SLURM_CONF names the cluster's configuration. The sharing\n"
          "factor is the SPANK plugin's (its plugstack.conf line): a --sharing-factor\n"
          "that differs from it is refused.",
      .flags = flags,
      .epilog = "Each decision and event is one JSON line: begin, queue, start (static or\n"
                "guest, nodes, mates), extend, end, pending (a job the machine cannot\n"
                "hold), hold, adopt (after a restart), error."};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  return sched_check_policy(PROG, "--policy", o->cfg.policy);
}

int main(int argc, char **argv) {
  sdd d;
  memset(&d, 0, sizeof d);
  int rc = parse(argc, argv, &d.o);
  if (rc != CLI_CONTINUE) return rc;
  /* The log's directory, then SLURM and the plugin's setting, and only
   * then the log: a daemon that cannot start leaves no empty log behind. */
  if (d.o.log_path && !out_check_dir(PROG, "--log", d.o.log_path)) return 1;
  if (sd_slurm_init(PROG) != 0) return 1;
  char msg[1024];
  if (sd_plugin_sharing_factor(d.o.cfg.sharing_factor, &d.o.cfg.sharing_factor, msg,
                               sizeof msg) != 0) {
    fprintf(stderr, "%s: %s\n", PROG, msg);
    slurm_fini();
    return 1;
  }
  if (msg[0]) fprintf(stderr, "%s: warning: %s\n", PROG, msg);
  if (d.o.partition && sd_check_partition(d.o.partition, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s: %s\n", PROG, msg);
    slurm_fini();
    return 1;
  }
  d.log = stdout;
  if (d.o.log_path && !(d.log = fopen(d.o.log_path, "a"))) {
    fprintf(stderr, "%s: --log: %s: %s\n", PROG, d.o.log_path, strerror(errno));
    slurm_fini();
    return 1;
  }
  d.clock = -INFINITY;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  int failures = 0;
  for (int64_t k = 0; !stop_signal && (d.o.polls == 0 || k < d.o.polls); k++) {
    if (poll_once(&d) != 0) failures++;
    else failures = 0;
    if (!d.st && failures > 0 && d.o.polls) break;
    struct timespec ts = {d.o.poll_ms / 1000, (long)(d.o.poll_ms % 1000) * 1000000L};
    if (d.o.polls == 0 || k + 1 < d.o.polls) nanosleep(&ts, NULL);
  }
  log_simple(&d, "stop", sd_now(), 0, "why", stop_signal ? "signal" : "polls done");
  bal_sched_state_destroy(d.st);
  slurm_fini();
  free(d.jobs);
  free(d.noted);
  free(d.state_of);
  free(d.slurm_of);
  free(d.names);
  if (d.log != stdout) fclose(d.log);
  return d.st || failures == 0 ? 0 : 1;
}
