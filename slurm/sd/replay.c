/* `ballast slurm-replay`: replay a window of an SWF trace on a SLURM
 * (the sandbox) scheduled by `ballast slurm-sd`, and set the live figures
 * beside the simulator's for the same scaled trace.
 *
 * Steps: read the trace; measure SLURM's start latency (held probe jobs
 * the daemon starts: submission to RUNNING, wall clock); scale the window
 * with bal_swf_scale() (the trace's machine onto the sandbox, times divided
 * by the speedup, runtimes at least --min-runtime, a fixed 10 s by
 * default, so every replay of a window replays one trace); simulate the scaled
 * trace with bal_sched_run(); submit each job held at its scaled submit
 * time as a malleable test job (ballast-slurm-job, one single-node step
 * per node); wait until every job ended; compute the metrics of `ballast
 * sched` from SLURM's submit, start and end times. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "common/sched_flags.h"
#include "slurmsd.h"

#define PROG "ballast-slurm-replay"

typedef struct opts {
  const char *trace;
  int64_t from_id, count;
  double speedup;
  int64_t nodes, cpus;             /* sandbox; 0 = all its usable nodes */
  int64_t trace_nodes, trace_cores; /* 0 = from the header */
  int64_t min_runtime;             /* shortest runtime after the speedup, s */
  int64_t probes;
  int runtime_model;
  bal_sched_config cfg;
  bool no_daemon, json;
  const char *daemon_log, *out_dir, *jobs_csv;
  double timeout;
} opts;

/* One job of the replay: what was planned, and what SLURM did. */
typedef struct rjob {
  const bal_swf_job *src; /* in the scaled trace */
  uint32_t slurm_id;
  double submit, start, end; /* seconds from the replay's origin; -1 unknown */
  bool finished, lost;
  char state[16];
  int64_t mates[SD_MAX_MATES];
  int nmates;
  int64_t restarts;
} rjob;

/* The default shortest runtime after the speedup: about 10 x SLURM's
 * start latency in the sandbox (1-2.6 s measured, docs/slurm.md), and the
 * value the published window was chosen with (slurm/bench/find-window.sh). */
#define REPLAY_MIN_RUNTIME_S 10

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

/* The directory of this executable, where ballast-slurm-sd and -job live. */
static void self_dir(char *buf, size_t n) {
  ssize_t len = readlink("/proc/self/exe", buf, n - 1);
  if (len <= 0) {
    snprintf(buf, n, ".");
    return;
  }
  buf[len] = '\0';
  char *slash = strrchr(buf, '/');
  if (slash) *slash = '\0';
}

