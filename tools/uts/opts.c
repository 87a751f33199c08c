/* ballast-uts's command line: UTS's flags (the one-letter forms too) and
 * the run's. Every error names its flag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/steal.h>

#include "common/cli.h"
#include "common/launch.h"
#include "common/names.h"
#include "uts.h"

/* Under SMPI the time constants follow the node cost (main()); elsewhere
 * they are the library's defaults. */
#ifdef BALLAST_SMPI
#define POLL_INTERVAL_DEFAULT "(default: a tenth of --slice, at most 1)"
#define BACKOFF_MAX_DEFAULT "(default: --slice, at most 60)"
#else
#define POLL_INTERVAL_DEFAULT "(default 0.0001)"
#define BACKOFF_MAX_DEFAULT "(default 0.002)"
#endif

const char *const type_names[] = {"binomial", "geometric", "hybrid", NULL};
const char *const shape_names[] = {"linear", "expdec", "cyclic", "fixed", NULL};
const char *const progress_names[] = {"poll", "thread", NULL};

/* A name of `names` or its index (UTS's -t 1, -a 3). */
static bool parse_enum(const char *v, const char *const *names, int *out, char *err, size_t n) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(v, names[i]) || (v[0] == (char)('0' + i) && v[1] == '\0')) {
      *out = i;
      return true;
    }
  int w = snprintf(err, n, "'%s' is not one of", v);
  for (int i = 0; names[i] && w > 0 && (size_t)w < n; i++)
    w += snprintf(err + w, n - (size_t)w, "%s %s (%d)", i ? "," : "", names[i], i);
  return false;
}

static bool parse_type(const char *v, void *d, char *err, size_t n) {
  int i;
  if (!parse_enum(v, type_names, &i, err, n)) return false;
  ((uts_params *)d)->type = (uts_type)i;
  return true;
}

static bool parse_shape(const char *v, void *d, char *err, size_t n) {
  int i;
  if (!parse_enum(v, shape_names, &i, err, n)) return false;
  ((uts_params *)d)->shape = (uts_shape)i;
  return true;
}

static bool parse_policy(const char *v, void *d, char *err, size_t n) {
  const char *name = names_find(bal_steal_policy_name, v);
  if (name) {
    *(const char **)d = name;
    return true;
  }
  char known[256];
  snprintf(err, n, "unknown policy '%s' (%s)", v,
           names_list(known, sizeof known, bal_steal_policy_name, ", "));
  return false;
}

static bool parse_baseline(const char *v, void *d, char *err, size_t n) {
  if (!strcmp(v, "all")) {
    *(int64_t *)d = -1;
    return true;
  }
  return cli_int_text(v, 0, INT64_MAX, d, err, n);
}

/* UTS's own one-letter flags, as aliases of the long ones. */
static const char *const short_flags[][2] = {
    {"-t", "--type"},          {"-a", "--shape"},    {"-d", "--depth"},
    {"-b", "--branching"},     {"-r", "--root-seed"}, {"-q", "--non-leaf-prob"},
    {"-m", "--non-leaf-children"}, {"-f", "--shift"}, {"-g", "--granularity"}};

int uts_parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  uts_params_default(&o->prm);
  o->workers = 1;
  o->max_nodes = 100000000000LL;
  o->baseline_nodes = -1;
  bal_steal_config dflt;
  bal_steal_config_init(&dflt);
  o->policy = dflt.policy;
  char policy_help[512];
  names_help(policy_help, sizeof policy_help, "victim policy:", bal_steal_policy_name, dflt.policy,
             "");
  o->seed = 1;
  o->steal_fraction = 0.5;
  /* poll_interval and backoff_max 0: bal_steal_config_init()'s, or under
   * SMPI (with slice 0) from the node cost (main()). */
#ifdef BALLAST_SMPI
  o->work_per_rank = 1;
