/* Running a program built by smpicc on a simulated cluster (simrun.h). */
#include "simrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/launch.h"
#include "common/output.h"
#include "memwatch.h"

void sim_opts_init(sim_opts *o) {
  memset(o, 0, sizeof *o);
  o->plat = (sim_platform){0, 28, 2.4e9, 1e-6, 12.5e9, 3e-7, 1e10};
  o->cores = o->plat.cores_per_node;
  /* Probing costs ~1 us at most, once per poll (1 ms slices): 0.1% of the
   * time, invisible in the results (0.958 vs 0.957 at 128 ranks), while
   * simulating each probe's cost is a quarter of the simulation's work. */
  o->probe_cost = 0;
}

bool sim_parse_cfg(const char *v, void *dest, char *err, size_t n) {
  sim_opts *o = dest;
  if (!strchr(v, ':')) {
    snprintf(err, n, "expected KEY:VALUE, got '%s'", v);
    return false;
  }
  if (o->ncfgs == SIM_MAX_ARGS) {
    snprintf(err, n, "more than %d settings", SIM_MAX_ARGS);
    return false;
  }
  o->cfgs[o->ncfgs++] = v;
  return true;
}

bool sim_forward(const char *arg, void *ctx) {
  sim_opts *o = ctx;
  if (o->nfwd == SIM_MAX_ARGS) {
    fprintf(stderr, "more than %d arguments for the simulated program\n", SIM_MAX_ARGS);
    return false;
  }
  o->fwd[o->nfwd++] = arg;
  return true;
}

/* Memory mappings of the simulation besides its ranks' (libraries, heap):
 * ~170 in a running 3,584-rank simulation, ~185 at 256 ranks, rounded up. */
#define SIM_OWN_MAPS 256

/* Whether this machine can start `ranks` simulated ranks, else false after
 * saying why, naming --ranks, the limit, the value needed and how to raise
 * it. SimGrid gives every rank a stack with a guard page, two memory
 * mappings (SIM_STACK_MAPS), and aborts ("Failed to protect stack", or
 * "Could not map folded virtual memory" in SMPI_SHARED_MALLOC) once the
 * process holds vm.max_map_count of them; the simulated program's own
 * mappings per rank (o->maps_per_rank) come on top. Measured with the
 * settings sim_run() passes (SimGrid 3.32): 697 mappings at 256 ranks for
 * simulate-uts, 943 for simulate-dlb with bulk task data (its shared
 * buffer once per rank). Refused here, before smpirun starts: SimGrid
 * only fails when the last ranks map, after minutes of setup. */
static int ranks_fit(const sim_opts *o, const char *prog) {
  long long limit = launch_max_map_count();
  if (limit == -2) {
    fprintf(stderr, "%s: $%s: '%s' is not a decimal integer in [1, 2147483647]\n", prog,
            LAUNCH_MAX_MAP_COUNT_ENV, getenv(LAUNCH_MAX_MAP_COUNT_ENV));
    return 2;
  }
  long long per = SIM_STACK_MAPS + o->maps_per_rank, need = per * o->ranks + SIM_OWN_MAPS;
  if (limit < 0 || need <= limit) return CLI_CONTINUE;
  /* A value to raise it to: what is needed, rounded up to a 4,096 multiple. */
  long long raise_to = (need + 4095) / 4096 * 4096;
  fprintf(stderr,
          "%s: --ranks %lld: the simulation needs about %lld memory mappings (%lld per simulated "
          "rank: %s) and this system allows %lld (vm.max_map_count): at most %lld ranks here; "
          "raise the limit as root with `sysctl -w vm.max_map_count=%lld`\n",
          prog, (long long)o->ranks, need, per, o->maps_why, limit,
          limit > SIM_OWN_MAPS ? (limit - SIM_OWN_MAPS) / per : 0, raise_to);
  return 1;
}

/* Whether rows for `header` may be appended to path: it is missing, empty,
 * or starts with that very line. A file written by another version (other
 * columns) would otherwise get rows that its header misnames. */
static bool csv_header_fits(const char *prog, const char *path, const char *header) {
  FILE *f = fopen(path, "r");
  if (!f) return true; /* new: sim_csv_open() writes the header */
  size_t n = strlen(header);
  char *line = malloc(n + 2);
  size_t got = line ? fread(line, 1, n + 1, f) : 0;
  fclose(f);
  bool fits = got == 0 || (got >= n && memcmp(line, header, n) == 0);
  free(line);
  if (!fits)
    fprintf(stderr,
            "%s: --csv: %s has other columns than this version writes (its first line is not\n"
            "  %.*s); append to a new file\n",
            prog, path, (int)(n ? n - 1 : 0), header);
  return fits;
}

