/* ballast-heat's command line. Every error names its flag. */
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "heat.h"

static const char *load_names[] = {"none", "constant", "oscillating"};
static const char *work_names[] = {"sleep", "compute"};

const char *heat_load_name(heat_load_kind k) { return load_names[k]; }
const char *heat_work_name(heat_work_mode m) { return work_names[m]; }

void heat_usage(FILE *out) {
  fprintf(out,
          "usage: " HEAT_PROG " [options]            (under mpirun/mpiexec)\n"
          "       ballast heat --ranks P [options]  (launches mpiexec itself)\n\n"
          "2-D Jacobi heat diffusion whose grid rows are spread over the ranks and moved\n"
          "by Ballast's iterative rebalancing (bal_rebalance) away from ranks slowed by an\n"
          "artificial competing load. Prints the efficiency (seed 002 §3) and the work moved.\n\n"
          "  --ranks P             number of MPI ranks to launch (oversubscribed)\n"
          "  --nx N                columns, edges included (default 64)\n"
          "  --ny N                rows = work items (default 800)\n"
          "  --iterations N        Jacobi sweeps (default 500)\n"
          "  --balancer B          none (no balancer), string (default), direct\n"
          "  --load L              none (default), constant, oscillating\n"
          "  --loaded-ranks LIST   comma-separated ranks under the load (default 0)\n"
          "  --slowdown F          a loaded rank computes F times slower, F >= 1 (default 2)\n"
          "  --load-period S       oscillating: seconds per cycle (default 12)\n"
          "  --load-duty F         oscillating: loaded fraction of a cycle, first (default 0.5)\n"
          "  --work-mode M         sleep (default: a row costs --row-time of sleep beside its\n"
          "                        real update, so ranks yield the CPU) or compute (real cost)\n"
          "  --row-time S          sleep mode: dedicated seconds per row and sweep (default 1e-4)\n"
          "  --no-filter           use raw rates (no adaptive filter)\n"
          "  --no-threshold        move on any projected improvement (threshold 0)\n"
          "  --threshold F         imbalance threshold in [0, 1) (default 0.10)\n"
          "  --no-profitability    never cancel a move as unprofitable\n"
          "  --interval N          iterations between interactions (default 0: automatic)\n"
          "  --poll-interval S     waiting ranks test for messages every S s (default 1e-4;\n"
          "                        0: block in MPI_Waitall, which spins)\n"
          "  --seed S              initial temperature field (default 1)\n"
          "  --trace FILE.csv      per interaction on the first loaded rank: time, rows,\n"
          "                        raw and filtered rate, load state\n"
          "  --plot FILE.png       rows and filtered rate over time on that rank (gnuplot)\n"
          "  --json                print one JSON object\n"
          "  --help, --version\n");
}

static bool parse_ranks(const char *v, heat_opts *o) {
  o->nloaded = 0;
  o->loaded_arg = v;
  for (const char *p = v;;) {
    char *end;
    long r = strtol(p, &end, 10);
    if (end == p || r < 0 || r > 1 << 20 || (*end && *end != ',') || o->nloaded == HEAT_MAX_LOADED) {
      fprintf(stderr, HEAT_PROG ": --loaded-ranks: '%s' is not a list of up to %d ranks\n", v,
              HEAT_MAX_LOADED);
      return false;
    }
    o->loaded[o->nloaded++] = (int)r;
    if (!*end) return true;
    p = end + 1;
  }
}

static bool parse_name(const char *flag, const char *v, const char **names, int n, int *out) {
  for (int k = 0; k < n; k++)
    if (!strcmp(v, names[k])) {
      *out = k;
      return true;
    }
  fprintf(stderr, HEAT_PROG ": %s: unknown '%s' (", flag, v);
  for (int k = 0; k < n; k++) fprintf(stderr, "%s%s", k ? ", " : "", names[k]);
  fprintf(stderr, ")\n");
  return false;
}

