/* ballast-dlb-bench's runs: the tasks (spin, sleep or simulated work),
 * one iteration on a balancer (build the tasks, bal_steal_run(), check
 * every result, reduce the figures to rank 0), every iteration of one
 * policy, and the memory check before any of it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "common/launch.h"
#ifdef BALLAST_SMPI
#include <xbt/config.h> /* sg_cfg_get_double */
#endif
#include "dlb.h"

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

#ifdef BALLAST_SMPI
/* Memory mappings the bulk of p simulated ranks adds: SimGrid maps the
 * transport's shared bulk buffer (16 MiB, src/steal/transport.c) in blocks
 * of smpi/shared-malloc-blocksize once per rank at its first bulk transfer
 * -- 1 MiB by default, 16 mappings per rank: 57,296 of the 64,642 mappings
 * of a 3,584-rank run with 30 MB per rank, the rest its stacks --, one
 * with the 16 MiB blocks `ballast simulate-dlb` sets, and aborts past
 * vm.max_map_count. (The launcher checks the same before it starts
 * smpirun; this covers smpirun run by hand.) Called on rank 0 (all ranks
 * are threads of this process): true, with what is needed and allowed,
 * when the run would not fit. */
static bool bulk_maps_short(int p, long long *need, long long *limit) {
  *limit = launch_max_map_count();
  bool known = *limit > 0;
  double block = sg_cfg_get_double("smpi/shared-malloc-blocksize");
  long long per_rank = block >= 1 ? (long long)ceil((double)(1 << 24) / block) : 16;
  long long now = 0;
  FILE *m = known ? fopen("/proc/self/maps", "r") : NULL;
  for (int c; m && (c = fgetc(m)) != EOF;) now += c == '\n';
  if (m) fclose(m);
  *need = now + per_rank * p;
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
bool dlb_memory_fits(const opts *o, int rank, int p, long long mine, long long tasks) {
  double len = (double)dlb_input_len(&o->prm), kept = len;
#ifdef BALLAST_SMPI
  if (kept > BALLAST_SMPI_TASK_BYTES_KEPT) kept = BALLAST_SMPI_TASK_BYTES_KEPT;
  double mine_tasks = (double)tasks; /* the whole run */
  (void)mine;
  double ranks_here = p;
#else
  (void)p;
  (void)rank;
  (void)tasks;
  double mine_tasks = (double)mine, ranks_here = 1;
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
  double avail = launch_mem_available();
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

bool dlb_share_of(const dlb_params *prm, int rank, int p, int iter, long long *mine,
                  uint64_t *first, long long *tasks) {
  /* Rank 0 computes the distribution once and sends each rank its share:
   * computed on every rank it cost O(p log p) each, minutes of a
   * 14,336-rank simulation (docs/BENCHMARKS.md, "steal at scale"). */
  long long *pairs = NULL, total = -1, mine_pair[2] = {0, 0};
  if (rank == 0) {
    long long *counts = malloc((size_t)p * sizeof *counts);
    pairs = malloc((size_t)p * 2 * sizeof *pairs);
    if (counts && pairs) {
      dlb_counts(prm, p, iter, counts);
      total = 0;
      for (int r = 0; r < p; r++) {
        pairs[2 * r] = counts[r];
        pairs[2 * r + 1] = total;
        total += counts[r];
      }
    }
    free(counts);
  }
  MPI_Bcast(&total, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (total >= 0)
    MPI_Scatter(pairs, 2, MPI_LONG_LONG, mine_pair, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  free(pairs);
  if (total < 0) return false;
  *mine = mine_pair[0];
  *first = (uint64_t)mine_pair[1];
  *tasks = total;
  return true;
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
                         long long mine, uint64_t first, ctx *c, iter_out *out, double *own_work,
                         bool final, double *work_at_out) {
  size_t len = dlb_input_len(&o->prm);
  unsigned char *buf = malloc(len);
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
  /* Work done per executing rank: only the last iteration's is plotted
   * (final is false unless --plot: p doubles on every rank, reduced). */
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
int dlb_run_policy(const opts *o, const char *pol, bool tracing, int rank, int p,
                      long long tasks, run_out *out, ctx *c) {
  bal_steal_config cfg;
  bal_steal_config_init(&cfg);
  cfg.policy = pol;
  cfg.overlay_degree = o->degree;
  cfg.steal_fraction = o->steal_fraction;
  cfg.poll_interval_s = o->poll_interval;
  cfg.idle_wait = o->idle_wait;
  cfg.lifelines = (int)o->lifelines;
  cfg.backoff_max_s = o->backoff_max;
  cfg.sharing_group_size = o->group_size;
  cfg.seed = o->prm.seed;
  cfg.overlay_seed = o->prm.seed;
  cfg.progress = o->mode == MODE_SIMULATED ? BAL_STEAL_PROGRESS_POLL : BAL_STEAL_PROGRESS_AUTO;
  c->nev = 0;
  c->lost = 0;
  c->tracing = tracing;
  if (tracing) {
    cfg.trace = dlb_on_event;
    cfg.trace_arg = c;
  }
  int rc = bal_steal_create(MPI_COMM_WORLD, &cfg, &c->s);
  if (rc != BAL_OK) {
    /* Collective: the other ranks may be waiting in it. */
    fprintf(stderr, PROG ": rank %d: bal_steal_create: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int k_n = o->iterations, first_measured = k_n > 1 ? 1 : 0;
  /* Only the plot needs the work done per rank: p doubles on every rank
   * (reduced to rank 0), too many on thousands of simulated ranks. */
  bool plotting = o->plot != NULL;
  double *work_at = rank == 0 && plotting ? calloc((size_t)p, sizeof *work_at) : NULL;
  if (rank == 0) {
    out->iter_efficiency = calloc((size_t)k_n, sizeof *out->iter_efficiency);
    out->iter_resolution = calloc((size_t)k_n, sizeof *out->iter_resolution);
  }
  bool short_of_memory =
      rank == 0 && ((plotting && !work_at) || !out->iter_efficiency || !out->iter_resolution);
  if (short_of_memory) fprintf(stderr, PROG ": rank %d: out of memory\n", rank);
  if (agree(short_of_memory ? BAL_ENOMEM : BAL_OK) != BAL_OK) {
    free(work_at);
    bal_steal_destroy(c->s);
    c->s = NULL;
    return BAL_ENOMEM;
  }
  memset(&out->sum, 0, sizeof out->sum);
  out->policy = pol;
  double prev_work = -1; /* none before the first iteration */
  for (int k = 0; k < k_n; k++) {
    /* This rank's share only, from rank 0: p simulated ranks never hold
     * or compute p counts each. */
    long long mine = 0, all_tasks = 0;
    uint64_t first = 0;
    if (!dlb_share_of(&o->prm, rank, p, k, &mine, &first, &all_tasks)) {
      if (rank == 0) fprintf(stderr, PROG ": rank 0: out of memory\n");
      rc = BAL_ENOMEM;
      break;
    }
    iter_out it;
    double own_work = 0;
    rc = run_iteration(o, k, prev_work, rank, p, mine, first, c, &it, &own_work,
                       plotting && k == k_n - 1, work_at);
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
