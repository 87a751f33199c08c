/* `ballast sched`: replay an SWF workload trace under a scheduling policy
 * (the names come from bal_sched_policy_name()) and report wait, response
 * time, slowdown, utilization. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "core/clock.h"
#include "sched_tool.h"

const char *const SCHED_PROG = "ballast-sched";
#define PROG SCHED_PROG

/* The registered policies joined by sep, for --help and errors. */
static const char *policy_list(char *buf, size_t n, const char *sep) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; bal_sched_policy_name(i) && len < n; i++) {
    int w = snprintf(buf + len, n - len, "%s%s", i ? sep : "", bal_sched_policy_name(i));
    if (w < 0) break;
    len += (size_t)w;
  }
  return buf;
}

static void usage(FILE *out) {
  char bar[256], comma[256];
  policy_list(bar, sizeof bar, "|");
  policy_list(comma, sizeof comma, ", ");
  fprintf(out,
          "usage: ballast sched [--policy %s] [options] TRACE.swf[.gz]\n\n"
          "Replay a Standard Workload Format trace on a cluster of identical nodes\n"
          "under a scheduling policy and report makespan, wait, response time,\n"
          "slowdown, bounded slowdown, utilization and malleability counts.\n\n"
          "Trace:\n"
          "  --partition ID        keep only jobs of partition ID (field 16)\n"
          "  --from S, --to S      keep jobs submitted in [S, S) seconds (log time)\n"
          "  --first N             keep only the first N jobs (after the other filters)\n"
          "  --lenient             skip and count malformed lines instead of failing\n"
          "                        (a file with no valid job line still fails)\n"
          "Machine (default: the header's MaxNodes/MaxProcs when they determine both):\n"
          "  --nodes N             number of nodes\n"
          "  --cores-per-node C    cores per node; a job gets ceil(procs / C) nodes\n"
          "Policy:\n"
          "  --policy P            %s (default: easy; sd is SD-Policy)\n"
          "  --max-mates M         sd: most running jobs shrunk for one start (2)\n"
          "  --max-slowdown X      sd: mate cut-off: a number (10), inf or dynamic\n"
          "                        (mean predicted slowdown of running jobs)\n"
          "  --sharing-factor F    sd: fraction of a mate's cores lent, (0,1) (0.5)\n"
          "  --runtime-model M     sd: how shrinking stretches jobs: ideal (default)\n"
          "                        or worst (predictions always use worst)\n"
          "  --core-demand D       sd: cores a job uses per node unshrunk: procs\n"
          "                        (ceil(procs / nodes), default) or node (all)\n"
          "  --malleable-fraction F  sd: fraction of jobs that are malleable (1)\n"
          "  --seed S              sd: seed of the malleable draw (1)\n"
          "Output:\n"
          "  --json                print one JSON object (results and every parameter)\n"
          "  --jobs-csv FILE       per-job id,submit,start,end,nodes,... as CSV\n"
          "  --plot DIR            PNG heatmaps (slowdown, runtime, wait ratios by size\n"
          "                        x runtime) of --baseline against this run, and\n"
          "                        slowdown per day (needs gnuplot)\n"
          "  --baseline P          policy compared with in --plot (easy)\n"
          "  --help, --version\n",
          bar, comma);
}

static bool parse_i64(const char *a, const char *v, int64_t min, int64_t *out) {
  return cli_parse_i64(PROG, a, v, min, INT64_MAX, out);
}