int sim_opts_finish(sim_opts *o, const char *prog, const char *csv, const char *csv_header) {
  o->plat.ranks = o->ranks;
  o->plat.cores_per_node = o->cores;
  if (!o->ranks_given) return cli_usage_error(prog, "--ranks: required (number of simulated ranks)");
  int fit = ranks_fit(o, prog);
  if (fit != CLI_CONTINUE) return fit;
  if (csv && !out_check_dir(prog, "--csv", csv)) return 1;
  if (csv && !csv_header_fits(prog, csv, csv_header)) return 1;
  return CLI_CONTINUE;
}

bool sim_find_helper(const char *rel, char *out, size_t n) {
  return sim_find_beside(rel, X_OK, out, n);
}

bool sim_find_beside(const char *rel, int mode, char *out, size_t n) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return false;
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  if (!slash) return false;
  *slash = '\0';
  int w = snprintf(out, n, "%s/%s", self, rel);
  return w > 0 && (size_t)w < n && access(out, mode) == 0;
}

/* Run argv with stdout captured into *out (malloc'd, NUL-terminated). */
static bool run_capture(const char *prog, char **argv, char **out, sim_cost *cost) {
  int fd[2];
  if (pipe2(fd, O_CLOEXEC) != 0) return false; /* only the child's stdout stays open in it */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* Its own process group, so that memwatch finds all of it and a signal
   * to this program reaches all of it (launch.h). */
  pid_t pid = launch_spawn(prog, argv, fd[1]);
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

/* Run the simulated program's flag check (check: smpirun's arguments for
 * one rank and --check-flags) with its output in dir/check.txt; returns
 * its exit status, after printing the program's own lines ("ballast-...")
 * when it refused: one usage error instead of one per simulated rank, and
 * none of SimGrid's. */
static int check_flags(const char *prog, char **check, const char *dir) {
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/check.txt", dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "%s: cannot create %s: %s\n", prog, path, strerror(errno));
    return 1;
  }
  /* The child inherits this process's stderr: point it at the file while
   * the child starts. */
  fflush(stderr);
  int saved = dup(2);
  pid_t pid = saved >= 0 && dup2(fd, 2) == 2 ? launch_spawn(prog, check, fd) : -1;
  if (saved >= 0) {
    dup2(saved, 2);
    close(saved);
  }
  int status = pid < 0 ? 1 : launch_wait(pid);
  if (status != 0 && pid >= 0) {
    FILE *f = fdopen(fd, "r");
    char line[1024];
    bool said = false;
    if (f) {
      rewind(f);
      while (fgets(line, sizeof line, f))
        if (!strncmp(line, "ballast-", 8)) {
          fputs(line, stderr);
          said = true;
        }
      fclose(f);
    } else {
      close(fd);
    }
    if (!said) fprintf(stderr, "%s: the simulated program refused its flags (exit status %d)\n", prog, status);
  } else {
    close(fd);
  }
  unlink(path);
  return status;
}

/* SMPI reads the thread CPU clock twice per MPI call, a system call
 * each, to time code it does not simulate here (simulate-computation is
 * off): without them simulations took 2.9-4.6x less wall time here. The
 * stub in no_cpu_timer.c answers those reads without the kernel; every
 * simulated figure stays the same (docs/BENCHMARKS.md). Appends the stub
 * to LD_PRELOAD for the processes started next, after what is there (a
 * sanitizer's runtime must stay first, and a clock_gettime the user
 * preloaded, faketime's, keeps precedence); *saved receives the old value
 * for restore_preload() (NULL: there was none). False, and LD_PRELOAD
 * untouched, without the stub (an incomplete install, or a path LD_PRELOAD
 * cannot hold: it splits at spaces, tabs and colons): the run is then only
 * slower, and --json says so. */
static bool preload_stub(char **saved) {
  char stub[PATH_MAX], preload[2 * PATH_MAX + 2];
  *saved = NULL;
  if (!sim_find_beside(SIM_NO_CPU_TIMER, R_OK, stub, sizeof stub) || strpbrk(stub, " :\t"))
    return false;
  const char *cur = getenv("LD_PRELOAD");
  if (cur && !(*saved = strdup(cur))) return false;
  int w = snprintf(preload, sizeof preload, "%s%s%s", cur ? cur : "", cur && *cur ? ":" : "", stub);
  if (w > 0 && (size_t)w < sizeof preload && setenv("LD_PRELOAD", preload, 1) == 0) return true;
  free(*saved);
  *saved = NULL;
  return false;
}

/* Puts back the LD_PRELOAD that preload_stub() replaced, and frees saved. */
static void restore_preload(char *saved) {
  if (saved)
    setenv("LD_PRELOAD", saved, 1);
  else
    unsetenv("LD_PRELOAD");
  free(saved);
}

