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
#include <sys/stat.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/launch.h"
#include "common/output.h"
#include "result.h"
#include "simrun.h"

#define PROG "ballast-simulate-dlb"

typedef struct opts {
  sim_opts sim;
  const char *csv;
  bool json;
} opts;

static bool parse_work_mode(const char *v, void *dest, char *err, size_t n) {
  (void)dest;
  if (!strcmp(v, "simulated")) return true;
  snprintf(err, n, "only 'simulated' runs under SMPI, not '%s'", v);
  return false;
}

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
  if ((rc = sim_opts_finish(&o->sim, PROG)) != CLI_CONTINUE) return rc;
  /* --csv appends rows (several runs build one table), so it is not
   * written whole; its directory is still checked before the simulation. */
  if (o->csv && !out_check_dir(PROG, "--csv", o->csv)) return 1;
  return CLI_CONTINUE;
}

static const char *csv_columns =
    "ranks,cores_per_node,latency,bandwidth,distribution,work_per_rank,tasks_per_rank,"
    "bytes_per_rank,cycles_per_byte,policy,efficiency,resolution_s,thefts,messages,"
    "bytes_moved,peers_max,results_ok,seed,wall_s,peak_mb\n";

static bool append_csv(const opts *o, const dlb_output *dlb, const sim_cost *cost) {
  struct stat sb;
  bool fresh = stat(o->csv, &sb) != 0 || sb.st_size == 0;
  FILE *f = fopen(o->csv, "a");
  if (!f) {
    fprintf(stderr, PROG ": --csv: cannot open %s: %s\n", o->csv, strerror(errno));
    return false;
  }
  if (fresh) fputs(csv_columns, f);
  double bytes = dlb->bytes_per_rank, work = dlb->work_per_rank;
  for (int k = 0; k < dlb->nruns; k++) {
    const dlb_run_result *r = &dlb->runs[k];
    char eff[32] = ""; /* empty: undefined (no tasks) */
    if (isfinite(r->efficiency)) snprintf(eff, sizeof eff, "%.6f", r->efficiency);
    fprintf(f, "%lld,%lld,%g,%g,%s,%g,%g,%g,%.6g,%s,%s,%.6f,%.0f,%.0f,%.0f,%.0f,%d,%.0f,%.2f,%.1f\n",
            o->sim.plat.ranks, o->sim.plat.cores_per_node, o->sim.plat.latency, o->sim.plat.bandwidth,
            dlb->distribution, work, dlb->tasks_per_rank, bytes,
            bytes > 0 ? o->sim.plat.core_speed * work / bytes : INFINITY, r->policy, eff,
            r->resolution_s, r->thefts, r->messages, r->bytes_moved, r->peers_max, r->results_ok,
            dlb->seed, cost->wall_s, cost->peak_mb);
  }
  bool ok = !ferror(f);
  if (fclose(f) != 0 || !ok) {
    fprintf(stderr, PROG ": --csv: error writing %s\n", o->csv);
    return false;
  }
  return true;
}

static void print_json(const opts *o, const char *dlb_text, const sim_cost *cost, bool ok) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_bool(&j, "ok", ok);
  sim_json_platform(&j, &o->sim);
  json_array_begin(&j, "dlb_args");
  for (int i = 0; i < o->sim.nfwd; i++) json_string(&j, NULL, o->sim.fwd[i]);
  json_array_end(&j);
  sim_json_cost(&j, cost);
  if (dlb_text)
    json_raw(&j, "dlb", dlb_text);
  else
    json_string(&j, "dlb", NULL);
  json_object_end(&j);
  json_finish(&j);
}

static void print_table(const opts *o, const dlb_output *dlb, const sim_cost *cost) {
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
  dlb_output dlb;
  bool parsed = ran && text && dlb_output_parse(text, &dlb);
  bool ok = parsed && cost.status == 0;
  for (int r = 0; parsed && r < dlb.nruns; r++) ok = ok && dlb.runs[r].results_ok;
  if (!ok)
    fprintf(stderr, PROG ": the simulation failed (exit status %d%s)\n", cost.status,
            !parsed ? ", no DLB_Bench result" : "");
  if (o.json) print_json(&o, parsed ? text : NULL, &cost, ok);
  /* DLB_Bench refused a flag passed on to it: a usage error here too. */
  if (!parsed && cost.status == 2) {
    free(text);
    return 2;
  }
  if (parsed) {
    if (!o.json) print_table(&o, &dlb, &cost);
    if (o.csv && !append_csv(&o, &dlb, &cost)) ok = false;
  }
  free(text);
  return ok ? 0 : 1;
}