static int parse(int argc, char **argv, sched_opts *o) {
  memset(o, 0, sizeof *o);
  bal_swf_options_init(&o->swf);
  bal_sched_config_init(&o->cfg);
  o->baseline = "easy";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (cli_help_or_version(PROG, a, usage)) return 0;
    if (!strcmp(a, "--json")) {
      o->json = true;
      continue;
    }
    if (!strcmp(a, "--lenient")) {
      o->swf.lenient = true;
      continue;
    }
    if (a[0] != '-' || a[1] == '\0') {
      if (o->trace) {
        fprintf(stderr, "%s: only one trace, got '%s' and '%s'\n", PROG, o->trace, a);
        return 2;
      }
      o->trace = a;
      continue;
    }
    static const char *const valued[] = {
        "--policy", "--baseline", "--partition", "--from", "--to", "--first", "--nodes",
        "--cores-per-node", "--max-mates", "--max-slowdown", "--sharing-factor",
        "--runtime-model", "--core-demand", "--malleable-fraction", "--seed", "--jobs-csv", "--plot"};
    bool takes = false;
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) takes |= !strcmp(a, valued[k]);
    if (!takes) {
      cli_unknown(PROG, a);
      return 2;
    }
    if (!(v = cli_value(PROG, argc, argv, &i))) return 2;
    bool ok = true;
    if (!strcmp(a, "--policy")) {
      o->cfg.policy = v;
    } else if (!strcmp(a, "--baseline")) {
      o->baseline = v;
    } else if (!strcmp(a, "--partition")) {
      ok = parse_i64(a, v, 0, &o->swf.partition);
    } else if (!strcmp(a, "--from")) {
      ok = cli_parse_i64(PROG, a, v, INT64_MIN, INT64_MAX, &o->swf.from);
    } else if (!strcmp(a, "--to")) {
      ok = cli_parse_i64(PROG, a, v, INT64_MIN, INT64_MAX, &o->swf.to);
    } else if (!strcmp(a, "--first")) {
      ok = parse_i64(a, v, 1, &o->swf.first);
    } else if (!strcmp(a, "--nodes")) {
      ok = cli_parse_i64(PROG, a, v, 1, INT32_MAX, &o->nodes);
    } else if (!strcmp(a, "--cores-per-node")) {
      ok = cli_parse_i64(PROG, a, v, 1, INT32_MAX, &o->cores);
    } else if (!strcmp(a, "--max-mates")) {
      ok = cli_parse_i64(PROG, a, v, 1, BAL_SCHED_MAX_MATES, &o->cfg.max_mates);
    } else if (!strcmp(a, "--max-slowdown")) {
      if (!strcmp(v, "inf") || !strcmp(v, "infinite")) {
        o->cfg.max_slowdown = INFINITY;
      } else if (!strcmp(v, "dynamic")) {
        o->cfg.dynamic_max_slowdown = true;
      } else {
        ok = cli_parse_double(PROG, a, v, 1e-9, 1e300, &o->cfg.max_slowdown);
      }
    } else if (!strcmp(a, "--sharing-factor")) {
      ok = cli_parse_double(PROG, a, v, 0, 1, &o->cfg.sharing_factor);
      if (ok && (o->cfg.sharing_factor <= 0 || o->cfg.sharing_factor >= 1)) {
        fprintf(stderr, "%s: %s: must be strictly between 0 and 1\n", PROG, a);
        ok = false;
      }
    } else if (!strcmp(a, "--runtime-model")) {
      if (!strcmp(v, "ideal")) o->cfg.runtime_model = BAL_SCHED_IDEAL;
      else if (!strcmp(v, "worst")) o->cfg.runtime_model = BAL_SCHED_WORST;
      else {
        fprintf(stderr, "%s: %s: '%s' is not ideal or worst\n", PROG, a, v);
        ok = false;
      }
    } else if (!strcmp(a, "--core-demand")) {
      if (!strcmp(v, "procs")) o->cfg.core_demand = BAL_SCHED_DEMAND_PROCS;
      else if (!strcmp(v, "node")) o->cfg.core_demand = BAL_SCHED_DEMAND_NODE;
      else {
        fprintf(stderr, "%s: %s: '%s' is not procs or node\n", PROG, a, v);
        ok = false;
      }
    } else if (!strcmp(a, "--malleable-fraction")) {
      ok = cli_parse_double(PROG, a, v, 0, 1, &o->cfg.malleable_fraction);
    } else if (!strcmp(a, "--seed")) {
      ok = cli_parse_u64(PROG, a, v, &o->cfg.seed);
    } else if (!strcmp(a, "--jobs-csv")) {
      o->jobs_csv = v;
    } else if (!strcmp(a, "--plot")) {
      o->plot_dir = v;
    }
    if (!ok) return 2;
  }
  for (int k = 0; k < 2; k++) {
    const char *p = k ? o->baseline : o->cfg.policy;
    bool known = false;
    for (int i = 0; bal_sched_policy_name(i); i++) known |= !strcmp(p, bal_sched_policy_name(i));
    if (!known) {
      char names[256];
      fprintf(stderr, "%s: %s: unknown policy '%s' (%s)\n", PROG, k ? "--baseline" : "--policy",
              p, policy_list(names, sizeof names, ", "));
      return 2;
    }
  }
  if (o->swf.from > o->swf.to) {
    fprintf(stderr, "%s: --from must not be after --to\n", PROG);
    return 2;
  }
  if (!o->trace) {
    fprintf(stderr, "%s: missing TRACE (try --help)\n", PROG);
    return 2;
  }
  return -1;
}

