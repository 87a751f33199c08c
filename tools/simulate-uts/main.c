/* ballast-simulate-uts: the Unbalanced Tree Search (tools/uts, the real
 * steal code and the real SHA-1 trees) on a simulated cluster. It writes a
 * SimGrid platform (nodes of --cores-per-node cores on one switched
 * network), runs smpirun on uts-smpi (ballast-uts built by smpicc, in
 * libexec/ballast) with the UTS flags it does not know itself, and reports
 * the simulated results beside the cost of the simulation (wall time, peak
 * memory). A node's work is a simulated cost (uts-smpi's --node-cost,
 * --work-per-rank); times inside the simulation are simulated seconds. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/launch.h"
#include "common/output.h"
#include "result.h"
#include "simrun.h"

#define PROG "ballast-simulate-uts"

typedef struct opts {
  sim_opts sim;
  const char *csv;
  bool json;
} opts;

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  sim_opts_init(&o->sim);
  const cli_flag flags[] = {
      SIM_MACHINE_FLAGS(&o->sim),
      CLI_SECTION("Output:"),
      CLI_BOOL("--json", &o->json, "print one JSON object (platform, simulation cost, UTS's)"),
      CLI_PATH("--csv", "FILE", &o->csv, "append one row to FILE (header if new)"),
      CLI_BOOL("--keep-files", &o->sim.keep, "keep the generated platform and host files"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast simulate-uts --ranks N [options] [UTS options]",
      .description =
          "Runs the Unbalanced Tree Search -- Ballast's real work-stealing code on the real\n"
          "UTS trees -- on N simulated MPI ranks of a simulated cluster (SimGrid SMPI). The\n"
          "SHA-1 shapes the tree; a node's work is simulated time (--node-cost, or\n"
          "--work-per-rank S: the node cost that gives each rank S seconds, default 1).\n"
          "Reported times are simulated seconds.",
      .flags = flags,
      .epilog = "Every other option goes to UTS (see `ballast uts --help`): -t, -a, -d, -b, -r,\n"
                "-q, -m, --policy, --seed, ...; and, in the simulation only, --node-cost S,\n"
                "--work-per-rank S, --slice S (simulated work between two polls, default 0.001).",
      .other = sim_forward,
      .other_ctx = &o->sim};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if ((rc = sim_opts_finish(&o->sim, PROG)) != CLI_CONTINUE) return rc;
  /* --csv appends rows, so it is not written whole; its directory is still
   * checked before the simulation. */
  if (o->csv && !out_check_dir(PROG, "--csv", o->csv)) return 1;
  return CLI_CONTINUE;
}

/* What is read from UTS's JSON object: numbers, then strings. */
enum {
  F_NODES, F_LEAVES, F_DEPTH, F_TIME, F_EFF, F_COST, F_WORK, F_EVERY, F_B0, F_GDEPTH, F_Q, F_M,
  F_ROOT, F_GRAN, F_SEED, F_SPAWNED, F_ATTEMPTS, F_THEFTS, F_MOVED, F_MESSAGES, F_WAVES,
  F_IDLE, F_N
};
static const char *const num_keys[F_N] = {
    "nodes", "leaves", "max_depth", "time_s", "efficiency", "node_cost_s", "work_per_rank_s",
    "check_every", "branching", "depth", "non_leaf_prob", "non_leaf_children", "root_seed",
    "granularity", "seed", "steal.tasks_spawned", "steal.steal_attempts", "steal.thefts",
    "steal.tasks_moved", "steal.messages", "steal.termination_waves", "steal.idle_s"};
enum { S_TYPE, S_SHAPE, S_POLICY, S_N };
static const char *const str_keys[S_N] = {"type", "shape", "policy"};

typedef struct uts_out {
  double v[F_N];
  char s[S_N][32];
} uts_out;

static const char *csv_columns =
    "ranks,cores_per_node,latency,bandwidth,type,shape,depth,branching,non_leaf_prob,"
    "non_leaf_children,root_seed,granularity,policy,seed,nodes,leaves,max_depth,node_cost_s,"
    "work_per_rank_s,check_every,time_s,efficiency,tasks_spawned,steal_attempts,thefts,"
    "tasks_moved,messages,termination_waves,idle_s,wall_s,peak_mb\n";

