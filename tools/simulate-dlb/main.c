/* ballast-simulate-dlb: DLB_Bench (the real steal code) on a simulated
 * cluster. It writes a SimGrid platform for the requested machine (nodes of
 * --cores-per-node cores on one switched network), runs smpirun on
 * dlb-bench-smpi (DLB_Bench built by smpicc, in libexec/ballast) with the DLB_Bench
 * flags it does not know itself, and reports the simulated results beside
 * the cost of the simulation (wall time, peak memory). Times inside the
 * simulation (efficiency, resolution) are simulated seconds. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/launch.h"
#include "common/output.h"
#include "memwatch.h"
#include "platform.h"
#include "result.h"

#define PROG "ballast-simulate-dlb"
#define MAX_ARGS 256

typedef struct opts {
  sim_platform plat;
  double probe_cost;
  const char *csv;
  bool json, keep;
  const char *cfgs[MAX_ARGS]; /* --smpi-cfg K:V */
  int ncfgs;
  const char *fwd[MAX_ARGS]; /* DLB_Bench flags, passed on in order */
  int nfwd;
} opts;

/* --smpi-cfg K:V, repeatable. */
static bool parse_cfg(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  if (!strchr(v, ':')) {
    snprintf(err, n, "expected KEY:VALUE, got '%s'", v);
    return false;
  }
  if (o->ncfgs == MAX_ARGS) {
    snprintf(err, n, "more than %d settings", MAX_ARGS);
    return false;
  }
  o->cfgs[o->ncfgs++] = v;
  return true;
}

static bool parse_work_mode(const char *v, void *dest, char *err, size_t n) {
  (void)dest;
  if (!strcmp(v, "simulated")) return true;
  snprintf(err, n, "only 'simulated' runs under SMPI, not '%s'", v);
  return false;
}

/* Every argument that is not the launcher's own goes to DLB_Bench. */
static bool forward(const char *arg, void *ctx) {
  opts *o = ctx;
  if (o->nfwd == MAX_ARGS) {
    fprintf(stderr, PROG ": more than %d arguments for DLB_Bench\n", MAX_ARGS);
    return false;
  }
  o->fwd[o->nfwd++] = arg;
  return true;
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->plat = (sim_platform){0, 28, 2.4e9, 1e-6, 12.5e9, 3e-7, 1e10};
  /* Probing costs ~1 us at most, once per poll (1 ms slices): 0.1% of the
   * time, invisible in the results (0.958 vs 0.957 at 128 ranks), while
   * simulating each probe's cost is a quarter of the simulation's work. */
  o->probe_cost = 0;
  int64_t ranks = 0, cores = o->plat.cores_per_node;
  bool ranks_given = false;
  const cli_flag flags[] = {
      CLI_SECTION("Machine (defaults: 28-core nodes on Omni-Path, 100 Gb/s, ~1 us):"),
      {.kind = CLI_KIND_INT, .name = "--ranks", .metavar = "N", .dest = &ranks,
       .given = &ranks_given, .imin = 1, .imax = 1 << 20,
       .help = "simulated MPI ranks (required)"},
      CLI_INT("--cores-per-node", "C", &cores, 1, 1 << 16, "ranks per node (default 28)"),
      CLI_DOUBLE("--core-speed", "F", &o->plat.core_speed, 1, 1e15,
                 "flop/s of a core, for cycles/byte (default 2.4e9)"),
      CLI_DOUBLE("--latency", "S", &o->plat.latency, 0, 10,
                 "node link latency, s (default 1e-6; two links per hop)"),
      CLI_DOUBLE("--bandwidth", "B", &o->plat.bandwidth, 1, 1e15,
                 "node link bandwidth, bytes/s (default 12.5e9)"),
      CLI_DOUBLE("--intra-latency", "S", &o->plat.intra_latency, 0, 10,
                 "latency between ranks of a node, s (default 3e-7)"),
      CLI_DOUBLE("--intra-bandwidth", "B", &o->plat.intra_bandwidth, 1, 1e15,
                 "bandwidth between ranks of a node, bytes/s (default 1e10)"),
      CLI_DOUBLE("--probe-cost", "S", &o->probe_cost, 0, 1,
                 "simulated cost of an MPI_Iprobe/MPI_Test, s (default 0)"),
      CLI_CUSTOM("--smpi-cfg", "K:V", o, parse_cfg,
                 "extra SimGrid setting (repeatable), e.g. smpi/test:2e-6"),
      CLI_CUSTOM("--work-mode", "M", NULL, parse_work_mode,
                 "DLB_Bench's work mode: only 'simulated' (the default)"),
      CLI_SECTION("Output:"),
      CLI_BOOL("--json", &o->json, "print one JSON object (platform, simulation cost, DLB_Bench's)"),
      CLI_PATH("--csv", "FILE", &o->csv, "append one row per policy to FILE (header if new)"),
      CLI_BOOL("--keep-files", &o->keep, "keep the generated platform and host files"),
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
      .other = forward,
      .other_ctx = o};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->plat.ranks = ranks;
  o->plat.cores_per_node = cores;
  if (!ranks_given)
    return cli_usage_error(PROG, "--ranks: required (number of simulated ranks)");
  /* --csv appends rows (several runs build one table), so it is not
   * written whole; its directory is still checked before the simulation. */
  if (o->csv && !out_check_dir(PROG, "--csv", o->csv)) return 1;
  return CLI_CONTINUE;
}

