/* ballast-dlb-bench: DLB_Bench [Fontenaille 2018] §5.1 on the steal module.
 * Each rank owns a share of independent tasks given by a distribution,
 * every task "works" for a drawn duration (spin, sleep or simulated), all
 * ranks run them with bal_steal_run(), and each owner checks every result
 * (a checksum of the input): a missing, duplicated or wrong result fails
 * the run. Reports parallel efficiency = sum of measured task times /
 * (P * max resolution time). With --ranks P and outside mpirun, it
 * relaunches itself under mpiexec. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/launch.h"
#include "common/output.h"
#include "report.h"
#include "workload.h"

#define PROG "ballast-dlb-bench"
/* Policies one run may compare: more than the registry holds, so that
 * `--policy all` takes every registered one (parse_policies() refuses
 * rather than drops any beyond it). */
#define DLB_MAX_POLICIES 64

typedef enum { MODE_SPIN, MODE_SLEEP, MODE_SIMULATED } work_mode;
static const char *const mode_names[] = {"spin", "sleep", "simulated", NULL};

typedef struct opts {
  dlb_params prm;
  int npolicies;
  const char *policies[DLB_MAX_POLICIES]; /* registered names (bal_steal_policy_name) */
  const char *policy_arg;
  work_mode mode;
  int degree;
  double steal_fraction;
  double slice;
  double poll_interval;
  double backoff_max;
  int group_size;
  double estimate_error;
  int iterations;
  bool json;
  bool check_flags; /* SMPI build: check the flags, then exit */
  const char *trace;
  const char *plot;
  long long ranks; /* --ranks, 0 if absent */
} opts;

typedef struct ctx {
  bal_steal *s;
  work_mode mode;
  double slice;
  int rank;
  pthread_mutex_t mu;
  dlb_event *ev;
  long long nev, capev;
  long long lost; /* events not recorded: no memory to grow ev */
  bool tracing;
} ctx;