static bool append_csv(const opts *o, const uts_out *u, const sim_cost *cost) {
  struct stat sb;
  bool fresh = stat(o->csv, &sb) != 0 || sb.st_size == 0;
  FILE *f = fopen(o->csv, "a");
  if (!f) {
    fprintf(stderr, PROG ": --csv: cannot open %s\n", o->csv);
    return false;
  }
  if (fresh) fputs(csv_columns, f);
  const double *v = u->v;
  fprintf(f,
          "%lld,%lld,%g,%g,%s,%s,%.0f,%g,%g,%.0f,%.0f,%.0f,%s,%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%.0f,"
          "%.6f,%.6f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%.2f,%.1f\n",
          o->sim.plat.ranks, o->sim.plat.cores_per_node, o->sim.plat.latency,
          o->sim.plat.bandwidth, u->s[S_TYPE], u->s[S_SHAPE], v[F_GDEPTH], v[F_B0], v[F_Q], v[F_M],
          v[F_ROOT], v[F_GRAN], u->s[S_POLICY], v[F_SEED], v[F_NODES], v[F_LEAVES], v[F_DEPTH],
          v[F_COST], v[F_WORK], v[F_EVERY], v[F_TIME], v[F_EFF], v[F_SPAWNED], v[F_ATTEMPTS],
          v[F_THEFTS], v[F_MOVED], v[F_MESSAGES], v[F_WAVES], v[F_IDLE], cost->wall_s,
          cost->peak_mb);
  bool ok = !ferror(f);
  if (fclose(f) != 0 || !ok) {
    fprintf(stderr, PROG ": --csv: error writing %s\n", o->csv);
    return false;
  }
  return true;
}

static void print_json(const opts *o, const char *uts_text, const sim_cost *cost, bool ok) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_bool(&j, "ok", ok);
  sim_json_platform(&j, &o->sim);
  json_array_begin(&j, "uts_args");
  for (int i = 0; i < o->sim.nfwd; i++) json_string(&j, NULL, o->sim.fwd[i]);
  json_array_end(&j);
  sim_json_cost(&j, cost);
  if (uts_text)
    json_raw(&j, "uts", uts_text);
  else
    json_string(&j, "uts", NULL);
  json_object_end(&j);
  json_finish(&j);
}

static void print_table(const opts *o, const uts_out *u, const sim_cost *cost) {
  const double *v = u->v;
  printf("Simulated cluster: %lld ranks on %lld nodes x %lld cores, links %.3g B/s %.3g s\n",
         o->sim.plat.ranks, sim_nodes(&o->sim.plat), o->sim.plat.cores_per_node,
         o->sim.plat.bandwidth, o->sim.plat.latency);
  printf("UTS %s tree: %.0f nodes, %.0f leaves, max depth %.0f\n", u->s[S_TYPE], v[F_NODES],
         v[F_LEAVES], v[F_DEPTH]);
  printf("work: %.3g s per node, %.3g s per rank, a check every %.0f nodes\n", v[F_COST],
         v[F_WORK], v[F_EVERY]);
  printf("%s: efficiency %.3f, %.4f s (simulated), %.0f steal requests, %.0f thefts, "
         "%.0f tasks spawned, %.0f messages\n",
         u->s[S_POLICY], v[F_EFF], v[F_TIME], v[F_ATTEMPTS], v[F_THEFTS], v[F_SPAWNED],
         v[F_MESSAGES]);
  printf("simulation: %.1f s wall, %.0f MB peak memory\n", cost->wall_s, cost->peak_mb);
}

int main(int argc, char **argv) {
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE) return prc;
  char exe[4096];
  if (!sim_find_helper(BALLAST_SMPI_HELPER, exe, sizeof exe)) {
    fprintf(stderr, PROG ": %s is missing (build Ballast with SimGrid: Debian libsimgrid-dev)\n",
            BALLAST_SMPI_HELPER);
    return 2;
  }
  char *text = NULL;
  sim_cost cost = {0, 0, 0};
  bool ran = sim_run(PROG, &o.sim, BALLAST_SMPIRUN, exe, &text, &cost);
  if (launch_signal()) free(text);
  launch_die(); /* stopped by a signal: the simulation has ended, die of it */
  uts_out u;
  bool parsed = ran && text && res_fields(text, num_keys, F_N, u.v, str_keys, S_N, u.s) &&
                !isnan(u.v[F_NODES]);
  bool ok = parsed && cost.status == 0;
  if (!ok)
    fprintf(stderr, PROG ": the simulation failed (exit status %d%s)\n", cost.status,
            !parsed ? ", no UTS result" : "");
  if (o.json) print_json(&o, parsed ? text : NULL, &cost, ok);
  /* UTS refused a flag passed on to it: a usage error here too. */
  if (!parsed && cost.status == 2) {
    free(text);
    return 2;
  }
  if (parsed) {
    if (!o.json) print_table(&o, &u, &cost);
    if (o.csv && !append_csv(&o, &u, &cost)) ok = false;
  }
  free(text);
  return ok ? 0 : 1;
}