bool heat_parse(int argc, char **argv, heat_opts *o) {
  memset(o, 0, sizeof *o);
  o->nx = 64;
  o->ny = 800;
  o->iterations = 500;
  o->balancer = BAL_REBALANCE_STRING;
  o->load_period = 12;
  o->load_duty = 0.5;
  o->slowdown = 2;
  o->nloaded = 1;
  o->loaded_arg = "0";
  o->row_s = 1e-4;
  o->filter = o->threshold = o->profitability = true;
  o->threshold_value = 0.10;
  o->poll_s = 1e-4;
  o->seed = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int64_t n;
    int k;
    if (!strcmp(a, "--json")) {
      o->json = true;
      continue;
    } else if (!strcmp(a, "--no-filter")) {
      o->filter = false;
      continue;
    } else if (!strcmp(a, "--no-threshold")) {
      o->threshold = false;
      continue;
    } else if (!strcmp(a, "--no-profitability")) {
      o->profitability = false;
      continue;
    }
    static const char *valued[] = {"--ranks", "--nx", "--ny", "--iterations", "--balancer",
                                   "--load", "--loaded-ranks", "--slowdown", "--load-period",
                                   "--load-duty", "--work-mode", "--row-time", "--threshold",
                                   "--interval", "--poll-interval", "--seed", "--trace", "--plot"};
    bool known = false;
    for (size_t f = 0; f < sizeof valued / sizeof valued[0]; f++) known = known || !strcmp(a, valued[f]);
    if (!known) {
      cli_unknown(HEAT_PROG, a);
      return false;
    }
    if (!(v = cli_value(HEAT_PROG, argc, argv, &i))) return false;
    if (!strcmp(a, "--ranks")) {
      if (!cli_parse_i64(HEAT_PROG, a, v, 1, 1 << 20, &n)) return false;
      o->ranks = n;
    } else if (!strcmp(a, "--nx")) {
      if (!cli_parse_i64(HEAT_PROG, a, v, 3, 1 << 20, &n)) return false;
      o->nx = (int)n;
    } else if (!strcmp(a, "--ny")) {
      if (!cli_parse_i64(HEAT_PROG, a, v, 1, INT64_C(1) << 26, &o->ny)) return false;
    } else if (!strcmp(a, "--iterations")) {
      if (!cli_parse_i64(HEAT_PROG, a, v, 1, INT64_C(1) << 40, &n)) return false;
      o->iterations = n;
    } else if (!strcmp(a, "--balancer")) {
      static const char *names[] = {"none", "string", "direct"};
      if (!parse_name(a, v, names, 3, &k)) return false;
      o->balancer_off = k == 0;
      o->balancer = k == 2 ? BAL_REBALANCE_DIRECT : BAL_REBALANCE_STRING;
    } else if (!strcmp(a, "--load")) {
      if (!parse_name(a, v, load_names, 3, &k)) return false;
      o->load = (heat_load_kind)k;
    } else if (!strcmp(a, "--loaded-ranks")) {
      if (!parse_ranks(v, o)) return false;
    } else if (!strcmp(a, "--slowdown")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 1, 1e6, &o->slowdown)) return false;
    } else if (!strcmp(a, "--load-period")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 1e-3, 1e9, &o->load_period)) return false;
    } else if (!strcmp(a, "--load-duty")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 0, 1, &o->load_duty)) return false;
    } else if (!strcmp(a, "--work-mode")) {
      if (!parse_name(a, v, work_names, 2, &k)) return false;
      o->work = (heat_work_mode)k;
    } else if (!strcmp(a, "--row-time")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 0, 10, &o->row_s)) return false;
    } else if (!strcmp(a, "--threshold")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 0, 0.999999, &o->threshold_value)) return false;
    } else if (!strcmp(a, "--interval")) {
      if (!cli_parse_i64(HEAT_PROG, a, v, 0, INT64_C(1) << 40, &n)) return false;
      o->interval = n;
    } else if (!strcmp(a, "--poll-interval")) {
      if (!cli_parse_double(HEAT_PROG, a, v, 0, 1, &o->poll_s)) return false;
    } else if (!strcmp(a, "--seed")) {
      if (!cli_parse_u64(HEAT_PROG, a, v, &o->seed)) return false;
    } else if (!strcmp(a, "--trace")) {
      o->trace = v;
    } else { /* --plot, the last of `valued` */
      o->plot = v;
    }
  }
  if (o->work == WORK_SLEEP && o->row_s <= 0) {
    fprintf(stderr, HEAT_PROG ": --row-time: must be > 0 in sleep mode\n");
    return false;
  }
  return true;
}
