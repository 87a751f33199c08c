/* ballast-dlb-bench's command line. Every error names its flag. */
#include <stdio.h>
#include <string.h>

#include <ballast/steal.h>

#include "common/cli.h"
#include "common/launch.h"
#include "common/names.h"
#include "common/output.h"
#include "dlb.h"

const char *const mode_names[] = {"spin", "sleep", "simulated", NULL};

/* The registered name equal to the n bytes at p, or NULL. */
static const char *policy_named(const char *p, size_t n) {
  char name[128];
  if (n >= sizeof name) return NULL;
  memcpy(name, p, n);
  name[n] = '\0';
  return names_find(bal_steal_policy_name, name);
}

/* --policy: "all" (every registered policy, in registry order), one name
 * or a comma-separated list of names. */
static bool parse_policies(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  o->policy_arg = v;
  o->npolicies = 0;
  if (!strcmp(v, "all")) {
    for (int i = 0; bal_steal_policy_name(i); i++) {
      if (o->npolicies == DLB_MAX_POLICIES) {
        snprintf(err, n, "all: more than %d registered policies", DLB_MAX_POLICIES);
        return false;
      }
      o->policies[o->npolicies++] = bal_steal_policy_name(i);
    }
    return true;
  }
  for (const char *p = v;;) {
    size_t len = strcspn(p, ",");
    const char *name = policy_named(p, len);
    if (!name) {
      char known[256];
      snprintf(err, n, "unknown policy '%.*s' in '%s' (%s, all, or a comma-separated list)",
               (int)len, p, v, names_list(known, sizeof known, bal_steal_policy_name, ", "));
      return false;
    }
    if (o->npolicies == DLB_MAX_POLICIES) {
      snprintf(err, n, "the list holds more than %d policies", DLB_MAX_POLICIES);
      return false;
    }
    o->policies[o->npolicies++] = name;
    if (!p[len]) return true;
    p += len + 1;
  }
}

int dlb_parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->prm = (dlb_params){1.0, 100, 65536, 0.5, 0, DIST_GAUSSIAN, 1};
  o->iterations = 1;
  bal_steal_config dflt;
  bal_steal_config_init(&dflt);
  o->npolicies = 1;
  o->policies[0] = dflt.policy;
  o->policy_arg = dflt.policy;
  char policy_help[512];
  names_help(policy_help, sizeof policy_help, "a victim policy:", bal_steal_policy_name,
             dflt.policy, "\nor all (every registered one), or a list: a,b");
#ifdef BALLAST_SMPI
  o->mode = MODE_SIMULATED; /* SMPI: one thread per rank, simulated clock */
#else
  o->mode = MODE_SLEEP;