/* The registered name equal to the n bytes at p, or NULL. */
static const char *policy_named(const char *p, size_t n) {
  for (int i = 0; bal_steal_policy_name(i); i++) {
    const char *name = bal_steal_policy_name(i);
    if (strlen(name) == n && !strncmp(name, p, n)) return name;
  }
  return NULL;
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
      size_t k = 0;
      known[0] = '\0';
      for (int i = 0; bal_steal_policy_name(i) && k < sizeof known; i++) {
        int w = snprintf(known + k, sizeof known - k, "%s, ", bal_steal_policy_name(i));
        if (w < 0) break;
        k += (size_t)w;
      }
      snprintf(err, n, "unknown policy '%.*s' in '%s' (%sall, or a comma-separated list)",
               (int)len, p, v, known);
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

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->prm = (dlb_params){1.0, 100, 65536, 0.5, 0, DIST_GAUSSIAN, 1};
  o->iterations = 1;
  o->npolicies = 1;
  o->policies[0] = "smallworld";
  o->policy_arg = "smallworld";
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
      CLI_INT("--ranks", "P", &ranks, 1, 1 << 20,
              "number of MPI ranks to launch (oversubscribed)"),
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
      CLI_CUSTOM("--policy", "P", o, parse_policies,
                 "a victim policy: smallworld (default), biased, random,\n"
                 "none, sharing (hierarchical work sharing baseline), ...;\n"
                 "all (every registered one), or a list: a,b"),
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
      CLI_DOUBLE("--poll-interval", "S", &o->poll_interval, 0, 1,
                 "sleep of an idle progress loop (default 0.0001)"),
      CLI_DOUBLE("--backoff-max", "S", &o->backoff_max, 0, 60,
                 "longest back-off of an unlucky thief (default 0.002)"),
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

static bool under_mpirun(void) {
#ifdef BALLAST_SMPI
  return true; /* smpirun starts this program; `ballast simulate-dlb` launches it */
#endif
  return launch_under_mpirun();
}

static void on_event(void *arg, bal_steal_event ev, double t0, double t1, int peer) {
  ctx *c = arg;
  pthread_mutex_lock(&c->mu);
  if (c->nev == c->capev) {
    long long cap = c->capev ? 2 * c->capev : 4096;
    dlb_event *n = realloc(c->ev, (size_t)cap * sizeof *n);
    if (!n) { /* counted, so that the trace is not written as if whole */
      c->lost++;
      pthread_mutex_unlock(&c->mu);
      return;
    }
    c->ev = n;
    c->capev = cap;
  }
  c->ev[c->nev++] = (dlb_event){(double)ev, t0, t1, (double)peer};
  pthread_mutex_unlock(&c->mu);
}

static void spin_until(double end) {
  while (MPI_Wtime() < end) {
  }
}

static void sleep_for(double s) {
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static int task(const void *input, size_t in_len, void *output, size_t out_cap, size_t *out_len,
                void *arg) {
  ctx *c = arg;
  dlb_task_hdr h;
  if (in_len < sizeof h || out_cap < sizeof(dlb_result)) return 1;
  memcpy(&h, input, sizeof h);
  double t0 = MPI_Wtime();
  if (c->mode == MODE_SPIN) {
    spin_until(t0 + h.seconds);
  } else if (c->mode == MODE_SLEEP) {
    sleep_for(h.seconds);
  } else {
    /* Simulated: the work advances the clock in slices (under SMPI,
     * nanosleep is the simulated sleep), serving messages between them. */
    double left = h.seconds;
    while (left > 0) {
      double step = left < c->slice ? left : c->slice;
      sleep_for(step);
      left -= step;
      bal_steal_poll(c->s);
    }
  }
  dlb_result r = {h.gid, dlb_checksum(input, dlb_checked_len(in_len)), MPI_Wtime() - t0, c->rank};
  memcpy(output, &r, sizeof r);
  *out_len = sizeof r;
  return 0;
}

/* One iteration's figures, as rank 0 gathers them. */
typedef struct iter_out {
  double work_s, resolution_s, idle_s;
  long long attempts, thefts, given, messages, bytes, routed, route_msgs, results_bad, executions;
  int peers_max, degree_max;
} iter_out;

/* A policy's figures: totals over the measured iterations (all of them
 * with --iterations 1; the 2nd to the last otherwise), except results_bad
 * and executions, which count every iteration. */
typedef struct run_out {
  const char *policy;
  double efficiency;
  iter_out sum;
  bool ok;
  double *iter_efficiency, *iter_resolution; /* per iteration, rank 0 only */
  double *final_work;                         /* per rank, last iteration, rank 0 only */
} run_out;

/* Memory the kernel can give without swapping (MemAvailable), in bytes;
 * the free physical pages if /proc/meminfo says nothing; 0 if unknown. */
static double mem_available_bytes(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  double kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb >= 0) return kb * 1024.0;
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

#ifdef BALLAST_SMPI
/* Memory mappings the bulk of p simulated ranks adds: SimGrid maps the
 * transport's shared bulk buffer (16 MiB, src/steal/transport.c) in blocks
 * of smpi/shared-malloc-blocksize (1 MiB) once per rank at its first bulk
 * transfer -- 57,296 of the 64,642 mappings of a 3,584-rank run with 30 MB
 * per rank, the rest its stacks -- and aborts past vm.max_map_count.
 * Called on rank 0 (all ranks are threads of this process): true, with
 * what is needed and allowed, when the run would not fit. */
static bool bulk_maps_short(int p, long long *need, long long *limit) {
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  bool known = f && fscanf(f, "%lld", limit) == 1 && *limit > 0;
  if (f) fclose(f);
  long long now = 0;
  FILE *m = known ? fopen("/proc/self/maps", "r") : NULL;
  for (int c; m && (c = fgetc(m)) != EOF;) now += c == '\n';
  if (m) fclose(m);
  *need = now + 16LL * p;
  return m && *need > *limit;
}
#endif

/* Refuse, before building anything, a workload the machine cannot hold,
 * naming the flag that asks for it (every rank returns the same answer).
 * An estimate: each task costs its stored input (under SMPI only the first
 * BALLAST_SMPI_TASK_BYTES_KEPT bytes) plus ~160 bytes of bookkeeping at its
 * owner (the copy bal_steal_add_task() keeps, queue entry, result and its
 * slots, checksum), and each rank holds up to two whole inputs at a time
 * (the one being built, the one being run), against MemAvailable of
 * /proc/meminfo for the ranks of one node (under SMPI, every rank of the
 * run is a thread of this process). */
static bool memory_fits(const opts *o, int rank, int p, const long long *counts) {
  double len = (double)dlb_input_len(&o->prm), kept = len;
#ifdef BALLAST_SMPI
  if (kept > BALLAST_SMPI_TASK_BYTES_KEPT) kept = BALLAST_SMPI_TASK_BYTES_KEPT;
  double mine_tasks = 0;
  for (int r = 0; r < p; r++) mine_tasks += (double)counts[r]; /* the whole run */
  double ranks_here = p;
#else
  (void)p;
  double mine_tasks = (double)counts[rank], ranks_here = 1;
#endif
  double local[2] = {mine_tasks * kept + 2 * len * ranks_here, mine_tasks * 160.0}, node[2];
#ifdef BALLAST_SMPI
  node[0] = local[0];
  node[1] = local[1];
  int node_rank = rank;
#else
  MPI_Comm nc;
  int node_rank = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc);
  MPI_Comm_rank(nc, &node_rank);
  MPI_Allreduce(local, node, 2, MPI_DOUBLE, MPI_SUM, nc);
  MPI_Comm_free(&nc);
#endif
  double avail = mem_available_bytes();
  int refuse = avail > 0 && node[0] + node[1] > avail, any = refuse;
#ifdef BALLAST_SMPI
  long long maps_need = 0, maps_limit = 0;
  bool maps = !refuse && rank == 0 && len > kept && bulk_maps_short(p, &maps_need, &maps_limit);
  if (maps) {
    refuse = any = 1;
    fprintf(stderr,
            PROG ": %d simulated ranks with bulk task data (--bytes-per-rank %g) need about %lld "
                 "memory mappings, this system allows %lld (vm.max_map_count)\n",
            p, o->prm.bytes_per_rank, maps_need, maps_limit);
  }
#else
  const bool maps = false;
#endif
  /* Every rank reads MemAvailable at its own moment (under SMPI too): they
   * agree on one answer, or some would return while others go on into
   * collectives and wait for them forever. */
  MPI_Allreduce(&refuse, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (refuse && !maps && node_rank == 0) {
    bool inputs = node[0] >= node[1];
    fprintf(stderr,
            PROG ": %s %g: the run needs about %.3g GB of memory on this node, %.3g GB are "
                 "available\n",
            inputs ? "--bytes-per-rank" : "--tasks-per-rank",
            inputs ? o->prm.bytes_per_rank : o->prm.tasks_per_rank, (node[0] + node[1]) / 1e9,
            avail / 1e9);
  }
  return !any;
}

/* The most negative of every rank's code: BAL_OK on every rank only if all
 * of them succeeded (collective over MPI_COMM_WORLD). */
static int agree(int rc) {
  int all = rc;
  MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all;
}

/* One iteration on the balancer c->s: add this rank's tasks, run, check
 * every result. The sharing baseline's estimate is prev_work, the measured
 * work of this rank's own tasks in the previous iteration (what YALES2
 * forms its groups from, [Fontenaille 2018] §5.2), or with no previous iteration
 * (prev_work < 0) their true work, blurred by --estimate-error as a
 * prediction is. *own_work gets this iteration's measured work of them;
 * rank 0 gets the reduced figures in *out and, if `final` (the same on
 * every rank), the work done per rank in work_at_out[p]. */
static int run_iteration(const opts *o, int iter, double prev_work, int rank, int p,
                         const long long *counts, ctx *c, iter_out *out, double *own_work,
                         bool final, double *work_at_out) {
  size_t len = dlb_input_len(&o->prm);
  unsigned char *buf = malloc(len);
  long long mine = counts[rank];
  uint64_t first = dlb_first_gid(counts, rank);
  uint64_t *sum = malloc((size_t)(mine ? mine : 1) * sizeof *sum);
  int rc = BAL_OK;
  if (!buf || !sum) rc = BAL_ENOMEM;
  double true_work = 0;
  for (long long i = 0; rc == BAL_OK && i < mine; i++) {
    dlb_task_hdr h;
    sum[i] = dlb_make_input(&o->prm, iter, first + (uint64_t)i, buf, len);
    memcpy(&h, buf, sizeof h);
    true_work += h.seconds;
    rc = bal_steal_add_task(c->s, buf, len, NULL);
  }
  free(buf);
  double estimate =
      prev_work >= 0 ? prev_work
                     : true_work * (1.0 + o->estimate_error *
                                              (2.0 * dlb_unit(o->prm.seed, (uint64_t)rank) - 1.0));
  if (rc == BAL_OK) rc = bal_steal_set_estimate(c->s, estimate);
  /* Every rank learns whether all could build their tasks, so that a rank
   * out of memory ends the run with a message instead of leaving the
   * others waiting in bal_steal_run(). */
  if (rc != BAL_OK)
    fprintf(stderr, PROG ": rank %d: cannot build its %lld tasks of %zu input bytes (%s): "
                    "lower --tasks-per-rank or --bytes-per-rank\n",
            rank, mine, len, bal_strerror(rc));
  rc = agree(rc);
  if (rc != BAL_OK) {
    free(sum);
    return rc;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  rc = bal_steal_run(c->s, task, sizeof(dlb_result), c);
  double res = MPI_Wtime() - t0;
  if (rc != BAL_OK) {
    fprintf(stderr, PROG ": rank %d: bal_steal_run: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long long bad = 0;
  double work = 0;
  /* Work done per executing rank: only the last iteration's is plotted. */
  double *work_at = final ? calloc((size_t)p, sizeof *work_at) : NULL;
  if (agree(final && !work_at ? BAL_ENOMEM : BAL_OK) != BAL_OK) {
    if (final && !work_at) fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
    free(work_at);
    free(sum);
    return BAL_ENOMEM;
  }
  for (long long i = 0; i < mine; i++) {
    const void *d;
    size_t l;
    int st;
    dlb_result r;
    if (bal_steal_result(c->s, i, &d, &l, &st) != BAL_OK || st != 0 || l != sizeof r) {
      bad++;
      continue;
    }
    memcpy(&r, d, sizeof r);
    if (r.gid != first + (uint64_t)i || r.checksum != sum[i] || r.rank < 0 || r.rank >= p) {
      bad++;
      continue;
    }
    work += r.seconds;
    if (work_at) work_at[r.rank] += r.seconds;
  }
  free(sum);
  *own_work = work;
  bal_steal_stats st;
  bal_steal_stats_get(c->s, &st);
  int64_t ll_in[9] = {bad, st.steal_attempts, st.thefts, st.tasks_given, st.messages_sent,
                        (int64_t)st.bytes_sent, st.results_routed, st.executed_own + st.executed_stolen,
                        st.route_messages};
  int64_t ll_sum[9];
  MPI_Reduce(ll_in, ll_sum, 9, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  double d_in[2] = {work, st.idle_s}, d_sum[2];
  MPI_Reduce(d_in, d_sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  double res_max = 0;
  MPI_Reduce(&res, &res_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int i_in[2] = {st.peers_contacted, st.overlay_degree}, i_max[2];
  MPI_Reduce(i_in, i_max, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (final) MPI_Reduce(work_at, work_at_out, p, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  free(work_at);
  if (rank == 0)
    *out = (iter_out){.work_s = d_sum[0],
                      .resolution_s = res_max,
                      .idle_s = d_sum[1],
                      .results_bad = ll_sum[0],
                      .attempts = ll_sum[1],
                      .thefts = ll_sum[2],
                      .given = ll_sum[3],
                      .messages = ll_sum[4],
                      .bytes = ll_sum[5],
                      .routed = ll_sum[6],
                      .executions = ll_sum[7],
                      .route_msgs = ll_sum[8],
                      .peers_max = i_max[0],
                      .degree_max = i_max[1]};
  return BAL_OK;
}

/* Parallel efficiency: work / (P * resolution time); NaN (undefined, not
 * 0) with no task to measure. */
static double efficiency(long long tasks, double work_s, int p, double resolution_s) {
  if (tasks == 0) return NAN;
  return resolution_s > 0 ? work_s / (p * resolution_s) : 0;
}

static void iter_add(iter_out *to, const iter_out *x) {
  to->work_s += x->work_s;
  to->resolution_s += x->resolution_s;
  to->idle_s += x->idle_s;
  to->attempts += x->attempts;
  to->thefts += x->thefts;
  to->given += x->given;
  to->messages += x->messages;
  to->bytes += x->bytes;
  to->routed += x->routed;
  to->route_msgs += x->route_msgs;
  if (x->peers_max > to->peers_max) to->peers_max = x->peers_max;
  if (x->degree_max > to->degree_max) to->degree_max = x->degree_max;
}

/* Run every iteration of policy pol on one balancer; tasks is the number
 * of tasks of one iteration. */
static int run_policy(const opts *o, const char *pol, bool tracing, int rank, int p,
                      long long tasks, run_out *out, ctx *c) {
  bal_steal_config cfg;
  bal_steal_config_init(&cfg);
  cfg.policy = pol;
  cfg.overlay_degree = o->degree;
  cfg.steal_fraction = o->steal_fraction;
  cfg.poll_interval_s = o->poll_interval;
  cfg.backoff_max_s = o->backoff_max;
  cfg.sharing_group_size = o->group_size;
  cfg.seed = o->prm.seed;
  cfg.overlay_seed = o->prm.seed;
  cfg.progress = o->mode == MODE_SIMULATED ? BAL_STEAL_PROGRESS_POLL : BAL_STEAL_PROGRESS_AUTO;
  c->nev = 0;
  c->lost = 0;
  c->tracing = tracing;
  if (tracing) {
    cfg.trace = on_event;
    cfg.trace_arg = c;
  }
  int rc = bal_steal_create(MPI_COMM_WORLD, &cfg, &c->s);
  if (rc != BAL_OK) {
    /* Collective: the other ranks may be waiting in it. */
    fprintf(stderr, PROG ": rank %d: bal_steal_create: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int k_n = o->iterations, first_measured = k_n > 1 ? 1 : 0;
  long long *counts = malloc((size_t)p * sizeof *counts);
  double *work_at = rank == 0 ? calloc((size_t)p, sizeof *work_at) : NULL;
  if (rank == 0) {
    out->iter_efficiency = calloc((size_t)k_n, sizeof *out->iter_efficiency);
    out->iter_resolution = calloc((size_t)k_n, sizeof *out->iter_resolution);
  }
  bool short_of_memory =
      !counts || (rank == 0 && (!work_at || !out->iter_efficiency || !out->iter_resolution));
  if (short_of_memory) fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
  if (agree(short_of_memory ? BAL_ENOMEM : BAL_OK) != BAL_OK) {
    free(counts);
    free(work_at);
    bal_steal_destroy(c->s);
    c->s = NULL;
    return BAL_ENOMEM;
  }
  memset(&out->sum, 0, sizeof out->sum);
  out->policy = pol;
  double prev_work = -1; /* none before the first iteration */
  for (int k = 0; k < k_n; k++) {
    dlb_counts(&o->prm, p, k, counts);
    iter_out it;
    double own_work = 0;
    rc = run_iteration(o, k, prev_work, rank, p, counts, c, &it, &own_work, k == k_n - 1,
                       work_at);
    if (rc != BAL_OK) break;
    prev_work = own_work;
    if (rank == 0) {
      out->sum.results_bad += it.results_bad; /* every iteration, warm-up included */
      out->sum.executions += it.executions;
      out->iter_resolution[k] = it.resolution_s;
      out->iter_efficiency[k] = efficiency(tasks, it.work_s, p, it.resolution_s);
      if (k >= first_measured) iter_add(&out->sum, &it);
    }
  }
  free(counts);
  if (rc != BAL_OK) {
    free(work_at);
    return rc;
  }
  if (rank == 0) {
    out->efficiency = efficiency(tasks, out->sum.work_s, p, out->sum.resolution_s);
    out->ok = out->sum.results_bad == 0 && out->sum.executions == tasks * k_n;
    out->final_work = work_at;
  }
  return BAL_OK;
}

/* Rank 0's answer to "could you allocate?", shared so that no rank enters
 * a collective that rank 0 will not join. */
static bool all_agree(int rank, bool ok_on_0) {
  int ok = rank == 0 ? ok_on_0 : 1;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

/* Gather the last run's events to rank 0 and write the trace. A trace that
 * misses events (no memory to record or gather them) is not written: it
 * would show idle time that was work. */
static bool gather_trace(const opts *o, ctx *c, int rank, int p, const char *policy) {
  const long long most = INT_MAX / 4; /* doubles per rank in one MPI_Gatherv */
  long long lost = c->lost + (c->nev > most ? c->nev - most : 0), lost_all = 0;
  int n = (int)(c->nev > most ? most : c->nev);
  MPI_Reduce(&lost, &lost_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int *counts = NULL, *displs = NULL, *rcounts = NULL, *rank_of = NULL;
  dlb_event *all = NULL;
  long long total = 0;
  bool ok = false;
  if (rank == 0) {
    counts = malloc((size_t)p * sizeof *counts);
    displs = malloc((size_t)p * sizeof *displs);
    rcounts = malloc((size_t)p * sizeof *rcounts);
  }
  if (!all_agree(rank, counts && displs && rcounts)) goto out;
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < p; r++) {
      displs[r] = (int)(total * 4);
      rcounts[r] = counts[r] * 4;
      total += counts[r];
    }
    all = malloc((size_t)(total ? total : 1) * sizeof *all);
    rank_of = malloc((size_t)(total ? total : 1) * sizeof *rank_of);
  }
  if (!all_agree(rank, all && rank_of)) goto out;
  if (rank == 0) {
    long long k = 0;
    for (int r = 0; r < p; r++)
      for (int i = 0; i < counts[r]; i++) rank_of[k++] = r;
  }
  MPI_Gatherv(c->ev, n * 4, MPI_DOUBLE, all, rcounts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ok = true;
out:
  if (rank == 0) {
    if (!ok || lost_all) {
      fprintf(stderr, PROG ": --trace %s: out of memory, %lld events not recorded; no trace written\n",
              o->trace, lost_all);
      ok = false;
    } else {
      ok = dlb_write_trace(o->trace, all, rank_of, total, p, policy);
    }
  }
  free(counts);
  free(displs);
  free(rcounts);
  free(all);
  free(rank_of);
  return ok;
}

static void print_json(const opts *o, int p, long long tasks, const run_out *runs, int nruns,
                       bool ok) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  const run_out *last = &runs[nruns - 1];
  json_double(&j, "efficiency", last->efficiency);
  json_double(&j, "resolution_s", last->sum.resolution_s);
  json_int(&j, "ranks", p);
  json_string(&j, "policy", o->policy_arg);
  json_int(&j, "tasks", tasks);
  json_bool(&j, "results_ok", ok);
  json_int(&j, "steal_attempts", last->sum.attempts);
  json_int(&j, "thefts", last->sum.thefts);
  json_int(&j, "peers_max", last->sum.peers_max);
  json_int(&j, "iterations", o->iterations);
  json_double(&j, "drift", o->prm.drift);
  json_double(&j, "work_per_rank", o->prm.work_per_rank);
  json_double(&j, "tasks_per_rank", o->prm.tasks_per_rank);
  json_double(&j, "bytes_per_rank", o->prm.bytes_per_rank);
  json_int(&j, "task_input_bytes", (int64_t)dlb_input_len(&o->prm));
  json_double(&j, "spread", o->prm.spread);
  json_string(&j, "distribution", dlb_dist_name(o->prm.dist));
  json_string(&j, "work_mode", mode_names[o->mode]);
  json_double(&j, "slice", o->slice);
  json_double(&j, "poll_interval", o->poll_interval);
  json_int(&j, "degree", o->degree);
  json_double(&j, "steal_fraction", o->steal_fraction);
  json_double(&j, "backoff_max", o->backoff_max);
  json_int(&j, "group_size", o->group_size);
  json_double(&j, "estimate_error", o->estimate_error);
  json_uint(&j, "seed", o->prm.seed);
  json_string(&j, "trace", o->trace);
  json_string(&j, "plot", o->plot);
  json_array_begin(&j, "runs");
  for (int k = 0; k < nruns; k++) {
    const run_out *r = &runs[k];
    json_object_begin(&j, NULL);
    json_string(&j, "policy", r->policy);
    const iter_out *t = &r->sum;
    json_double(&j, "efficiency", r->efficiency);
    json_double(&j, "resolution_s", t->resolution_s);
    json_double(&j, "work_s", t->work_s);
    json_double(&j, "idle_mean_s", t->idle_s / p);
    json_bool(&j, "results_ok", r->ok);
    json_int(&j, "results_bad", t->results_bad);
    json_int(&j, "executions", t->executions);
    json_int(&j, "steal_attempts", t->attempts);
    json_int(&j, "thefts", t->thefts);
    json_int(&j, "tasks_moved", t->given);
    json_int(&j, "results_routed", t->routed);
    json_int(&j, "result_messages", t->route_msgs);
    json_int(&j, "messages", t->messages);
    json_int(&j, "bytes_moved", t->bytes);
    json_int(&j, "peers_max", t->peers_max);
    json_int(&j, "overlay_degree_max", t->degree_max);
    json_array_begin(&j, "iterations");
    for (int i = 0; i < o->iterations; i++) {
      json_object_begin(&j, NULL);
      json_double(&j, "efficiency", r->iter_efficiency[i]);
      json_double(&j, "resolution_s", r->iter_resolution[i]);
      json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
  }
  json_array_end(&j);
  json_object_end(&j);
  json_finish(&j);
}

static void print_table(const opts *o, int p, long long tasks, const run_out *runs, int nruns) {
  printf("DLB_Bench: %d ranks, %lld tasks, %s distribution, %.3g s work/rank, %s mode, seed %llu\n",
         p, tasks, dlb_dist_name(o->prm.dist), o->prm.work_per_rank, mode_names[o->mode],
         (unsigned long long)o->prm.seed);
  if (o->iterations > 1)
    printf("%d iterations, drift %.3g per iteration; totals over iterations 2..%d\n",
           o->iterations, o->prm.drift, o->iterations);
  printf("%-11s %10s %12s %9s %9s %9s %11s %10s %10s %8s\n", "policy", "efficiency",
         "resolution_s", "work_s", "attempts", "thefts", "tasks_moved", "peers_max", "messages",
         "results");
  for (int k = 0; k < nruns; k++) {
    const run_out *r = &runs[k];
    char eff[32];
    if (isfinite(r->efficiency))
      snprintf(eff, sizeof eff, "%.3f", r->efficiency);
    else
      snprintf(eff, sizeof eff, "n/a");
    printf("%-11s %10s %12.3f %9.2f %9lld %9lld %11lld %10d %10lld %8s\n", r->policy, eff,
           r->sum.resolution_s, r->sum.work_s, r->sum.attempts, r->sum.thefts, r->sum.given, r->sum.peers_max, r->sum.messages,
           r->ok ? "ok" : "WRONG");
  }
}

int main(int argc, char **argv) {
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE || o.check_flags) return prc == CLI_CONTINUE ? 0 : prc;
  if (o.ranks > 0 && !under_mpirun())
    return launch_mpiexec(PROG, BALLAST_MPIEXEC, BALLAST_MPIEXEC_OVERSUBSCRIBE, argc, argv, o.ranks);

  int provided, rank, p;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (o.ranks > 0 && o.ranks != p) {
    if (rank == 0) fprintf(stderr, PROG ": --ranks %lld but running on %d ranks\n", o.ranks, p);
    MPI_Finalize();
    return 2;
  }
  /* The last iteration's distribution: the plot's "initial" work. Every
   * iteration has the same number of tasks. */
  int last_iter = o.iterations - 1;
  long long *counts = malloc((size_t)p * sizeof *counts);
  dlb_counts(&o.prm, p, last_iter, counts);
  long long tasks = 0;
  for (int r = 0; r < p; r++) tasks += counts[r];
  if (!memory_fits(&o, rank, p, counts)) {
    free(counts);
    MPI_Finalize();
    return 1;
  }
  if (tasks == 0 && rank == 0)
    fprintf(stderr, PROG ": warning: no tasks to run (--tasks-per-rank %g on %d ranks): "
                    "efficiency is undefined (n/a)\n",
            o.prm.tasks_per_rank, p);

  ctx c = {.mode = o.mode, .slice = o.slice, .rank = rank};
  pthread_mutex_init(&c.mu, NULL);
  run_out runs[DLB_MAX_POLICIES];
  memset(runs, 0, sizeof runs);
  bool ok = true;
  for (int k = 0; k < o.npolicies; k++) {
    bool last = k == o.npolicies - 1;
    if (run_policy(&o, o.policies[k], last && o.trace, rank, p, tasks, &runs[k], &c) != BAL_OK) {
      /* Every rank failed together (the cause is on stderr). */
      bal_steal_destroy(c.s);
      for (int j = 0; j <= k; j++) {
        free(runs[j].final_work);
        free(runs[j].iter_efficiency);
        free(runs[j].iter_resolution);
      }
      free(counts);
      free(c.ev);
      MPI_Finalize();
      return 1;
    }
    if (last && o.trace && !gather_trace(&o, &c, rank, p, o.policies[k])) ok = false;
    bal_steal_destroy(c.s);
    c.s = NULL;
    if (rank == 0 && !runs[k].ok) {
      fprintf(stderr,
              PROG ": policy %s: RESULTS WRONG: %lld missing or wrong results, %lld executions "
                   "for %lld tasks\n",
              o.policies[k], runs[k].sum.results_bad,
              runs[k].sum.executions, tasks * o.iterations);
      ok = false;
    }
  }
  if (rank == 0) {
    if (o.plot) {
      double *initial = calloc((size_t)p, sizeof *initial);
      size_t len = dlb_input_len(&o.prm);
      unsigned char *buf = malloc(len);
      uint64_t g = 0;
      for (int r = 0; r < p; r++)
        for (long long i = 0; i < counts[r]; i++, g++) {
          dlb_make_input(&o.prm, last_iter, g, buf, len);
          dlb_task_hdr h;
          memcpy(&h, buf, sizeof h);
          initial[r] += h.seconds;
        }
      free(buf);
      const double *series[DLB_MAX_POLICIES];
      const char *names[DLB_MAX_POLICIES];
      for (int k = 0; k < o.npolicies; k++) {
        series[k] = runs[k].final_work;
        names[k] = runs[k].policy;
      }
      if (!dlb_write_plot(o.plot, p, initial, o.npolicies, series, names)) ok = false;
      free(initial);
    }
    bool results_ok = true;
    for (int k = 0; k < o.npolicies; k++) results_ok = results_ok && runs[k].ok;
    if (o.json)
      print_json(&o, p, tasks, runs, o.npolicies, results_ok);
    else {
      print_table(&o, p, tasks, runs, o.npolicies);
      if (o.plot) printf("work distribution plot: %s\n", o.plot);
      if (o.trace) printf("timeline (Chrome trace, open in https://ui.perfetto.dev): %s\n", o.trace);
    }
    for (int k = 0; k < o.npolicies; k++) {
      free(runs[k].final_work);
      free(runs[k].iter_efficiency);
      free(runs[k].iter_resolution);
    }
  }
  free(counts);
  free(c.ev);
  int okv = ok, all_ok = 1;
  MPI_Allreduce(&okv, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