/* Why the machine could not be resolved, naming what was given: the
 * header completes a missing --nodes or --cores-per-node only when its
 * MaxProcs is a multiple of the one given. */
static void machine_error(const sched_opts *o, const bal_swf_trace *t) {
  long long hn = (long long)t->header.max_nodes, hp = (long long)t->header.max_procs;
  if (o->nodes == 0 && o->cores == 0)
    fprintf(stderr,
            "%s: %s: the header does not determine the machine (MaxNodes %lld, MaxProcs "
            "%lld); give --nodes and --cores-per-node\n",
            PROG, o->trace, hn, hp);
  else if (hp <= 0)
    fprintf(stderr, "%s: %s: %s was given but the header has no MaxProcs to derive %s from; give it\n",
            PROG, o->trace, o->nodes ? "--nodes" : "--cores-per-node",
            o->nodes ? "--cores-per-node" : "--nodes");
  else
    fprintf(stderr,
            "%s: %s: %s %lld was given but the header's MaxProcs (%lld) is not a multiple "
            "of it; give %s too\n",
            PROG, o->trace, o->nodes ? "--nodes" : "--cores-per-node",
            (long long)(o->nodes ? o->nodes : o->cores), hp,
            o->nodes ? "--cores-per-node" : "--nodes");
}

static void progress(int64_t done, int64_t total, void *arg) {
  const char *what = arg;
  fprintf(stderr, "\r%s: %s %3d%%", PROG, what, (int)(100 * done / (total > 0 ? total : 1)));
  if (done >= total) fputs("\r\033[K", stderr);
}

static int simulate(const sched_opts *o, const bal_swf_trace *t, bal_sched_config cfg,
                    const char *what, bal_sched_result **out, double *secs) {
  if (isatty(2)) {
    cfg.progress = progress;
    cfg.progress_arg = (void *)what;
  }
  double t0 = bal__now_s();
  int rc = bal_sched_run(t, &cfg, out);
  *secs = bal__now_s() - t0;
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: %s: simulation failed: %s\n", PROG, o->trace, bal_strerror(rc));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  sched_opts o;
  int rc = parse(argc, argv, &o);
  if (rc >= 0) return rc;
  sched_timing tm = {0};
  double t0 = bal__now_s();
  bal_swf_trace *trace = NULL;
  bal_swf_error err;
  rc = bal_swf_read_file(o.trace, &o.swf, &trace, &err);
  if (rc != BAL_OK) {
    if (rc == BAL_EFORMAT && err.line == 0) /* lenient, and nothing was SWF */
      fprintf(stderr, "%s: %s: %s\n", PROG, o.trace, err.message);
    else if (rc == BAL_EFORMAT)
      fprintf(stderr, "%s: %s:%lld: %s (use --lenient to skip malformed lines)\n", PROG,
              o.trace, (long long)err.line, err.message);
    else
      fprintf(stderr, "%s: %s: %s%s%s\n", PROG, o.trace, bal_strerror(rc),
              err.message[0] ? ": " : "", err.message);
    return 1;
  }
  tm.read_s = bal__now_s() - t0;
  if (bal_swf_machine(trace, o.nodes, o.cores, &o.cfg.nodes, &o.cfg.cores_per_node) != BAL_OK) {
    machine_error(&o, trace);
    bal_swf_trace_destroy(trace);
    return 1;
  }
  if (trace->njobs == 0)
    fprintf(stderr, "%s: %s: warning: no jobs to simulate; averages are n/a\n", PROG, o.trace);
  bal_sched_result *res = NULL, *base = NULL;
  rc = simulate(&o, trace, o.cfg, o.cfg.policy, &res, &tm.sim_s);
  if (!rc && o.plot_dir) {
    bal_sched_config bc = o.cfg;
    bc.policy = o.baseline;
    rc = simulate(&o, trace, bc, o.baseline, &base, &tm.baseline_s);
  }
  if (!rc) {
    const bal_sched_summary *s = bal_sched_result_summary(res);
    if (o.json) sched_print_json(&o, trace, s, &tm);
    else sched_print_table(&o, trace, s, &tm);
    if (o.jobs_csv && !sched_write_csv(o.jobs_csv, res)) rc = 1;
    if (o.plot_dir && !sched_plot(o.plot_dir, res, base, o.cfg.policy, o.baseline)) rc = 1;
  }
  bal_sched_result_destroy(res);
  bal_sched_result_destroy(base);
  bal_swf_trace_destroy(trace);
  return rc;
}