bool sim_run(const char *prog, const sim_opts *o, const char *smpirun, const char *exe,
             char **out, sim_cost *cost) {
  *out = NULL;
  char dir[PATH_MAX];
  if (!cli_temp_template(dir, sizeof dir, "ballast-simulate") || !mkdtemp(dir)) {
    fprintf(stderr, "%s: cannot create a temporary directory: %s\n", prog, strerror(errno));
    return false;
  }
  if (!sim_write_platform(&o->plat, dir, prog)) return false;

  /* smpirun [SimGrid settings] program [its flags] --json */
  char np[32], plat[PATH_MAX + 16], hosts[PATH_MAX + 16], speed[64], iprobe[64], test[64];
  snprintf(np, sizeof np, "%lld", o->plat.ranks);
  snprintf(plat, sizeof plat, "%s/platform.xml", dir);
  snprintf(hosts, sizeof hosts, "%s/hosts.txt", dir);
  snprintf(speed, sizeof speed, "--cfg=smpi/host-speed:%.17gf", o->plat.core_speed);
  snprintf(iprobe, sizeof iprobe, "--cfg=smpi/iprobe:%.17g", o->probe_cost);
  snprintf(test, sizeof test, "--cfg=smpi/test:%.17g", o->probe_cost);
  char *args[2 * SIM_MAX_ARGS + 32];
  static char cfgbuf[SIM_MAX_ARGS][512];
  int k = 0;
  args[k++] = (char *)smpirun;
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
  /* Tree collectives, named one by one. SMPI's default ones are linear (a
   * reduction over thousands of ranks costs the simulator O(P^2) and is
   * not what MPI libraries run), and its "ompi" selector makes every new
   * communicator (the balancer's MPI_Comm_dup) set up SMP-aware
   * collectives with a ring allgather: O(P^2) messages (on 896 ranks, 25 s
   * of host time against 0.6 s with named algorithms). Allreduce and
   * allgather go through a root (reduce then bcast, gather then bcast), not
   * recursive doubling or Bruck: those have every rank sending in every
   * round, and SimGrid 3.32 walks a list of all the sends in flight each
   * time one ends, so a round of P sends costs it O(P^2). At 14,336 ranks
   * one recursive-doubling allreduce cost 103 s of host time and one Bruck
   * allgather was not done after 8 minutes, against 1.9-2.5 s and 17 s
   * through the root; an allreduce and a barrier take 155 simulated us
   * instead of 96 (docs/BENCHMARKS.md, "Collectives that cost the simulator
   * O(P^2)"; bench/steal/smpi-collectives.sh). */
  static char *const colls[] = {
      "--cfg=smpi/coll-selector:default", "--cfg=smpi/bcast:binomial_tree",
      "--cfg=smpi/reduce:binomial",        "--cfg=smpi/allreduce:redbcast",
      "--cfg=smpi/allgather:GB",           "--cfg=smpi/gather:ompi_binomial",
      "--cfg=smpi/barrier:ompi_tree"};
  for (size_t c = 0; c < sizeof colls / sizeof *colls; c++) args[k++] = colls[c];
  args[k++] = (char *)"--cfg=smpi/grow-injected-times:no";
  /* One block per shared allocation: SMPI maps SMPI_SHARED_MALLOC memory
   * block by block (1 MiB by default), one memory mapping each, and the
   * transport's bulk buffer (16 MiB, src/steal/transport.c) is mapped once
   * per rank: 16 mappings per rank instead of 1, which capped a
   * 14,336-rank simulation at vm.max_map_count. Data contents do not
   * matter there, timings do not depend on it. */
  args[k++] = (char *)"--cfg=smpi/shared-malloc-blocksize:" SIM_SHARED_BLOCK;
  args[k++] = iprobe;
  args[k++] = test;
  args[k++] = (char *)"--log=root.thres:warning";
  args[k++] = (char *)"--log=xbt_cfg.thres:warning";
  /* A program that refuses its run on every rank (dlb-bench's memory
   * check) would otherwise add SimGrid's "SMPI process did not return 0"
   * once per simulated rank: the exit status says it once. */
  args[k++] = (char *)"--log=smpi_kernel.thres:error";
  for (int i = 0; i < o->ncfgs; i++) {
    snprintf(cfgbuf[i], sizeof cfgbuf[i], "--cfg=%s", o->cfgs[i]);
    args[k++] = cfgbuf[i];
  }
  args[k++] = (char *)exe;
  for (int i = 0; i < o->nfwd; i++) args[k++] = (char *)o->fwd[i];
  args[k++] = (char *)"--json";
  args[k] = NULL;

  char *saved_preload = NULL;
  cost->no_cpu_timer = !o->smpi_timers && preload_stub(&saved_preload);

  /* The program's flags first, on one rank. */
  char *check[2 * SIM_MAX_ARGS + 32];
  memcpy(check, args, (size_t)(k + 1) * sizeof *args);
  check[2] = (char *)"1";
  check[k - 1] = (char *)"--check-flags";
  int st = check_flags(prog, check, dir);
  bool ran = false;
  if (st != 0) {
    cost->status = st;
    cost->refused = true;
  } else {
    ran = run_capture(prog, args, out, cost);
  }
  if (cost->no_cpu_timer) restore_preload(saved_preload);
  if (!o->keep) {
    unlink(plat);
    unlink(hosts);
    rmdir(dir);
  } else {
    fprintf(stderr, "%s: platform and host files kept in %s\n", prog, dir);
  }
  return ran;
}

