/* ballast-simulate-dlb: DLB_Bench (the real steal code) on a simulated
 * cluster. It writes a SimGrid platform for the requested machine (nodes of
 * --cores-per-node cores on one switched network), runs smpirun on
 * dlb-bench-smpi (DLB_Bench built by smpicc, in libexec/ballast) with the DLB_Bench
 * flags it does not know itself, and reports the simulated results beside
 * the cost of the simulation (wall time, peak memory). Times inside the
 * simulation (efficiency, resolution) are simulated seconds. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/json.h"
#include "result.h"
#include "simrun.h"

#define PROG "ballast-simulate-dlb"

typedef struct opts {
  sim_opts sim;
  const char *csv;
  bool json;
} opts;

/* One run's figures, for the table and the CSV row (sim_finish()). */
typedef struct report {
  const opts *o;
  const dlb_output *dlb;
  const sim_cost *cost;
} report;

static bool parse_work_mode(const char *v, void *dest, char *err, size_t n) {
  (void)dest;
  if (!strcmp(v, "simulated")) return true;
  snprintf(err, n, "only 'simulated' runs under SMPI, not '%s'", v);
  return false;
}

/* --csv FILE: the columns, one row per run (the header of a new file). */
static const char *csv_columns =
    "ranks,cores_per_node,latency,bandwidth,distribution,work_per_rank,tasks_per_rank,"
    "bytes_per_rank,cycles_per_byte,policy,efficiency,resolution_s,thefts,messages,"
    "bytes_moved,peers_max,results_ok,seed,wall_s,peak_mb,idle_wait,lifelines\n";

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  sim_opts_init(&o->sim);
  const cli_flag flags[] = {
      SIM_MACHINE_FLAGS(&o->sim),
      CLI_CUSTOM("--work-mode", "M", NULL, parse_work_mode,
                 "DLB_Bench's work mode: only 'simulated' (the default)"),
      CLI_SECTION("Output:"),
      CLI_BOOL("--json", &o->json, "print one JSON object (platform, simulation cost, DLB_Bench's)"),
      CLI_PATH("--csv", "FILE", &o->csv, "append one row per policy to FILE (header if new)"),
      CLI_BOOL("--keep-files", &o->sim.keep, "keep the generated platform and host files"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast simulate-dlb --ranks N [options] [DLB_Bench options]",
      .description =
          "Runs DLB_Bench -- Ballast's real work-stealing code -- on N simulated MPI ranks of\n"
          "a simulated cluster (SimGrid SMPI). Work is simulated time and task data beyond\n"
          "the first 4 KiB is simulated traffic, so thousands of ranks with MB-sized\n"
          "problems fit on one machine. Reported times are simulated seconds.",
      .flags = flags,
      .epilog = "Every other option goes to DLB_Bench (see `ballast dlb-bench --help`): --policy,\n"
                "--work-per-rank, --tasks-per-rank, --bytes-per-rank, --distribution, --seed, ...",
      .other = sim_forward,
      .other_ctx = &o->sim};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  /* The transport's shared bulk buffer, one mapping per rank at its first
   * bulk transfer (SIM_SHARED_BLOCK). Counted whatever the task size: a
   * run without bulk (tasks under 4 KiB) maps none, and the count errs by
   * a third on the safe side then. */
  o->sim.maps_per_rank = 1;
  o->sim.maps_why = "its stack, the stack's guard page, the shared task buffer";
  return sim_opts_finish(&o->sim, PROG, o->csv, csv_columns);
}


static bool append_csv(void *arg) {
  const report *r_ = arg;
  const opts *o = r_->o;
  const dlb_output *dlb = r_->dlb;
  const sim_cost *cost = r_->cost;
  FILE *f = sim_csv_open(PROG, o->csv, csv_columns);
  if (!f) return false;
  double bytes = dlb->bytes_per_rank, work = dlb->work_per_rank;
  for (int k = 0; k < dlb->nruns; k++) {
    const dlb_run_result *r = &dlb->runs[k];
    char eff[32] = ""; /* empty: undefined (no tasks) */
    if (isfinite(r->efficiency)) snprintf(eff, sizeof eff, "%.6f", r->efficiency);
    fprintf(f, "%lld,%lld,%g,%g,%s,%g,%g,%g,%.6g,%s,%s,%.6f,%.0f,%.0f,%.0f,%.0f,%d,%.0f,%.2f,%.1f,%s,%.0f\n",
            o->sim.plat.ranks, o->sim.plat.cores_per_node, o->sim.plat.latency, o->sim.plat.bandwidth,
            dlb->distribution, work, dlb->tasks_per_rank, bytes,
            bytes > 0 ? o->sim.plat.core_speed * work / bytes : INFINITY, r->policy, eff,
            r->resolution_s, r->thefts, r->messages, r->bytes_moved, r->peers_max, r->results_ok,
            dlb->seed, cost->wall_s, cost->peak_mb, dlb->idle_wait, dlb->lifelines);
  }
  return sim_csv_close(PROG, o->csv, f);
}

static void print_table(void *arg) {
  const report *r_ = arg;
  const opts *o = r_->o;
  const dlb_output *dlb = r_->dlb;
  const sim_cost *cost = r_->cost;
  printf("Simulated cluster: %lld ranks on %lld nodes x %lld cores, links %.3g B/s %.3g s, "
         "core %.3g flop/s\n",
         o->sim.plat.ranks, sim_nodes(&o->sim.plat), o->sim.plat.cores_per_node, o->sim.plat.bandwidth,
         o->sim.plat.latency, o->sim.plat.core_speed);
  double bytes = dlb->bytes_per_rank, work = dlb->work_per_rank;
  printf("DLB_Bench: %s distribution, %.3g s work/rank, %.3g bytes/rank (%.3g cycles/byte), "
         "%.0f tasks, seed %.0f\n",
         dlb->distribution, work, bytes, o->sim.plat.core_speed * work / bytes, dlb->tasks,
         dlb->seed);
  printf("%-11s %10s %14s %9s %10s %12s %9s %8s\n", "policy", "efficiency", "resolution_s",
         "thefts", "messages", "bytes_moved", "peers_max", "results");
  for (int k = 0; k < dlb->nruns; k++) {
    const dlb_run_result *r = &dlb->runs[k];
    char eff[32] = "n/a"; /* undefined: no tasks */
    if (isfinite(r->efficiency)) snprintf(eff, sizeof eff, "%.3f", r->efficiency);
    printf("%-11s %10s %14.3f %9.0f %10.0f %12.4g %9.0f %8s\n", r->policy, eff,
           r->resolution_s, r->thefts, r->messages, r->bytes_moved, r->peers_max,
           r->results_ok ? "ok" : "WRONG");
  }
  printf("simulation: %.1f s wall, %.0f MB peak memory\n", cost->wall_s, cost->peak_mb);
}

int main(int argc, char **argv) {
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE) return prc;
  sim_cost cost;
  char *text = sim_launch(PROG, &o.sim, BALLAST_SMPIRUN, BALLAST_SMPI_HELPER, &cost);
  dlb_output dlb;
  bool parsed = text && dlb_output_parse(text, &dlb);
  bool ok = parsed && cost.status == 0;
  for (int r = 0; parsed && r < dlb.nruns; r++) ok = ok && dlb.runs[r].results_ok;
  report rep = {&o, &dlb, &cost};
  return sim_finish(PROG, &o.sim, "dlb", "DLB_Bench", text, &cost, parsed, ok, o.json, print_table,
                    o.csv ? append_csv : NULL, &rep);
}