#endif
  int64_t depth = o->prm.depth, root_seed = o->prm.root_seed, m = o->prm.m, gran = o->prm.gran;
  const cli_flag flags[] = {
      CLI_SECTION("Tree (UTS's flags; the one-letter forms are accepted too):"),
      CLI_CUSTOM("--type", "T", &o->prm, parse_type,
                 "-t: binomial (0, default), geometric (1), hybrid (2)"),
      CLI_CUSTOM("--shape", "A", &o->prm, parse_shape,
                 "-a: geometric shape: linear (0, default), expdec (1),\n"
                 "cyclic (2), fixed (3)"),
      CLI_INT("--depth", "D", &depth, 1, INT32_MAX / 8, "-d: depth of geometric trees (default 6)"),
      CLI_DOUBLE("--branching", "B", &o->prm.b0, 0, 1e6,
                 "-b: branching factor of the root (default 4)"),
      CLI_INT("--root-seed", "R", &root_seed, 0, INT32_MAX, "-r: seed of the root (default 0)"),
      CLI_DOUBLE("--non-leaf-prob", "Q", &o->prm.q, 0, 1,
                 "-q: binomial: probability that a node has children\n(default 0.234375)"),
      CLI_INT("--non-leaf-children", "M", &m, 0, UTS_MAX_CHILDREN,
              "-m: binomial: children of a non-leaf (default 4)"),
      CLI_DOUBLE("--shift", "F", &o->prm.shift, 0, 1,
                 "-f: hybrid: geometric above F * depth, binomial below\n(default 0.5)"),
      CLI_INT("--granularity", "G", &gran, 1, 1000000,
              "-g: SHA-1 evaluations per child (default 1)"),
      CLI_INT("--max-nodes", "N", &o->max_nodes, 1, INT64_MAX,
              "stop with an error once a rank has counted more than N\n"
              "nodes (binomial trees with q*m >= 1 may be infinite)\n"
              "(default 100000000000)"),
      CLI_SECTION("Run:"),
      LAUNCH_RANKS_FLAG(&o->ranks),
      CLI_INT("--workers", "W", &o->workers, 1, BAL_STEAL_MAX_WORKERS,
              "task-executing threads per rank (default 1)"),
      CLI_CUSTOM("--policy", "P", &o->policy, parse_policy, policy_help),
      CLI_CHOICE("--progress", "M", &o->progress, progress_names,
                 "poll (default: tasks serve MPI between nodes) or thread\n"
                 "(a progress thread per rank besides the workers)"),
      IDLE_WAIT_FLAG(&o->idle_wait),
      LIFELINES_FLAG(&o->lifelines),
      CLI_DOUBLE("--steal-fraction", "F", &o->steal_fraction, 1e-9, 1,
                 "share of a victim's waiting tasks taken per theft\n(default 0.5)"),
      CLI_DOUBLE("--poll-interval", "S", &o->poll_interval, 1e-9, BAL_STEAL_MAX_POLL_INTERVAL_S,
                 "first sleep of an idle rank's loop, and a thief's wait\n"
                 "for its answer " POLL_INTERVAL_DEFAULT),
      CLI_DOUBLE("--backoff-max", "S", &o->backoff_max, 1e-9, BAL_STEAL_MAX_BACKOFF_S,
                 "longest back-off of an unlucky thief, and sleep of an\n"
                 "idle POLL loop " BACKOFF_MAX_DEFAULT),
      CLI_UINT("--seed", "S", &o->seed, "victim-choice seed (default 1)"),
      CLI_CUSTOM("--baseline-nodes", "N", &o->baseline_nodes, parse_baseline,
                 "rank 0 first searches N nodes sequentially to measure the\n"
                 "sequential rate: all (default: the whole tree), 0 (none:\n"
                 "efficiency n/a)"),
      CLI_BOOL("--json", &o->json, "print one JSON object"),
#ifdef BALLAST_SMPI
      CLI_SECTION("Simulated work (SimGrid SMPI):"),
      CLI_DOUBLE("--node-cost", "S", &o->node_cost, 0, 1,
                 "simulated seconds of work per node (default 0: from\n"
                 "--work-per-rank and the tree's size)"),
      CLI_DOUBLE("--work-per-rank", "S", &o->work_per_rank, 1e-9, 1e6,
                 "with --node-cost 0: the node cost that gives each rank S\n"
                 "seconds of work on average (default 1)"),
      CLI_DOUBLE("--slice", "S", &o->slice, 1e-9, 10,
                 "simulated seconds of work between two checks (split,\n"
                 "poll) of a task (default: 3 node costs, at least 0.0001)"),
      CLI_BOOL("--check-flags", &o->check_flags,
               "check every flag, then exit (`ballast simulate-uts` does,\n"
               "on one rank, before the simulation)"),
#endif
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = PROG " [options]            (under mpirun/mpiexec)\n"
                    "       ballast uts --ranks P [options]  (launches mpiexec itself)",
      .description =
          "Unbalanced Tree Search: counts the nodes of a UTS tree with tasks that spawn\n"
          "tasks, balanced by Ballast's work stealing. T1: -t 1 -a 3 -d 10 -b 4 -r 19;\n"
          "T3: -t 0 -b 2000 -q 0.124875 -m 8 -r 42 (see docs/steal.md).",
      .flags = flags};
  /* The one-letter forms become the long ones before the one parser. */
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  if (!args) return 1;
  for (int i = 0; i <= argc; i++) {
    args[i] = argv[i];
    for (size_t k = 0; i > 0 && i < argc && k < sizeof short_flags / sizeof short_flags[0]; k++)
      if (!strcmp(argv[i], short_flags[k][0])) args[i] = (char *)short_flags[k][1];
  }
  int rc = cli_parse(&prog, argc, args);
  free(args);
  if (rc != CLI_CONTINUE) return rc;
  o->prm.depth = (int)depth;
  o->prm.root_seed = (int)root_seed;
  o->prm.m = (int)m;
  o->prm.gran = (int)gran;
#ifdef BALLAST_SMPI
  /* One thread per simulated rank: SMPI lets only it call MPI. */
  if (o->workers != 1) return cli_usage_error(PROG, "--workers: only 1 runs under SMPI");
  if (o->progress != 0) return cli_usage_error(PROG, "--progress: only poll runs under SMPI");
  if (o->node_cost == 0 && o->baseline_nodes >= 0)
    return cli_usage_error(PROG, "--node-cost: required unless --baseline-nodes is all");
#endif
  return CLI_CONTINUE;
}