#endif
  o->steal_fraction = 0.5;
  o->slice = 0.001;
  o->poll_interval = 0.0001;
  o->backoff_max = 0.002;
  int64_t ranks = 0, iterations = 1, group_size = 0, degree = 0;
  int dist = (int)o->prm.dist, mode = (int)o->mode;
  const cli_flag flags[] = {
      LAUNCH_RANKS_FLAG(&ranks),
      CLI_DOUBLE("--work-per-rank", "S", &o->prm.work_per_rank, 0, 1e6,
                 "average seconds of work per rank (default 1)"),
      CLI_DOUBLE("--tasks-per-rank", "N", &o->prm.tasks_per_rank, 0, 1e8,
                 "average tasks per rank (default 100)"),
      CLI_DOUBLE("--bytes-per-rank", "B", &o->prm.bytes_per_rank, 0, 1e12,
                 "average input bytes per rank (default 65536)"),
      CLI_DOUBLE("--spread", "X", &o->prm.spread, 0, 1,
                 "task duration = mean * (1 + X*(2u-1)), X in [0,1] (default 0.5)"),
      CLI_INT("--iterations", "K", &iterations, 1, 10000,
              "run K iterations on one balancer, task durations drawn\n"
              "anew each time; figures are over the 2nd to the Kth\n"
              "(the 1st warms up) (default 1)"),
      CLI_DOUBLE("--drift", "D", &o->prm.drift, 0, 10,
                 "the distribution moves by D along x per iteration\n"
                 "(x in [0,10), wrapping; gaussian sigma = 0.5) (default 0)"),
      CLI_CHOICE("--distribution", "D", &dist, dlb_dist_names,
                 "gaussian (default: mu=5, sigma=0.5 over [0,10)), uniform,\n"
                 "single (all on rank 0), random"),
      CLI_CUSTOM("--policy", "P", o, parse_policies, policy_help),
      CLI_INT("--group-size", "G", &group_size, 0, 1 << 20,
              "sharing: ranks per group (default 0: 32)"),
      CLI_DOUBLE("--estimate-error", "X", &o->estimate_error, 0, 1,
                 "sharing, 1st iteration: each rank's work estimate is its\n"
                 "true work off by a factor 1 + X*(2u-1), u uniform per\n"
                 "rank (default 0: exact); later iterations estimate from\n"
                 "the work measured in the previous one"),
      CLI_CHOICE("--work-mode", "M", &mode, mode_names,
                 "spin (busy loop), sleep (default; yields the CPU),\n"
                 "simulated (polling mode, work in slices; SMPI clock)"),
      CLI_DOUBLE("--slice", "S", &o->slice, 1e-6, 10,
                 "simulated mode: seconds between polls (default 0.001)"),
      CLI_DOUBLE("--poll-interval", "S", &o->poll_interval, 0, BAL_STEAL_MAX_POLL_INTERVAL_S,
                 "sleep of an idle progress loop (default 0.0001)"),
      CLI_DOUBLE("--backoff-max", "S", &o->backoff_max, 0, BAL_STEAL_MAX_BACKOFF_S,
                 "longest back-off of an unlucky thief (default 0.002)"),
      IDLE_WAIT_FLAG(&o->idle_wait),
      LIFELINES_FLAG(&o->lifelines),
      CLI_INT("--degree", "D", &degree, 0, 1 << 20,
              "overlay degree (default 0: 2*ceil(log2 P)+2)"),
      CLI_DOUBLE("--steal-fraction", "F", &o->steal_fraction, 1e-9, 1,
                 "share of a victim's tasks taken per theft (default 0.5)"),
      CLI_UINT("--seed", "S", &o->prm.seed, "workload and victim seed (default 1)"),
      CLI_PATH("--trace", "FILE.json", &o->trace,
               "per-rank timeline of the last run (Chrome trace format)"),
      CLI_PATH("--plot", "FILE.png", &o->plot,
               "initial and final work distribution (gnuplot)"),
      CLI_BOOL("--json", &o->json, "print one JSON object"),
#ifdef BALLAST_SMPI
      CLI_BOOL("--check-flags", &o->check_flags,
               "check every flag, then exit (`ballast simulate-dlb` does, on one\n"
               "rank, before the simulation)"),
#endif
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = PROG " [options]            (under mpirun/mpiexec)\n"
                    "       ballast dlb-bench --ranks P [options]  (launches mpiexec itself)",
      .description =
          "DLB_Bench: independent tasks with an imbalanced initial distribution, balanced\n"
          "by Ballast's distributed work stealing; every result is checked by its owner.",
      .flags = flags};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->ranks = ranks;
  o->iterations = (int)iterations;
  o->group_size = (int)group_size;
  o->degree = (int)degree;
  o->prm.dist = (dlb_dist)dist;
  o->mode = (work_mode)mode;
  if (degree == 1) return cli_usage_error(PROG, "--degree: must be 0 (automatic) or >= 2");
#ifdef BALLAST_SMPI
  if (o->mode != MODE_SIMULATED)
    return cli_usage_error(PROG, "--work-mode: only 'simulated' runs under SMPI");
  /* An idle rank that polls without sleeping never lets simulated time
   * pass (MPI calls cost no simulated time by default). */
  if (o->poll_interval <= 0)
    return cli_usage_error(PROG, "--poll-interval: must be > 0 under SMPI");
#endif
  if (o->prm.tasks_per_rank <= 0 && o->prm.work_per_rank > 0)
    return cli_usage_error(PROG, "--tasks-per-rank: must be > 0 when there is work");
  /* Checked before the run, not after it: a missing directory must not
   * cost the whole benchmark. */
  if (o->trace && !out_check_dir(PROG, "--trace", o->trace)) return 1;
  if (o->plot && !out_check_dir(PROG, "--plot", o->plot)) return 1;
  return CLI_CONTINUE;
}