static pid_t start_daemon(const opts *o, const char *dir) {
  char prog[PATH_MAX + 32], mates[32], ms[64], sf[64], rpn[32];
  snprintf(prog, sizeof prog, "%s/ballast-slurm-sd", dir);
  snprintf(mates, sizeof mates, "%lld", (long long)o->cfg.max_mates);
  if (o->cfg.dynamic_max_slowdown) snprintf(ms, sizeof ms, "dynamic");
  else if (isinf(o->cfg.max_slowdown)) snprintf(ms, sizeof ms, "inf");
  else snprintf(ms, sizeof ms, "%.17g", o->cfg.max_slowdown);
  snprintf(sf, sizeof sf, "%.17g", o->cfg.sharing_factor);
  snprintf(rpn, sizeof rpn, "%lld", (long long)o->cfg.ranks_per_node);
  pid_t pid = fork();
  if (pid == 0) {
    char *argv[] = {prog, "--policy", (char *)o->cfg.policy, "--max-mates", mates,
                    "--max-slowdown", ms, "--sharing-factor", sf, "--ranks-per-node", rpn,
                    "--core-demand", "node", "--log", (char *)o->daemon_log, NULL};
    execv(prog, argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", PROG, prog, strerror(errno));
    _exit(127);
  }
  return pid;
}

static void stop_daemon(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  int status;
  waitpid(pid, &status, 0);
}

/* Poll one job until it leaves PENDING; the seconds from t0, or -1. */
static double wait_running(uint32_t id, double t0, double limit) {
  while (sd_now() - t0 < limit && !stop_signal) {
    job_info_msg_t *m = NULL;
    if (slurm_load_job(&m, id, SHOW_ALL) == SLURM_SUCCESS && m->record_count > 0) {
      uint32_t st = m->job_array[0].job_state & JOB_STATE_BASE;
      slurm_free_job_info_msg(m);
      if (st != JOB_PENDING) return sd_now() - t0;
    } else if (m) {
      slurm_free_job_info_msg(m);
    }
    sd_sleep(0.02);
  }
  return -1;
}

/* SLURM's start latency as this replay sees it: a held one-node job from
 * submission to RUNNING (the daemon's poll, its release, SLURM's start);
 * the largest of `probes`. */
static double measure_latency(const opts *o, const char *dir, char *err, size_t errlen) {
  double worst = -1;
  char out[PATH_MAX + 32];
  snprintf(out, sizeof out, "%s/probe-%%j.out", dir);
  for (int64_t k = 0; k < o->probes; k++) {
    double t0 = sd_now();
    uint32_t id = sd_submit_held("ballast-probe", "#!/bin/sh\nsleep 1\n", "sd:req=30", false, 1, 1, 2,
                                 out, dir, err, errlen);
    if (id == 0) return -1;
    double lat = wait_running(id, t0, 120);
    if (lat < 0) {
      snprintf(err, errlen, "probe job %u did not start within 120 s (is ballast slurm-sd running?)",
               id);
      return -1;
    }
    if (lat > worst) worst = lat;
    /* let it end, so the replay starts on an idle machine */
    for (double t1 = sd_now(); sd_now() - t1 < 60;) {
      job_info_msg_t *m = NULL;
      bool done = true;
      if (slurm_load_job(&m, id, SHOW_ALL) == SLURM_SUCCESS && m->record_count > 0)
        done = (m->job_array[0].job_state & JOB_STATE_BASE) > JOB_SUSPENDED &&
               !(m->job_array[0].job_state & JOB_COMPLETING);
      if (m) slurm_free_job_info_msg(m);
      if (done) break;
      sd_sleep(0.1);
    }
  }
  return worst;
}

static void script_of(char *buf, size_t n, const char *dir, const bal_swf_job *j, int64_t cpn) {
  if (n < strlen(dir) + 1024) {
    buf[0] = '\0';
    return;
  }
  snprintf(buf, n,
           "#!/bin/sh\n"
           "# ballast slurm-replay: trace job %lld, %lld s of work per node\n"
           "# one single-node step per node, each its own step (multi-node steps work too:\n"
           "# docs/slurm.md; this script is what every published replay ran);\n"
           "# SLURMD_NODENAME names the step's node, not the batch script's, in its environment\n"
           "for n in $(scontrol show hostnames \"$SLURM_JOB_NODELIST\"); do\n"
           "  SLURMD_NODENAME=$n srun -N1 -n1 -w \"$n\" --exact %s/ballast-slurm-job --work %lld --demand %lld &\n"
           "done\n"
           "wait\n",
           (long long)j->id, (long long)j->runtime, dir, (long long)j->runtime, (long long)cpn);
}

/* Read what SLURM says of our jobs (its own clock, whole seconds); true
 * when every one has ended. */
static bool collect(rjob *jobs, int64_t n) {
  sd_cluster c;
  char err[256];
  if (sd_cluster_load(&c, NULL, err, sizeof err) != 0) return false;
  bool all = true;
  for (int64_t i = 0; i < n; i++) {
    rjob *r = &jobs[i];
    if (r->finished || r->slurm_id == 0) {
      all = all && (r->finished || r->slurm_id != 0);
      continue;
    }
    sd_job *j = sd_cluster_find(&c, r->slurm_id);
    if (!j) { /* purged before we saw it end */
      r->lost = r->finished = true;
      continue;
    }
    r->submit = (double)j->submit;
    if (j->state == SD_RUNNING || j->state == SD_FINISHED) r->start = (double)j->start;
    r->nmates = j->nmates;
    memcpy(r->mates, j->mates, sizeof r->mates);
    r->restarts = j->restarts;
    snprintf(r->state, sizeof r->state, "%s", sd_state_name(j->exit_state));
    if (j->state == SD_FINISHED) {
      r->end = (double)j->end;
      r->finished = true;
    } else {
      all = false;
    }
  }
  sd_cluster_free(&c);
  return all;
}

/* A job that ran, by its SLURM id: mates are named by SLURM id. */
typedef struct ran_id {
  int64_t slurm_id, rec;
} ran_id;

static int by_slurm_id(const void *a, const void *b) {
  int64_t x = ((const ran_id *)a)->slurm_id, y = ((const ran_id *)b)->slurm_id;
  return (x > y) - (x < y);
}

/* The metrics of bal_sched_summary from live outcomes: the jobs SLURM gave
 * a start and an end for become the simulator's job records, measured by
 * bal_sched_summarize(); lost counts the others, failed the ones that ran
 * but did not complete. times_mate counts the guests that ran, from their
 * admin comments. BAL_ENOMEM, or BAL_OK. */
static int live_summary(const rjob *jobs, int64_t n, int64_t nodes, int64_t cpn,
                        bal_sched_summary *s, int64_t *lost, int64_t *failed) {
  bal_sched_job *rec = calloc((size_t)n + 1, sizeof *rec);
  ran_id *ids = calloc((size_t)n + 1, sizeof *ids);
  int64_t *of = calloc((size_t)n + 1, sizeof *of); /* the rjob of each record */
  if (!rec || !ids || !of) {
    free(rec);
    free(ids);
    free(of);
    return BAL_ENOMEM;
  }
  int64_t k = 0;
  *lost = *failed = 0;
  for (int64_t i = 0; i < n; i++) {
    const rjob *r = &jobs[i];
    if (r->lost || r->start < 0 || r->end < 0) {
      (*lost)++;
      continue;
    }
    if (strcmp(r->state, "COMPLETED")) (*failed)++;
    bal_sched_job *o = &rec[k];
    o->id = r->src->id;
    o->submit = (int64_t)r->submit; /* SLURM's whole seconds, less a whole zero */
    o->runtime = r->src->runtime;
    o->req_time = r->src->req_time;
    o->procs = r->src->procs;
    o->nodes = (r->src->procs + cpn - 1) / cpn;
    o->start = r->start;
    o->end = r->end;
    o->reservation = -1;
    o->mates = r->nmates;
    o->malleable = true;
    ids[k] = (ran_id){r->slurm_id, k};
    of[k++] = i;
  }
  qsort(ids, (size_t)k, sizeof *ids, by_slurm_id);
  for (int64_t g = 0; g < k; g++) {
    const rjob *r = &jobs[of[g]];
    for (int m = 0; m < r->nmates; m++) {
      ran_id key = {r->mates[m], 0};
      const ran_id *hit = bsearch(&key, ids, (size_t)k, sizeof *ids, by_slurm_id);
      if (hit) rec[hit->rec].times_mate++;
    }
  }
  int rc = bal_sched_summarize(rec, k, nodes, s);
  free(rec);
  free(ids);
  free(of);
  return rc;
}

/* The figures of a bal_sched_summary under `ballast sched --json`'s keys,
 * into the object being written. */
static void json_summary_fields(json_writer *j, const bal_sched_summary *s) {
  json_int(j, "jobs", s->jobs);
  json_double(j, "makespan_s", s->makespan);
  json_double(j, "avg_wait_s", s->avg_wait);
  json_double(j, "avg_response_s", s->avg_response);
  json_double(j, "avg_slowdown", s->avg_slowdown);
  json_double(j, "avg_bounded_slowdown", s->avg_bounded_slowdown);
  json_double(j, "utilization", s->utilization);
  json_int(j, "malleable_jobs", s->malleable_jobs);
  json_int(j, "mates", s->mates);
  json_int(j, "mate_selections", s->mate_selections);
}

static void row(const char *name, double live, double sim, int decimals) {
  printf("%-26s %14.*f %14.*f\n", name, decimals, live, decimals, sim);
}

static bool write_csv(const opts *o, const rjob *jobs, int64_t n, const bal_sched_result *sim) {
  out_file out;
  if (!out_open(&out, PROG, "--jobs-csv", o->jobs_csv)) return false;
  int64_t ns;
  const bal_sched_job *sj = bal_sched_result_jobs(sim, &ns);
  fprintf(out.f, "id,slurm_id,nodes,runtime,req_time,submit,live_start,live_end,sim_start,"
                 "sim_end,live_mates,sim_mates,state,restarts\n");
  for (int64_t i = 0; i < n; i++) {
    const rjob *r = &jobs[i];
    const bal_sched_job *s = i < ns ? &sj[i] : NULL;
    fprintf(out.f, "%lld,%u,%lld,%lld,%lld,%.0f,%.0f,%.0f,%.10g,%.10g,%d,%lld,%s,%lld\n",
            (long long)r->src->id, r->slurm_id, (long long)(s ? s->nodes : 0),
            (long long)r->src->runtime, (long long)r->src->req_time, r->submit, r->start, r->end,
            s ? s->start : -1, s ? s->end : -1, r->nmates, (long long)(s ? s->mates : 0),
            r->lost ? "LOST" : r->state, (long long)r->restarts);
  }
  return out_commit(&out);
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  bal_sched_config_init(&o->cfg);
  o->cfg.policy = "sd";
  o->cfg.sharing_factor = NAN; /* not given: the SPANK plugin's (main) */
  o->from_id = -1;
  o->count = 100;
  o->speedup = 1;
  o->probes = 3;
  o->runtime_model = 1;
  o->timeout = 0;
  o->min_runtime = REPLAY_MIN_RUNTIME_S;
  char policy_help[192];
  sched_policy_help(policy_help, sizeof policy_help, "sd");
  static const char *const models[] = {"ideal", "worst", NULL};
  const cli_flag flags[] = {
      CLI_SECTION("Window (bal_swf_scale):"),
      CLI_INT("--from", "ID", &o->from_id, 0, INT64_MAX, "first job, by job number (default: the first)"),
      CLI_INT("--count", "N", &o->count, 1, 100000, "jobs in the window (100)"),
      CLI_DOUBLE("--speedup", "K", &o->speedup, 1, 1e9, "divide submit and run times by K (1)"),
      CLI_INT("--min-runtime", "S", &o->min_runtime, 1, 1000000,
              "shortest runtime after the speedup (10; a warning when\n"
              "under 3 x the measured start latency)"),
      CLI_INT("--trace-nodes", "N", &o->trace_nodes, 1, INT32_MAX,
              "the trace's nodes (default: its header)"),
      CLI_INT("--trace-cores", "C", &o->trace_cores, 1, INT32_MAX,
              "the trace's cores per node (default: its header)"),
      CLI_SECTION("Sandbox (default: every usable node of the SLURM in $SLURM_CONF):"),
      CLI_INT("--nodes", "N", &o->nodes, 1, INT32_MAX, "nodes to scale the trace to"),
      CLI_INT("--cpus", "C", &o->cpus, 1, INT32_MAX, "CPUs per node"),
      CLI_INT("--probes", "N", &o->probes, 1, 100, "probe jobs that measure the start latency (3)"),
      CLI_DOUBLE("--timeout", "S", &o->timeout, 0, 1e7,
                 "give up waiting after S seconds (default: 3 x the\n"
                 "simulated makespan + 300)"),
      CLI_SECTION("Policy (given to ballast slurm-sd and to the simulator):"),
      CLI_STRING("--policy", "P", &o->cfg.policy, policy_help),
      SCHED_SD_FLAGS(&o->cfg),
      CLI_CHOICE("--runtime-model", "M", &o->runtime_model, models,
                 "the simulator's model: worst (default: a test job\n"
                 "ends when its slowest node does) or ideal"),
      CLI_BOOL("--no-daemon", &o->no_daemon,
               "do not start ballast slurm-sd: one is running already\n"
               "with the same policy"),
      CLI_SECTION("Output:"),
      CLI_PATH("--daemon-log", "FILE", &o->daemon_log,
               "the daemon's JSON lines (default: OUT-DIR/slurm-sd.log)"),
      CLI_PATH("--out-dir", "DIR", &o->out_dir,
               "the jobs' output files (default: a new directory in $TMPDIR)"),
      CLI_PATH("--jobs-csv", "FILE", &o->jobs_csv, "per job: live and simulated start and end"),
      CLI_BOOL("--json", &o->json, "print one JSON object (results and every parameter)"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast slurm-replay TRACE.swf[.gz] [--from ID] [--count N] [--speedup K]\n"
               "                            [--nodes N --cpus C] [--policy P] [options]",
      .description =
          "Replay a window of a trace on SLURM (the sandbox: SLURM_CONF) scheduled by\n"
          "ballast slurm-sd, as malleable test jobs, and print the metrics of ballast\n"
          "sched beside the simulator's for the same scaled trace.",
      .flags = flags,
      .positional = "TRACE",
      .positional_dest = &o->trace};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (!o->trace) return cli_usage_error(PROG, "missing TRACE (see --help)");
  if ((rc = sched_check_policy(PROG, "--policy", o->cfg.policy)) != CLI_CONTINUE) return rc;
  if ((o->nodes > 0) != (o->cpus > 0))
    return cli_usage_error(PROG, "--nodes and --cpus go together");
  if (o->out_dir && !out_check_dir_itself(PROG, "--out-dir", o->out_dir)) return 2;
  if (o->jobs_csv && !out_check_dir(PROG, "--jobs-csv", o->jobs_csv)) return 2;
  if (o->daemon_log && !out_check_dir(PROG, "--daemon-log", o->daemon_log)) return 2;
  return CLI_CONTINUE;
}

int main(int argc, char **argv) {
  opts o;
  int rc = parse(argc, argv, &o);
  if (rc != CLI_CONTINUE) return rc;
  bal_swf_trace *trace = NULL, *scaled = NULL;
  bal_swf_error serr;
  memset(&serr, 0, sizeof serr);
  rc = bal_swf_read_file(o.trace, NULL, &trace, &serr);
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: %s: %s\n", PROG, o.trace, bal_strerror(rc));
    return 1;
  }
  int64_t tn, tc;
  if (bal_swf_machine(trace, o.trace_nodes, o.trace_cores, &tn, &tc) != BAL_OK) {
    fprintf(stderr, "%s: %s: the header does not give the machine: use --trace-nodes and "
                    "--trace-cores\n", PROG, o.trace);
    bal_swf_trace_destroy(trace);
    return 2;
  }
  if (sd_slurm_init(PROG) != 0) {
    bal_swf_trace_destroy(trace);
    return 1;
  }
  char err[1024], dir[PATH_MAX], outdir[PATH_MAX], dlog[PATH_MAX + 32];
  /* The simulator and the daemon use the plugin's sharing factor. */
  if (sd_plugin_sharing_factor(o.cfg.sharing_factor, &o.cfg.sharing_factor, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", PROG, err);
    bal_swf_trace_destroy(trace);
    slurm_fini();
    return 1;
  }
  if (err[0]) fprintf(stderr, "%s: warning: %s\n", PROG, err);
  sd_cluster c;
  if (sd_cluster_load(&c, NULL, err, sizeof err) != 0) {
    fprintf(stderr, "%s: %s\n", PROG, err);
    bal_swf_trace_destroy(trace);
    return 1;
  }
  int64_t usable = 0, cpn = 0;
  for (int64_t i = 0; i < c.nnodes; i++)
    if (c.nodes[i].usable) {
      usable++;
      if (cpn == 0 || c.nodes[i].cpus < cpn) cpn = c.nodes[i].cpus;
    }
  sd_cluster_free(&c);
  if (o.nodes == 0) {
    o.nodes = usable;
    o.cpus = cpn;
  }
  if (o.nodes > usable || o.cpus > cpn || o.nodes == 0) {
    fprintf(stderr, "%s: the SLURM has %lld usable nodes of %lld CPUs: --nodes %lld --cpus %lld "
                    "does not fit\n", PROG, (long long)usable, (long long)cpn, (long long)o.nodes,
            (long long)o.cpus);
    bal_swf_trace_destroy(trace);
    return 1;
  }
  self_dir(dir, sizeof dir);
  if (o.out_dir) {
    mkdir(o.out_dir, 0755);
    snprintf(outdir, sizeof outdir, "%s", o.out_dir);
  } else {
    char tmpl[PATH_MAX];
    if (!cli_temp_template(tmpl, sizeof tmpl, "ballast-replay") || !mkdtemp(tmpl)) {
      fprintf(stderr, "%s: cannot create a directory in $TMPDIR: %s\n", PROG, strerror(errno));
      bal_swf_trace_destroy(trace);
      return 1;
    }
    snprintf(outdir, sizeof outdir, "%s", tmpl);
  }
  /* an absolute directory: SLURM writes the outputs from the job's side */
  char absdir[PATH_MAX];
  if (realpath(outdir, absdir)) snprintf(outdir, sizeof outdir, "%s", absdir);
  snprintf(dlog, sizeof dlog, "%s/slurm-sd.log", outdir);
  if (!o.daemon_log) o.daemon_log = dlog;

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  pid_t daemon_pid = o.no_daemon ? 0 : start_daemon(&o, dir);
  int status = 1;
  rjob *jobs = NULL;
  bal_sched_result *sim = NULL;
  double latency = measure_latency(&o, outdir, err, sizeof err);
  if (latency < 0) {
    fprintf(stderr, "%s: %s\n", PROG, err);
    goto out;
  }
  /* Fixed, not derived from the latency of the moment: two runs of a
   * window (EASY and SD) replay the same scaled trace. */
  int64_t min_runtime = o.min_runtime;
  if ((double)min_runtime < 3 * latency)
    fprintf(stderr, "%s: warning: --min-runtime %lld s is under 3 x the start latency of %.2f s: "
                    "SLURM's start lag is a large part of the shortest jobs\n",
            PROG, (long long)min_runtime, latency);
  bal_swf_scaling sc;
  bal_swf_scaling_init(&sc);
  sc.from_id = o.from_id;
  sc.count = o.count;
  sc.trace_nodes = tn;
  sc.trace_cores = tc;
  sc.nodes = o.nodes;
  sc.cores_per_node = o.cpus;
  sc.speedup = o.speedup;
  sc.min_runtime = min_runtime;
  /* requested times stay in seconds (sd:req= in the comment): minutes
   * would change the predictions; SLURM's limit is the next whole minute */
  bal_swf_scaling_stats sst;
  rc = bal_swf_scale(trace, &sc, &scaled, &sst);
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: scaling the window: %s%s\n", PROG, bal_strerror(rc),
            rc == BAL_ENOTFOUND ? " (no job with the --from number)" : "");
    goto out;
  }
  if (sst.lengthened > 0)
    fprintf(stderr, "%s: %lld of %lld jobs lengthened to %lld s (--min-runtime), %lld s in total\n",
            PROG, (long long)sst.lengthened, (long long)sst.jobs, (long long)min_runtime,
            (long long)sst.lengthened_s);
  bal_sched_config scfg = o.cfg;
  scfg.nodes = o.nodes;
  scfg.cores_per_node = o.cpus;
  scfg.runtime_model = o.runtime_model ? BAL_SCHED_WORST : BAL_SCHED_IDEAL;
  rc = bal_sched_run(scaled, &scfg, &sim);
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: simulating the scaled window: %s\n", PROG, bal_strerror(rc));
    goto out;
  }
  const bal_sched_summary *ss = bal_sched_result_summary(sim);
  double timeout = o.timeout > 0 ? o.timeout : 3 * (isfinite(ss->makespan) ? ss->makespan : 0) + 300;
  int64_t n = scaled->njobs;
  jobs = calloc((size_t)n + 1, sizeof *jobs);
  if (!jobs) goto out;
  /* the origin on a whole second: SLURM's times are whole seconds */
  double origin = ceil(sd_now());
  sd_sleep(origin - sd_now());
  for (int64_t i = 0; i < n && !stop_signal; i++) {
    const bal_swf_job *j = &scaled->jobs[i];
    rjob *r = &jobs[i];
    r->src = j;
    r->submit = r->start = r->end = -1;
    sd_sleep(origin + (double)j->submit - sd_now());
    int64_t nodes = (j->procs + o.cpus - 1) / o.cpus;
    char script[PATH_MAX + 1024], comment[128], name[64], out[PATH_MAX + 32];
    script_of(script, sizeof script, dir, j, o.cpus);
    snprintf(comment, sizeof comment, "sd:malleable sd:req=%lld", (long long)j->req_time);
    snprintf(name, sizeof name, "replay-%lld", (long long)j->id);
    snprintf(out, sizeof out, "%s/job-%lld-%%j.out", outdir, (long long)j->id);
    /* SLURM's limit is in minutes: the requested time rounded up, which
     * the daemon extends when the job is shrunk as a mate */
    uint32_t limit = (uint32_t)((j->req_time + 59) / 60);
    r->slurm_id = sd_submit_held(name, script, comment, true, nodes, nodes * o.cpus, limit, out, outdir,
                                 err, sizeof err);
    if (r->slurm_id == 0) fprintf(stderr, "%s: job %lld: %s\n", PROG, (long long)j->id, err);
  }
  for (double t0 = sd_now(); !stop_signal && sd_now() - t0 < timeout;) {
    if (collect(jobs, n)) break;
    sd_sleep(0.5);
  }
  collect(jobs, n);
  /* SLURM's times as seconds from the replay's origin on SLURM's clock:
   * the earliest (submit - planned submit), so the simulator's times and
   * the live ones share their zero */
  double zero = INFINITY;
  for (int64_t i = 0; i < n; i++)
    if (jobs[i].submit >= 0) zero = fmin(zero, jobs[i].submit - (double)jobs[i].src->submit);
  for (int64_t i = 0; i < n && isfinite(zero); i++) {
    rjob *r = &jobs[i];
    if (r->submit >= 0) r->submit -= zero;
    if (r->start >= 0) r->start -= zero;
    if (r->end >= 0) r->end -= zero;
  }
  stop_daemon(daemon_pid);
  daemon_pid = 0;
  bal_sched_summary live;
  int64_t lost, failed;
  rc = live_summary(jobs, n, o.nodes, o.cpus, &live, &lost, &failed);
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: the live figures: %s\n", PROG, bal_strerror(rc));
    goto out;
  }
  /* start times against the simulator's */
  int64_t ns;
  const bal_sched_job *sj = bal_sched_result_jobs(sim, &ns);
  double dev_sum = 0, dev_max = 0;
  int64_t ndev = 0;
  for (int64_t i = 0; i < n && i < ns; i++)
    if (jobs[i].start >= 0 && sj[i].start >= 0) {
      double dv = fabs(jobs[i].start - sj[i].start);
      dev_sum += dv;
      dev_max = fmax(dev_max, dv);
      ndev++;
    }
  if (o.jobs_csv && !write_csv(&o, jobs, n, sim)) goto out;
  if (o.json) {
    json_writer j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_string(&j, "tool", PROG);
    json_string(&j, "trace", o.trace);
    json_string(&j, "policy", o.cfg.policy);
    json_int(&j, "nodes", o.nodes);
    json_int(&j, "cores_per_node", o.cpus);
    json_int(&j, "trace_nodes", tn);
    json_int(&j, "trace_cores", tc);
    json_int(&j, "from", scaled->njobs > 0 ? trace->jobs[sst.first_index].id : -1);
    json_int(&j, "count", o.count);
    json_double(&j, "speedup", o.speedup);
    json_int(&j, "min_runtime", min_runtime);
    json_int(&j, "lengthened", sst.lengthened);
    json_int(&j, "lengthened_s", sst.lengthened_s);
    json_int(&j, "capped", sst.capped);
    json_double(&j, "start_latency_s", latency);
    json_int(&j, "max_mates", o.cfg.max_mates);
    if (o.cfg.dynamic_max_slowdown) json_string(&j, "max_slowdown", "dynamic");
    else if (isinf(o.cfg.max_slowdown)) json_string(&j, "max_slowdown", "inf");
    else json_double(&j, "max_slowdown", o.cfg.max_slowdown);
    json_double(&j, "sharing_factor", o.cfg.sharing_factor);
    json_int(&j, "ranks_per_node", o.cfg.ranks_per_node);
    json_string(&j, "runtime_model", o.runtime_model ? "worst" : "ideal");
    json_string(&j, "out_dir", outdir);
    json_string(&j, "daemon_log", o.daemon_log);
    json_int(&j, "lost", lost);
    json_int(&j, "not_completed", failed);
    json_double(&j, "start_deviation_mean_s", ndev ? dev_sum / (double)ndev : NAN);
    json_double(&j, "start_deviation_max_s", ndev ? dev_max : NAN);
    /* the live figures at the top level, with the keys of ballast sched --json */
    json_summary_fields(&j, &live);
    json_object_begin(&j, "simulator");
    json_summary_fields(&j, ss);
    json_object_end(&j);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else {
    printf("trace %s, %lld jobs from %lld, speedup %g, on %lld nodes x %lld CPUs, policy %s\n",
           o.trace, (long long)n, (long long)(n > 0 ? trace->jobs[sst.first_index].id : -1),
           o.speedup, (long long)o.nodes, (long long)o.cpus, o.cfg.policy);
    printf("start latency %.2f s; runtimes at least %lld s (%lld lengthened)\n\n", latency,
           (long long)min_runtime, (long long)sst.lengthened);
    printf("%-26s %14s %14s\n", "metric", "live", "simulator");
    printf("%-26s %14lld %14lld\n", "jobs", (long long)live.jobs, (long long)ss->jobs);
    row("makespan (s)", live.makespan, ss->makespan, 0);
    row("average wait (s)", live.avg_wait, ss->avg_wait, 2);
    row("average response (s)", live.avg_response, ss->avg_response, 2);
    row("average slowdown", live.avg_slowdown, ss->avg_slowdown, 3);
    row("average bounded slowdown", live.avg_bounded_slowdown, ss->avg_bounded_slowdown, 3);
    row("utilization", live.utilization, ss->utilization, 4);
    printf("%-26s %14lld %14lld\n", "malleable starts", (long long)live.malleable_jobs,
           (long long)ss->malleable_jobs);
    printf("%-26s %14lld %14lld\n", "mates (distinct jobs)", (long long)live.mates,
           (long long)ss->mates);
    printf("\nlost %lld, not completed %lld; start vs simulator: mean %.2f s, max %.2f s\n",
           (long long)lost, (long long)failed, ndev ? dev_sum / (double)ndev : NAN, dev_max);
    printf("job outputs and the daemon's log in %s\n", outdir);
  }
  status = lost == 0 && !stop_signal ? 0 : 1;
out:
  stop_daemon(daemon_pid);
  free(jobs);
  bal_sched_result_destroy(sim);
  bal_swf_trace_destroy(scaled);
  bal_swf_trace_destroy(trace);
  slurm_fini();
  return status;
}
