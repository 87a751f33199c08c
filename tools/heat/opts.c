/* ballast-heat's command line. Every error names its flag. */
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/launch.h"
#include "common/names.h"
#include "common/output.h"
#include "heat.h"

static const char *load_names[] = {"none", "constant", "oscillating"};
static const char *work_names[] = {"sleep", "compute"};

const char *heat_load_name(heat_load_kind k) { return load_names[k]; }
const char *heat_work_name(heat_work_mode m) { return work_names[m]; }

/* --loaded-ranks: a comma-separated list of ranks. */
static bool parse_ranks(const char *v, void *dest, char *err, size_t n) {
  heat_opts *o = dest;
  o->nloaded = 0;
  o->loaded_arg = v;
  char item[64];
  for (const char *p = v;;) {
    size_t len = strcspn(p, ",");
    int64_t r;
    if (o->nloaded == HEAT_MAX_LOADED) {
      snprintf(err, n, "'%s' lists more than %d ranks", v, HEAT_MAX_LOADED);
      return false;
    }
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
    char why[160];
    if (len >= sizeof item || !cli_int_text(item, 0, 1 << 20, &r, why, sizeof why)) {
      snprintf(err, n, "'%s' is not a comma-separated list of ranks: %s", v,
               len >= sizeof item ? "an item is too long" : why);
      return false;
    }
    o->loaded[o->nloaded++] = (int)r;
    if (!p[len]) return true;
    p += len + 1;
  }
}

int heat_parse(int argc, char **argv, heat_opts *o) {
  memset(o, 0, sizeof *o);
  o->iterations = 500;
  o->load_period = 12;
  o->load_duty = 0.5;
  o->slowdown = 2;
  o->nloaded = 1;
  o->loaded_arg = "0";
  o->row_s = 1e-4;
  o->threshold_value = 0.10;
  o->poll_s = 1e-4;
  o->seed = 1;
  o->ny = 800;
  int64_t ranks = 0, nx = 64, iterations = 500, interval = 0;
  int load = 0, work = 0;
  bool no_filter = false, no_threshold = false, no_profitability = false;
  /* "off" (no balancer at all, the baseline), then the balancers the
   * library registers: its "none" measures and decides, never moves. */
  bal_rebalance_config dflt;
  bal_rebalance_config_init(&dflt);
  const char *balancers[HEAT_MAX_BALANCERS + 2] = {HEAT_BALANCER_OFF};
  int nb = 1, balancer = 0;
  for (int i = 0; bal_rebalance_balancer_name(i) && nb <= HEAT_MAX_BALANCERS; i++) {
    if (!strcmp(bal_rebalance_balancer_name(i), dflt.balancer)) balancer = nb;
    balancers[nb++] = bal_rebalance_balancer_name(i);
  }
  balancers[nb] = NULL;
  char balancer_help[512];
  names_help(balancer_help, sizeof balancer_help,
             HEAT_BALANCER_OFF " (no balancer at all: the baseline) or a\nbalancer:",
             bal_rebalance_balancer_name, dflt.balancer,
             "\n(none measures and decides, never moves)");
  static const char *const loads[] = {"none", "constant", "oscillating", NULL};
  static const char *const works[] = {"sleep", "compute", NULL};
  const cli_flag flags[] = {
      LAUNCH_RANKS_FLAG(&ranks),
      CLI_INT("--nx", "N", &nx, 3, 1 << 20, "columns, edges included (default 64)"),
      CLI_INT("--ny", "N", &o->ny, 1, INT64_C(1) << 26, "rows = work items (default 800)"),
      CLI_INT("--iterations", "N", &iterations, 1, INT64_C(1) << 40,
              "Jacobi sweeps (default 500)"),
      CLI_CHOICE("--balancer", "B", &balancer, balancers, balancer_help),
      CLI_CHOICE("--load", "L", &load, loads, "none (default), constant, oscillating"),
      CLI_CUSTOM("--loaded-ranks", "LIST", o, parse_ranks,
                 "comma-separated ranks under the load (default 0)"),
      CLI_DOUBLE("--slowdown", "F", &o->slowdown, 1, 1e6,
                 "a loaded rank computes F times slower, F >= 1 (default 2)"),
      CLI_DOUBLE("--load-period", "S", &o->load_period, 1e-3, 1e9,
                 "oscillating: seconds per cycle (default 12)"),
      CLI_DOUBLE("--load-duty", "F", &o->load_duty, 0, 1,
                 "oscillating: loaded fraction of a cycle, first (default 0.5)"),
      CLI_CHOICE("--work-mode", "M", &work, works,
                 "sleep (default: a row costs --row-time of sleep beside its\n"
                 "real update, so ranks yield the CPU) or compute (real cost)"),
      CLI_DOUBLE("--row-time", "S", &o->row_s, 0, 10,
                 "sleep mode: dedicated seconds per row and sweep (default 1e-4)"),
      CLI_BOOL("--no-filter", &no_filter, "use raw rates (no adaptive filter)"),
      CLI_BOOL("--no-threshold", &no_threshold, "move on any projected improvement (threshold 0)"),
      CLI_DOUBLE("--threshold", "F", &o->threshold_value, 0, 0.999999,
                 "imbalance threshold in [0, 1) (default 0.10)"),
      CLI_BOOL("--no-profitability", &no_profitability, "never cancel a move as unprofitable"),
      CLI_INT("--interval", "N", &interval, 0, INT64_C(1) << 40,
              "iterations between interactions (default 0: automatic)"),
      CLI_DOUBLE("--poll-interval", "S", &o->poll_s, 0, 1,
                 "waiting ranks test for messages every S s (default 1e-4;\n"
                 "0: block in MPI_Waitall, which spins)"),
      CLI_UINT("--seed", "S", &o->seed, "initial temperature field (default 1)"),
      CLI_PATH("--trace", "FILE.csv", &o->trace,
               "per interaction on the first loaded rank: time, rows,\n"
               "raw and filtered rate, load state"),
      CLI_PATH("--plot", "FILE.png", &o->plot,
               "rows and filtered rate over time on that rank (gnuplot)"),
      CLI_BOOL("--json", &o->json, "print one JSON object"),
      CLI_END};
  const cli_program prog = {
      .name = HEAT_PROG,
      .usage = HEAT_PROG " [options]            (under mpirun/mpiexec)\n"
                         "       ballast heat --ranks P [options]  (launches mpiexec itself)",
      .description =
          "2-D Jacobi heat diffusion whose grid rows are spread over the ranks and moved\n"
          "by Ballast's iterative rebalancing (bal_rebalance) away from ranks slowed by an\n"
          "artificial competing load. Prints the efficiency and the work moved.",
      .flags = flags};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->ranks = ranks;
  o->nx = (int)nx;
  o->iterations = iterations;
  o->interval = interval;
  o->balancer_off = balancer == 0;
  o->balancer = balancers[balancer]; /* static strings: the library's, or "off" */
  o->load = (heat_load_kind)load;
  o->work = (heat_work_mode)work;
  o->filter = !no_filter;
  o->threshold = !no_threshold;
  o->profitability = !no_profitability;
  if (o->work == WORK_SLEEP && o->row_s <= 0)
    return cli_usage_error(HEAT_PROG, "--row-time: must be > 0 in sleep mode");
  if (o->trace && !out_check_dir(HEAT_PROG, "--trace", o->trace)) return 1;
  if (o->plot && !out_check_dir(HEAT_PROG, "--plot", o->plot)) return 1;
  return CLI_CONTINUE;
}
