/* `ballast sched`: replay an SWF workload trace under a scheduling policy
 * (the names come from bal_sched_policy_name()) and report wait, response
 * time, slowdown, utilization. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/names.h"
#include "common/output.h"
#include "common/sched_flags.h"
#include "common/share_flag.h"
#include "core/clock.h"
#include "sched_tool.h"

const char *const SCHED_PROG = "ballast-sched";
#define PROG SCHED_PROG

/* Is key=value a setting its policy takes (bal_sched_setting_check())? If
 * not, say which part is wrong and what would be right. A malformed key is
 * left to bal_sched_config_set()'s message. */
static bool setting_known(const char *key, const char *value, char *err, size_t n) {
  const char *accepted = NULL;
  int rc = bal_sched_setting_check(key, value, &accepted);
  if (rc == BAL_OK || (rc == BAL_EINVAL && !accepted)) return true;
  if (rc == BAL_EINVAL) {
    snprintf(err, n, "'%s' is not a value of %s (%s)", value, key, accepted);
    return false;
  }
  if (rc != BAL_ENOTFOUND) {
    snprintf(err, n, "'%s': %s", key, bal_strerror(rc));
    return false;
  }
  /* the key has a dot: bal_sched_setting_check() found it well-formed */
  const char *dot = strchr(key, '.');
  char policy[BAL_SCHED_SETTING_LEN], list[192] = "";
  snprintf(policy, sizeof policy, "%.*s", (int)(dot - key), key);
  if (!names_find(bal_sched_policy_name, policy)) {
    snprintf(err, n, "'%s': no policy '%s' (%s)", key, policy,
             sched_policy_list(list, sizeof list, ", "));
    return false;
  }
  for (int i = 0; bal_sched_setting_name(policy, i); i++) {
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
             bal_sched_setting_name(policy, i));
  }
  if (list[0])
    snprintf(err, n, "'%s': %s has no setting '%s' (its settings: %s)", key, policy, dot + 1,
             list);
  else snprintf(err, n, "'%s': %s has no settings", key, policy);
  return false;
}

/* --set KEY=VALUE (repeatable): a setting owned by one policy, whose key
 * and value are checked here (bal_sched_run() checks them again). */
static bool parse_setting(const char *v, void *dest, char *err, size_t n) {
  const char *eq = strchr(v, '=');
  char key[BAL_SCHED_SETTING_LEN];
  if (!eq || eq == v) {
    snprintf(err, n, "'%s' is not POLICY.NAME=VALUE", v);
    return false;
  }
  if ((size_t)(eq - v) >= sizeof key) {
    snprintf(err, n, "'%s': malformed or too long (key and value under %d bytes)", v,
             BAL_SCHED_SETTING_LEN);
    return false;
  }
  snprintf(key, sizeof key, "%.*s", (int)(eq - v), v);
  if (!setting_known(key, eq + 1, err, n)) return false;
  if (bal_sched_config_set(dest, key, eq + 1) != BAL_OK) {
    snprintf(err, n, "'%s': malformed or too long (key and value under %d bytes, at most %d settings)",
             v, BAL_SCHED_SETTING_LEN, BAL_SCHED_MAX_SETTINGS);
    return false;
  }
  return true;
}

