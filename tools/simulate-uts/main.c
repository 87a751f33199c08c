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

#include "common/cli.h"
#include "common/json.h"
#include "result.h"
#include "simrun.h"

#define PROG "ballast-simulate-uts"

typedef struct opts {
  sim_opts sim;
  const char *csv;
  bool json;
} opts;

/* One run's figures, for the table and the CSV row (sim_finish()). */
typedef struct report {
  const opts *o;
  const struct uts_out *u;
  const sim_cost *cost;
} report;

/* --csv FILE: the columns, one row per run (the header of a new file). */
static const char *csv_columns =
    "ranks,cores_per_node,latency,bandwidth,type,shape,depth,branching,non_leaf_prob,"
    "non_leaf_children,root_seed,granularity,policy,seed,nodes,leaves,max_depth,node_cost_s,"
    "work_per_rank_s,check_every,time_s,efficiency,tasks_spawned,steal_attempts,thefts,"
    "tasks_moved,messages,termination_waves,idle_s,wall_s,peak_mb,idle_wait,lifelines\n";

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
                "--work-per-rank S, --slice S (simulated work between two checks of a task,\n"
                "default 3 node costs, at least 0.0001). --poll-interval and --backoff-max\n"
                "default to a tenth of the slice (at most 1 s) and one slice (at most 60 s).",
      .other = sim_forward,
      .other_ctx = &o->sim};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->sim.maps_per_rank = 0; /* every byte of a task is kept: no shared buffer */
  o->sim.maps_why = "its stack and the stack's guard page";
  return sim_opts_finish(&o->sim, PROG, o->csv, csv_columns);
}

/* What is read from UTS's JSON object: numbers, then strings. */
enum {
  F_NODES, F_LEAVES, F_DEPTH, F_TIME, F_EFF, F_COST, F_WORK, F_EVERY, F_B0, F_GDEPTH, F_Q, F_M,
  F_ROOT, F_GRAN, F_SEED, F_SPAWNED, F_ATTEMPTS, F_THEFTS, F_MOVED, F_MESSAGES, F_WAVES,
  F_IDLE, F_LIFELINES, F_N
};
static const char *const num_keys[F_N] = {
    "nodes", "leaves", "max_depth", "time_s", "efficiency", "node_cost_s", "work_per_rank_s",
    "check_every", "branching", "depth", "non_leaf_prob", "non_leaf_children", "root_seed",
    "granularity", "seed", "steal.tasks_spawned", "steal.steal_attempts", "steal.thefts",
    "steal.tasks_moved", "steal.messages", "steal.termination_waves", "steal.idle_s",
    "lifelines"};
enum { S_TYPE, S_SHAPE, S_POLICY, S_IDLE_WAIT, S_N };
static const char *const str_keys[S_N] = {"type", "shape", "policy", "idle_wait"};

typedef struct uts_out {
  double v[F_N];
  char s[S_N][32];
} uts_out;

static bool append_csv(void *arg) {
  const report *r_ = arg;
  const opts *o = r_->o;
  const uts_out *u = r_->u;
  const sim_cost *cost = r_->cost;
  FILE *f = sim_csv_open(PROG, o->csv, csv_columns);
  if (!f) return false;
  const double *v = u->v;
  fprintf(f,
          "%lld,%lld,%g,%g,%s,%s,%.0f,%g,%g,%.0f,%.0f,%.0f,%s,%.0f,%.0f,%.0f,%.0f,%.6g,%.6g,%.0f,"
          "%.6f,%.6f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f,%.2f,%.1f,%s,%.0f\n",
          o->sim.plat.ranks, o->sim.plat.cores_per_node, o->sim.plat.latency,
          o->sim.plat.bandwidth, u->s[S_TYPE], u->s[S_SHAPE], v[F_GDEPTH], v[F_B0], v[F_Q], v[F_M],
          v[F_ROOT], v[F_GRAN], u->s[S_POLICY], v[F_SEED], v[F_NODES], v[F_LEAVES], v[F_DEPTH],
          v[F_COST], v[F_WORK], v[F_EVERY], v[F_TIME], v[F_EFF], v[F_SPAWNED], v[F_ATTEMPTS],
          v[F_THEFTS], v[F_MOVED], v[F_MESSAGES], v[F_WAVES], v[F_IDLE], cost->wall_s,
          cost->peak_mb, u->s[S_IDLE_WAIT], v[F_LIFELINES]);
  return sim_csv_close(PROG, o->csv, f);
}

static void print_table(void *arg) {
  const report *r_ = arg;
  const opts *o = r_->o;
  const uts_out *u = r_->u;
  const sim_cost *cost = r_->cost;
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
  sim_cost cost;
  char *text = sim_launch(PROG, &o.sim, BALLAST_SMPIRUN, BALLAST_SMPI_HELPER, &cost);
  uts_out u;
  bool parsed = text && res_fields(text, num_keys, F_N, u.v, str_keys, S_N, u.s) &&
                !isnan(u.v[F_NODES]);
  bool ok = parsed && cost.status == 0;
  report rep = {&o, &u, &cost};
  return sim_finish(PROG, &o.sim, "uts", "UTS", text, &cost, parsed, ok, o.json, print_table,
                    o.csv ? append_csv : NULL, &rep);
}