/* A program at the path rel from this program's directory: DLB_Bench for
 * SMPI is BALLAST_SMPI_HELPER away (libexec/ballast, see CMakeLists.txt). */
static bool sibling(const char *rel, char *out, size_t n) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return false;
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash) return false;
  *slash = '\0';
  int w = snprintf(out, n, "%s/%s", self, rel);
  return w > 0 && (size_t)w < n && access(out, X_OK) == 0;
}

typedef struct run_cost {
  double wall_s, peak_mb; /* peak PSS of the simulation (memwatch.h) */
  int status; /* exit status, or 128 + signal */
} run_cost;

/* Run argv with stdout captured into *out (malloc'd, NUL-terminated). */
static bool run_capture(char **argv, char **out, run_cost *cost) {
  int fd[2];
  if (pipe2(fd, O_CLOEXEC) != 0) return false; /* only the child's stdout stays open in it */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* Its own process group, so that memwatch finds all of it and a signal
   * to this program reaches all of it (launch.h). */
  pid_t pid = launch_spawn(PROG, argv, fd[1]);
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    return false;
  }
  double peak = 0, next_sample = 0;
  size_t len = 0, cap = 1 << 16;
  char *buf = malloc(cap);
  for (;;) {
    if (buf && len + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      } else {
        buf = nb;
      }
    }
    /* Sample the memory while waiting for output. Reading the PSS of a
     * process with thousands of simulated ranks walks all their mappings
     * and takes a while itself: sample at most every second and at least
     * 50 sampling times apart, so that it costs the simulation < 2%. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double t = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
    if (t >= next_sample) {
      double mb = memwatch_group_pss_mb(pid);
      if (mb > peak) peak = mb;
      clock_gettime(CLOCK_MONOTONIC, &now);
      double took = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec - t;
      next_sample = t + (50 * took > 1.0 ? 50 * took : 1.0);
    }
    struct pollfd pfd = {fd[0], POLLIN, 0};
    int pr = poll(&pfd, 1, 200);
    if (pr == 0 || (pr < 0 && errno == EINTR)) continue;
    char sink[4096];
    ssize_t r = buf ? read(fd[0], buf + len, cap - len - 1) : read(fd[0], sink, sizeof sink);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    if (buf) len += (size_t)r;
  }
  close(fd[0]);
  int status = launch_wait(pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cost->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cost->peak_mb = peak;
  cost->status = status;
  if (!buf) return false;
  buf[len] = '\0';
  *out = buf;
  return true;
}

static const char *csv_columns =
    "ranks,cores_per_node,latency,bandwidth,distribution,work_per_rank,tasks_per_rank,"
    "bytes_per_rank,cycles_per_byte,policy,efficiency,resolution_s,thefts,messages,"
    "bytes_moved,peers_max,results_ok,seed,wall_s,peak_mb\n";

static bool append_csv(const opts *o, const dlb_output *dlb, const run_cost *cost) {
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
            o->plat.ranks, o->plat.cores_per_node, o->plat.latency, o->plat.bandwidth,
            dlb->distribution, work, dlb->tasks_per_rank, bytes,
            bytes > 0 ? o->plat.core_speed * work / bytes : INFINITY, r->policy, eff,
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

static void print_json(const opts *o, const char *dlb_text, const run_cost *cost, bool ok) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_bool(&j, "ok", ok);
  json_object_begin(&j, "platform");
  json_int(&j, "ranks", o->plat.ranks);
  json_int(&j, "nodes", sim_nodes(&o->plat));
  json_int(&j, "cores_per_node", o->plat.cores_per_node);
  json_double(&j, "core_speed", o->plat.core_speed);
  json_double(&j, "latency", o->plat.latency);
  json_double(&j, "bandwidth", o->plat.bandwidth);
  json_double(&j, "intra_latency", o->plat.intra_latency);
  json_double(&j, "intra_bandwidth", o->plat.intra_bandwidth);
  json_double(&j, "probe_cost", o->probe_cost);
  json_array_begin(&j, "smpi_cfg");
  for (int i = 0; i < o->ncfgs; i++) json_string(&j, NULL, o->cfgs[i]);
  json_array_end(&j);
  json_object_end(&j);
  json_array_begin(&j, "dlb_args");
  for (int i = 0; i < o->nfwd; i++) json_string(&j, NULL, o->fwd[i]);
  json_array_end(&j);
  json_object_begin(&j, "simulation");
  json_double(&j, "wall_s", cost->wall_s);
  json_double(&j, "peak_mb", cost->peak_mb);
  json_int(&j, "exit_status", cost->status);
  json_object_end(&j);
  if (dlb_text)
    json_raw(&j, "dlb", dlb_text);
  else
    json_string(&j, "dlb", NULL);
  json_object_end(&j);
  json_finish(&j);
}

static void print_table(const opts *o, const dlb_output *dlb, const run_cost *cost) {
  printf("Simulated cluster: %lld ranks on %lld nodes x %lld cores, links %.3g B/s %.3g s, "
         "core %.3g flop/s\n",
         o->plat.ranks, sim_nodes(&o->plat), o->plat.cores_per_node, o->plat.bandwidth,
         o->plat.latency, o->plat.core_speed);
  double bytes = dlb->bytes_per_rank, work = dlb->work_per_rank;
  printf("DLB_Bench: %s distribution, %.3g s work/rank, %.3g bytes/rank (%.3g cycles/byte), "
         "%.0f tasks, seed %.0f\n",
         dlb->distribution, work, bytes, o->plat.core_speed * work / bytes, dlb->tasks,
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
  char exe[PATH_MAX];
  if (!sibling(BALLAST_SMPI_HELPER, exe, sizeof exe)) {
    fprintf(stderr, PROG ": %s is missing (build Ballast with SimGrid: Debian libsimgrid-dev)\n",
            BALLAST_SMPI_HELPER);
    return 2;
  }
  char dir[PATH_MAX];
  if (!cli_temp_template(dir, sizeof dir, "ballast-simulate") || !mkdtemp(dir)) {
    fprintf(stderr, PROG ": cannot create a temporary directory: %s\n", strerror(errno));
    return 2;
  }
  if (!sim_write_platform(&o.plat, dir, PROG)) return 2;

  /* smpirun [SimGrid settings] program [DLB_Bench flags] --json */
  char np[32], plat[PATH_MAX + 16], hosts[PATH_MAX + 16], speed[64], iprobe[64], test[64];
  snprintf(np, sizeof np, "%lld", o.plat.ranks);
  snprintf(plat, sizeof plat, "%s/platform.xml", dir);
  snprintf(hosts, sizeof hosts, "%s/hosts.txt", dir);
  snprintf(speed, sizeof speed, "--cfg=smpi/host-speed:%.17gf", o.plat.core_speed);
  snprintf(iprobe, sizeof iprobe, "--cfg=smpi/iprobe:%.17g", o.probe_cost);
  snprintf(test, sizeof test, "--cfg=smpi/test:%.17g", o.probe_cost);
  char *args[2 * MAX_ARGS + 32];
  char cfgbuf[MAX_ARGS][512];
  int k = 0;
  args[k++] = (char *)BALLAST_SMPIRUN;
  args[k++] = (char *)"-np";
  args[k++] = np;
  args[k++] = (char *)"-platform";
  args[k++] = plat;
  args[k++] = (char *)"-hostfile";
  args[k++] = hosts;
  args[k++] = speed;
  /* The simulated program keeps no per-rank state in global variables
   * (the library's only globals, the log sink, are process-wide by
   * design), so SMPI need not remap the data segment at every context
   * switch: it is the largest cost of the simulation otherwise. */
  args[k++] = (char *)"-no-privatize";
  /* Only the modelled costs count: MPI calls and the network. CPU time
   * between MPI calls is not measured, so results do not depend on how
   * busy this machine is, and polling costs what --probe-cost says, every
   * time (SimGrid's default makes repeated probes ever dearer). */
  args[k++] = (char *)"--cfg=smpi/simulate-computation:no";
  /* Logarithmic collective algorithms, named one by one. SMPI's default
   * ones are linear (a reduction over thousands of ranks costs the
   * simulator O(P^2) and is not what MPI libraries run), and its "ompi"
   * selector makes every new communicator (the balancer's MPI_Comm_dup)
   * set up SMP-aware collectives with a ring allgather: O(P^2) messages
   * (bench/steal/smpi-collectives.sh: one MPI_Comm_dup and DLB_Bench's
   * collectives on 896 ranks, 25 s of simulation against 0.6 s). */
  static char *const colls[] = {
      "--cfg=smpi/coll-selector:default", "--cfg=smpi/bcast:binomial_tree",
      "--cfg=smpi/reduce:binomial",        "--cfg=smpi/allreduce:rdb",
      "--cfg=smpi/allgather:bruck",        "--cfg=smpi/gather:ompi_binomial",
      "--cfg=smpi/barrier:ompi_tree"};
  for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) args[k++] = colls[c];
  args[k++] = (char *)"--cfg=smpi/grow-injected-times:no";
  args[k++] = iprobe;
  args[k++] = test;
  args[k++] = (char *)"--log=root.thres:warning";
  args[k++] = (char *)"--log=xbt_cfg.thres:warning";
  for (int i = 0; i < o.ncfgs; i++) {
    snprintf(cfgbuf[i], sizeof cfgbuf[i], "--cfg=%s", o.cfgs[i]);
    args[k++] = cfgbuf[i];
  }
  args[k++] = exe;
  for (int i = 0; i < o.nfwd; i++) args[k++] = (char *)o.fwd[i];
  args[k++] = (char *)"--json";
  args[k] = NULL;

  char *text = NULL;
  run_cost cost = {0, 0, 0};
  bool ran = run_capture(args, &text, &cost);
  if (!o.keep) {
    unlink(plat);
    unlink(hosts);
    rmdir(dir);
  } else {
    fprintf(stderr, PROG ": platform and host files kept in %s\n", dir);
  }
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