static int parse(int argc, char **argv, sched_opts *o) {
  memset(o, 0, sizeof *o);
  bal_swf_options_init(&o->swf);
  bal_sched_config_init(&o->cfg);
  bal_swf_scaling_init(&o->scale);
  int64_t from_index = -1;
  o->baseline = "easy";
  char policies[128], policy_help[192], usage[256];
  sched_policy_list(policies, sizeof policies, "|");
  snprintf(usage, sizeof usage, "ballast sched [--policy %s] [options] TRACE.swf[.gz]", policies);
  sched_policy_help(policy_help, sizeof policy_help, "easy; sd is SD-Policy");
  int runtime_model = 0, core_demand = 0;
  static const char *const models[] = {"ideal", "worst", NULL};
  static const char *const demands[] = {"procs", "node", NULL};
  const cli_flag flags[] = {
      CLI_SECTION("Trace:"),
      CLI_INT("--partition", "ID", &o->swf.partition, 0, INT64_MAX,
              "keep only jobs of partition ID (field 16)"),
      CLI_INT("--from", "S", &o->swf.from, INT64_MIN, INT64_MAX,
              "keep jobs submitted at or after S seconds (log time)"),
      CLI_INT("--to", "S", &o->swf.to, INT64_MIN, INT64_MAX,
              "keep jobs submitted before S seconds (log time)"),
      CLI_INT("--first", "N", &o->swf.first, 1, INT64_MAX,
              "keep only the first N jobs (after the other filters)"),
      CLI_BOOL("--lenient", &o->swf.lenient,
               "skip and count malformed lines instead of failing\n"
               "(a file with no valid job line still fails)"),
      CLI_SECTION("Replay window and scaling (bal_swf_scale(); docs/sched.md):"),
      CLI_INT("--from-job", "ID", &o->scale.from_id, 0, INT64_MAX,
              "window from the first job numbered ID"),
      CLI_INT("--from-index", "I", &from_index, 0, INT64_MAX,
              "window from the I-th job (0-based, after the filters)"),
      CLI_INT("--count", "N", &o->scale.count, 1, INT64_MAX, "jobs in the window (default: to the end)"),
      CLI_DOUBLE("--speedup", "K", &o->scale.speedup, 1, 1e9,
                 "divide submit times, runtimes and limits by K (1)"),
      CLI_INT("--scale-to-nodes", "N", &o->scale.nodes, 1, INT32_MAX,
              "run on N nodes instead: a job of p procs gets\n"
              "ceil(p x N / trace procs) whole nodes, at most N"),
      CLI_INT("--scale-to-cpus", "C", &o->scale.cores_per_node, 1, INT32_MAX,
              "cores per node of the scaled machine (with --scale-to-nodes)"),
      CLI_INT("--min-runtime", "S", &o->scale.min_runtime, 0, INT32_MAX,
              "lengthen runtimes shorter than S s after the speedup (0)"),
      CLI_INT("--time-unit", "S", &o->scale.time_unit, 1, 86400,
              "round requested times up to a multiple of S s (1; 60 as\n"
              "a scheduler that counts minutes)"),
      CLI_SECTION("Machine (default: the header's MaxNodes/MaxProcs when they determine both):"),
      CLI_INT("--nodes", "N", &o->nodes, 1, INT32_MAX, "number of nodes"),
      CLI_INT("--cores-per-node", "C", &o->cores, 1, INT32_MAX,
              "cores per node; a job gets ceil(procs / C) nodes"),
      CLI_SECTION("Policy:"),
      CLI_STRING("--policy", "P", &o->cfg.policy, policy_help),
      CLI_INT("--max-mates", "M", &o->cfg.max_mates, 1, BAL_SCHED_MAX_MATES,
              "sd: most running jobs shrunk for one start (2)"),
      CLI_CUSTOM("--max-slowdown", "X", &o->cfg, sched_parse_max_slowdown,
                 "sd: mate cut-off: a number (10), inf or dynamic\n"
                 "(mean predicted slowdown of running jobs)"),
      SHARE_FACTOR_FLAG(&o->cfg.sharing_factor, "sd: fraction of a mate's cores lent"),
      CLI_CHOICE("--runtime-model", "M", &runtime_model, models,
                 "sd: how shrinking stretches jobs: ideal (default: a\n"
                 "job moves at its nodes' mean pace, as one that balances\n"
                 "its work does; the published figures' model) or worst\n"
                 "(its slowest node sets its pace: slurm-replay's default,\n"
                 "as its test jobs end with their slowest node);\n"
                 "predictions always use worst"),
      CLI_CHOICE("--core-demand", "D", &core_demand, demands,
                 "sd: cores a job uses per node unshrunk: procs\n"
                 "(ceil(procs / nodes), default) or node (all)"),
      CLI_INT("--ranks-per-node", "R", &o->cfg.ranks_per_node, 0, BAL_SCHED_MAX_NODES,
              "sd: MPI ranks a job runs per node; a mate keeps a core\n"
              "per rank (1; 0: one per processor, pure MPI)"),
      CLI_DOUBLE("--malleable-fraction", "F", &o->cfg.malleable_fraction, 0, 1,
                 "sd: fraction of jobs that are malleable (1)"),
      CLI_UINT("--seed", "S", &o->cfg.seed, "sd: seed of the malleable draw (1)"),
      CLI_CUSTOM("--set", "KEY=VALUE", &o->cfg, parse_setting,
                 "a setting of one policy, e.g. sd.mate_cost=sum\n"
                 "(repeatable; docs/sched.md lists them)"),
      CLI_SECTION("Output:"),
      CLI_BOOL("--json", &o->json, "print one JSON object (results and every parameter)"),
      CLI_PATH("--jobs-csv", "FILE", &o->jobs_csv, "per-job id,submit,start,end,nodes,... as CSV"),
      CLI_PATH("--plot", "DIR", &o->plot_dir,
               "PNG heatmaps (slowdown, runtime, wait ratios by size\n"
               "x runtime) of --baseline against this run, and\n"
               "slowdown per day (needs gnuplot)"),
      CLI_STRING("--baseline", "P", &o->baseline, "policy compared with in --plot (easy)"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = usage,
      .description = "Replay a Standard Workload Format trace on a cluster of identical nodes\n"
                     "under a scheduling policy and report makespan, wait, response time,\n"
                     "slowdown, bounded slowdown, utilization and malleability counts.",
      .flags = flags,
      .positional = "TRACE",
      .positional_dest = &o->trace};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->cfg.runtime_model = runtime_model ? BAL_SCHED_WORST : BAL_SCHED_IDEAL;
  o->cfg.core_demand = core_demand ? BAL_SCHED_DEMAND_NODE : BAL_SCHED_DEMAND_PROCS;
  if ((rc = sched_check_policy(PROG, "--policy", o->cfg.policy)) != CLI_CONTINUE ||
      (rc = sched_check_policy(PROG, "--baseline", o->baseline)) != CLI_CONTINUE)
    return rc;
  if (o->swf.from > o->swf.to) return cli_usage_error(PROG, "--from must not be after --to");
  if (from_index >= 0 && o->scale.from_id >= 0)
    return cli_usage_error(PROG, "--from-job and --from-index are exclusive");
  if ((o->scale.nodes > 0) != (o->scale.cores_per_node > 0))
    return cli_usage_error(PROG, "--scale-to-nodes and --scale-to-cpus go together");
  if (from_index >= 0) o->scale.from_index = from_index;
  o->scaled = from_index >= 0 || o->scale.from_id >= 0 || o->scale.count > 0 ||
              o->scale.speedup != 1.0 || o->scale.nodes > 0 || o->scale.min_runtime > 0 ||
              o->scale.time_unit != 1;
  if (!o->trace) return cli_usage_error(PROG, "missing TRACE (try --help)");
  if (o->jobs_csv && !out_check_dir(PROG, "--jobs-csv", o->jobs_csv)) return 1;
  if (o->plot_dir && !out_check_dir_itself(PROG, "--plot", o->plot_dir)) return 1;
  return CLI_CONTINUE;
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

/* The machine read from the header (or derived from it and a flag) within
 * the simulator's limits (sched.h: 1 .. BAL_SCHED_MAX_NODES nodes and cores
 * per node)? If not, name the header fields it came from and the limit. */
static bool machine_fits(const sched_opts *o, const bal_swf_trace *t) {
  const bal_sched_config *c = &o->cfg;
  long long hn = (long long)t->header.max_nodes, hp = (long long)t->header.max_procs;
  bool nodes_big = c->nodes > BAL_SCHED_MAX_NODES, header_only = o->nodes == 0 && o->cores == 0;
  if (!nodes_big && c->cores_per_node <= BAL_SCHED_MAX_NODES) return true;
  /* a flag's value is within the limit (the parser): the header set the
   * rest, directly or through that flag */
  char from[96];
  if (nodes_big && header_only) snprintf(from, sizeof from, "header MaxNodes %lld", hn);
  else if (nodes_big)
    snprintf(from, sizeof from, "header MaxProcs %lld / --cores-per-node %lld", hp,
             (long long)o->cores);
  else if (header_only) snprintf(from, sizeof from, "header MaxProcs %lld / MaxNodes %lld", hp, hn);
  else snprintf(from, sizeof from, "header MaxProcs %lld / --nodes %lld", hp, (long long)o->nodes);
  fprintf(stderr, "%s: %s: %s gives %lld %s, above the simulator's limit of %lld; give %s\n", PROG,
          o->trace, from, (long long)(nodes_big ? c->nodes : c->cores_per_node),
          nodes_big ? "nodes" : "cores per node", (long long)BAL_SCHED_MAX_NODES,
          header_only ? "--nodes and --cores-per-node"
                      : (nodes_big ? "--nodes" : "--cores-per-node"));
  return false;
}

/* Replace *trace by its window, scaled (bal_swf_scale()); the machine
 * resolved so far is the trace's, and the scaled one replaces it. */
static bool scale_trace(sched_opts *o, bal_swf_trace **trace) {
  o->scale.trace_nodes = o->cfg.nodes;
  o->scale.trace_cores = o->cfg.cores_per_node;
  bal_swf_trace *out = NULL;
  int rc = bal_swf_scale(*trace, &o->scale, &out, &o->scale_stats);
  if (rc == BAL_ENOTFOUND) {
    fprintf(stderr, "%s: %s: --from-job: no job numbered %lld\n", PROG, o->trace,
            (long long)o->scale.from_id);
    return false;
  }
  if (rc != BAL_OK) {
    fprintf(stderr, "%s: %s: cannot scale the trace: %s%s\n", PROG, o->trace, bal_strerror(rc),
            rc == BAL_EINVAL ? " (--from-index past the last job, or sizes too large)" : "");
    return false;
  }
  o->first_id = out->njobs > 0 ? out->jobs[0].id : -1;
  bal_swf_trace_destroy(*trace);
  *trace = out;
  if (o->scale.nodes > 0) {
    o->cfg.nodes = o->scale.nodes;
    o->cfg.cores_per_node = o->scale.cores_per_node;
  }
  return true;
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
    /* Settings and the machine were checked before: what is left is a
     * trace past the simulator's job limit, or memory. */
    fprintf(stderr, "%s: %s: simulation failed: %s%s\n", PROG, o->trace, bal_strerror(rc),
            rc == BAL_EINVAL && t->njobs > BAL_SCHED_MAX_JOBS
                ? " (more jobs than the simulator's limit)"
                : "");
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  sched_opts o;
  int rc = parse(argc, argv, &o);
  if (rc != CLI_CONTINUE) return rc;
  sched_timing tm = {0};
  double t0 = bal__now_s();
  bal_swf_trace *trace = NULL;
  bal_swf_error err;
  rc = bal_swf_read_file(o.trace, &o.swf, &trace, &err);
  if (rc != BAL_OK) {
    if (rc == BAL_EFORMAT && err.line == 0) /* lenient, and nothing was SWF */
      fprintf(stderr, "%s: %s: %s\n", PROG, o.trace, err.message);
    else if (rc == BAL_EFORMAT)
      /* --lenient helps with a malformed line, not with an overlong one
       * (refused in both modes, swf.h's "line longer than" message) */
      fprintf(stderr, "%s: %s:%lld: %s%s\n", PROG, o.trace, (long long)err.line, err.message,
              o.swf.lenient || !strncmp(err.message, "line longer than", 16)
                  ? ""
                  : " (use --lenient to skip malformed lines)");
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
  if (!machine_fits(&o, trace)) {
    bal_swf_trace_destroy(trace);
    return 1;
  }
  if (o.scaled && !scale_trace(&o, &trace)) {
    bal_swf_trace_destroy(trace);
    return 1;
  }
  bal_sched_result *res = NULL, *base = NULL;
  rc = simulate(&o, trace, o.cfg, o.cfg.policy, &res, &tm.sim_s);
  if (!rc && o.plot_dir) {
    bal_sched_config bc = o.cfg;
    bc.policy = o.baseline;
    rc = simulate(&o, trace, bc, o.baseline, &base, &tm.baseline_s);
  }
  if (!rc) {
    const bal_sched_summary *s = bal_sched_result_summary(res);
    if (s->jobs == 0)
      fprintf(stderr, "%s: warning: %s: no job to simulate, nothing to measure\n", PROG, o.trace);
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