static void sim_json_platform(json_writer *j, const sim_opts *o) {
  json_object_begin(j, "platform");
  json_int(j, "ranks", o->plat.ranks);
  json_int(j, "nodes", sim_nodes(&o->plat));
  json_int(j, "cores_per_node", o->plat.cores_per_node);
  json_double(j, "core_speed", o->plat.core_speed);
  json_double(j, "latency", o->plat.latency);
  json_double(j, "bandwidth", o->plat.bandwidth);
  json_double(j, "intra_latency", o->plat.intra_latency);
  json_double(j, "intra_bandwidth", o->plat.intra_bandwidth);
  json_double(j, "probe_cost", o->probe_cost);
  json_array_begin(j, "smpi_cfg");
  for (int i = 0; i < o->ncfgs; i++) json_string(j, NULL, o->cfgs[i]);
  json_array_end(j);
  json_object_end(j);
}

static void sim_json_cost(json_writer *j, const sim_cost *cost) {
  json_object_begin(j, "simulation");
  json_double(j, "wall_s", cost->wall_s);
  json_double(j, "peak_mb", cost->peak_mb);
  json_int(j, "exit_status", cost->status);
  json_bool(j, "smpi_cpu_timers", !cost->no_cpu_timer);
  json_object_end(j);
}

char *sim_launch(const char *prog, const sim_opts *o, const char *smpirun, const char *helper_rel,
                 sim_cost *cost) {
  *cost = (sim_cost){0, 0, 0, false, false};
  char exe[PATH_MAX];
  if (!sim_find_helper(helper_rel, exe, sizeof exe)) {
    fprintf(stderr, "%s: %s is missing (build Ballast with SimGrid: Debian libsimgrid-dev)\n", prog,
            helper_rel);
    cost->status = 2;
    return NULL;
  }
  char *text = NULL;
  bool ran = sim_run(prog, o, smpirun, exe, &text, cost);
  if (launch_signal()) free(text);
  launch_die(); /* stopped by a signal: the simulation has ended, die of it */
  return ran ? text : NULL;
}

void sim_print_json(const sim_opts *o, const char *name, const char *text, const sim_cost *cost,
                    bool ok) {
  char key[64];
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_bool(&j, "ok", ok);
  sim_json_platform(&j, o);
  snprintf(key, sizeof key, "%s_args", name);
  json_array_begin(&j, key);
  for (int i = 0; i < o->nfwd; i++) json_string(&j, NULL, o->fwd[i]);
  json_array_end(&j);
  sim_json_cost(&j, cost);
  if (text)
    json_raw(&j, name, text);
  else
    json_string(&j, name, NULL);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

FILE *sim_csv_open(const char *prog, const char *path, const char *header) {
  if (!csv_header_fits(prog, path, header)) return NULL;
  struct stat sb;
  bool fresh = stat(path, &sb) != 0 || sb.st_size == 0;
  FILE *f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "%s: --csv: cannot open %s: %s\n", prog, path, strerror(errno));
    return NULL;
  }
  if (fresh) fputs(header, f);
  return f;
}

bool sim_csv_close(const char *prog, const char *path, FILE *f) {
  bool ok = !ferror(f);
  if (fclose(f) != 0 || !ok) {
    fprintf(stderr, "%s: --csv: error writing %s\n", prog, path);
    return false;
  }
  return true;
}

int sim_finish(const char *prog, const sim_opts *o, const char *name, const char *what, char *text,
               const sim_cost *cost, bool parsed, bool ok, bool json, void (*table)(void *arg),
               bool (*csv)(void *arg), void *arg) {
  if (cost->refused) { /* said already, once */
    free(text);
    return cost->status;
  }
  if (!ok)
    fprintf(stderr, "%s: the simulation failed (exit status %d%s%s%s)\n", prog, cost->status,
            parsed ? "" : ", no ", parsed ? "" : what, parsed ? "" : " result");
  if (json) sim_print_json(o, name, parsed ? text : NULL, cost, ok);
  free(text);
  if (!parsed) return cost->status == 2 ? 2 : 1;
  if (!json) table(arg);
  if (csv && !csv(arg)) ok = false;
  return ok ? 0 : 1;
}
