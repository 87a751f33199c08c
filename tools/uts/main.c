/* ballast-uts: the Unbalanced Tree Search benchmark [Olivier 2006] on the
 * steal module. Rank 0 adds the root as its one task; a task searches its
 * nodes depth first with a private stack and, whenever its rank has fewer
 * than two tasks waiting (bal_steal_queued()), spawns the bottom half of
 * that stack (the nodes nearest the root, the largest subtrees) as a new
 * task, which the rank's other workers or a thief take: splitting on demand
 * as in lazy binary splitting [Tzannes 2010], so that a busy machine pays
 * for almost no task it does not need. Counts are summed per rank and
 * reduced at the end (the tasks' results are empty, so nothing travels
 * back). Rank 0 first searches the tree sequentially with the same code (the
 * baseline of the efficiency figure). With --ranks P and outside mpirun it
 * relaunches itself under mpiexec.
 *
 * Built by smpicc with BALLAST_SMPI defined (uts-smpi, run by `ballast
 * simulate-uts`), the SHA-1 still shapes the tree but a node's work is a
 * simulated cost (--node-cost): a task sleeps, in simulated time, for the
 * nodes it searched at every check, with a check every --slice of
 * simulated work, and polls then. SimGrid does not count the CPU time of
 * the code between MPI calls, so the sequential rate is 1 / node cost by
 * construction; rank 0 still searches the tree sequentially to check the
 * parallel counts (and, by default, to size the node cost). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "common/cli.h"
#include "common/launch.h"
#include "uts.h"

int main(int argc, char **argv) {
  opts o;
  launch_mute_begin(); /* under mpirun, rank 0 alone prints a usage error */
  int prc = uts_parse(argc, argv, &o);
  launch_mute_end();
  if (prc != CLI_CONTINUE || o.check_flags) return prc == CLI_CONTINUE ? 0 : prc;
  /* Open MPI binds each rank to one core by default when there are few
   * ranks, which would put all of a rank's workers on that core. */
  if (o.workers > 1 && o.ranks > 0 && !launch_under_mpirun())
    setenv("OMPI_MCA_hwloc_base_binding_policy", "none", 0);
  const launch_job job = {PROG, BALLAST_MPIEXEC, BALLAST_MPIEXEC_OVERSUBSCRIBE};
  int lrc = launch_ranks(&job, argc, argv, o.ranks);
  if (lrc != LAUNCH_HERE) return lrc;

  int provided, rank, p;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (launch_check_size(PROG, o.ranks, p, rank)) {
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  seq_out seq;
  memset(&seq, 0, sizeof seq);
  bool have_seq = o.baseline_nodes != 0;
  if (rank == 0 && have_seq && uts_sequential(&o, &seq) != 0) status = 1;
  uts_quiet_barrier(); /* the other ranks sleep through the baseline */
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int too_big = seq.too_big;
  MPI_Bcast(&too_big, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status == 0 && too_big) {
    if (rank == 0)
      fprintf(stderr, PROG ": the tree has more than %lld nodes (--max-nodes %lld): stopped\n",
              (long long)o.max_nodes, (long long)o.max_nodes);
    MPI_Finalize();
    return 1;
  }
  if (status != 0) {
    if (rank == 0) fprintf(stderr, PROG ": out of memory in the sequential search\n");
    MPI_Finalize();
    return 1;
  }
  run_ctx c = {.o = &o, .every = CHECK_EVERY, .poll_every = POLL_EVERY};
#ifdef BALLAST_SMPI
  /* The node cost (rank 0 knows the tree's size), a check every slice of
   * simulated work and a poll at every check; the sequential search ran
   * in no simulated time, so its time is what its nodes cost. */
  c.node_cost = o.node_cost > 0 ? o.node_cost
                                : o.work_per_rank * (double)p / (double)(seq.cnt.nodes ? seq.cnt.nodes : 1);
  MPI_Bcast(&c.node_cost, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* Time constants not given follow the node cost. A check every 3 nodes,
   * but no more often than every 0.1 ms of work: each check is a simulated
   * sleep and a poll, the simulation's main cost. A stolen subtree of a
   * binomial tree is a few dozen nodes, so what a theft waits for counts
   * many times over: a thief polls for its answer ten times per slice and
   * retries within a slice (T3L on 448 ranks: 0.78 efficiency with the
   * poll at one slice and the back-off at 2.5, 0.91 with these;
   * docs/BENCHMARKS.md). */
  if (o.slice == 0) o.slice = fmax(3 * c.node_cost, 1e-4);
  /* Derived defaults stay inside bal_steal_config's limits: a small tree
   * on many ranks makes a node cost seconds, and the derived values would
   * be refused. */
  if (o.poll_interval == 0) o.poll_interval = fmin(o.slice / 10, BAL_STEAL_MAX_POLL_INTERVAL_S);
  if (o.backoff_max == 0) o.backoff_max = fmin(o.slice, BAL_STEAL_MAX_BACKOFF_S);
  c.every = llround(o.slice / c.node_cost);
  if (c.every < 1) c.every = 1;
  c.poll_every = 1;
  seq.time_s = c.node_cost * (double)seq.cnt.nodes;
#endif

  bal_steal_config cfg;
  bal_steal_config_init(&cfg);
  cfg.policy = o.policy;
  cfg.progress = o.progress == 0 ? BAL_STEAL_PROGRESS_POLL : BAL_STEAL_PROGRESS_THREAD;
  cfg.idle_wait = o.idle_wait;
  cfg.lifelines = (int)o.lifelines;
  cfg.workers = (int)o.workers;
  cfg.seed = o.seed;
  cfg.steal_fraction = o.steal_fraction;
  if (o.poll_interval > 0) cfg.poll_interval_s = o.poll_interval;
  if (o.backoff_max > 0) cfg.backoff_max_s = o.backoff_max;
  o.poll_interval = cfg.poll_interval_s; /* as reported by --json */
  o.backoff_max = cfg.backoff_max_s;
  pthread_mutex_init(&c.mu, NULL);
  int rc = bal_steal_create(MPI_COMM_WORLD, &cfg, &c.s);
  if (rc != BAL_OK) {
    if (rank == 0) fprintf(stderr, PROG ": bal_steal_create: %s\n", bal_strerror(rc));
    MPI_Finalize();
    return 1;
  }
  uts_node root;
  uts_root(&o.prm, &root);
  if (rank == 0 && (rc = bal_steal_add_task(c.s, &root, sizeof root, NULL)) != BAL_OK) {
    fprintf(stderr, PROG ": bal_steal_add_task: %s\n", bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  uts_quiet_barrier();
  double a = MPI_Wtime();
  rc = bal_steal_run(c.s, uts_task, 0, &c);
  double b = MPI_Wtime();
  if (rc != BAL_OK) {
    fprintf(stderr, PROG ": rank %d: bal_steal_run: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int st0 = 0;
  const void *d;
  size_t len;
  if (rank == 0 && bal_steal_result(c.s, 0, &d, &len, &st0) == BAL_OK && st0 != 0) status = 1;
  bal_steal_stats ss;
  bal_steal_stats_get(c.s, &ss);
  int64_t mine[13] = {c.total.nodes, c.total.leaves, ss.spawned, ss.steal_attempts, ss.thefts,
                      ss.tasks_given, ss.results_routed, ss.messages_sent, ss.executed_stolen,
                      ss.term_waves, c.splits, atomic_load(&c.stop) ? 1 : 0,
                      atomic_load(&c.oom) ? 1 : 0};
  int64_t sum[13];
  MPI_Reduce(mine, sum, 13, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int64_t depth = c.total.max_depth, maxd = 0;
  MPI_Reduce(&depth, &maxd, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  double tm = b - a, tmax = 0, ws[2] = {ss.work_s, ss.idle_s}, wsum[2];
  MPI_Reduce(&tm, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double last = c.last_end > 0 ? c.last_end - a : 0, lastmax = 0;
  MPI_Reduce(&last, &lastmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(ws, wsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  bal_steal_destroy(c.s);
  if (rank == 0) {
    sums t = {sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9],
              sum[10], sum[11], maxd, tmax, wsum[0], wsum[1], lastmax, c.node_cost, c.every};
    if (t.stopped) {
      fprintf(stderr, PROG ": the tree has more than %lld nodes (--max-nodes %lld): stopped\n",
              (long long)o.max_nodes, (long long)o.max_nodes);
      status = 1;
    } else if (status || sum[12]) {
      fprintf(stderr, PROG ": a task ran out of memory\n");
      status = 1;
    } else if (have_seq && seq.complete &&
               (seq.cnt.nodes != t.nodes || seq.cnt.leaves != t.leaves ||
                seq.cnt.max_depth != t.max_depth)) {
      fprintf(stderr, PROG ": the parallel count differs from the sequential one\n");
      status = 1;
    } else {
      double eff = NAN;
      if (have_seq && seq.cnt.nodes > 0 && seq.time_s > 0)
        eff = ((double)t.nodes / t.time_s) /
              ((double)p * (double)o.workers * ((double)seq.cnt.nodes / seq.time_s));
      if (o.json)
        uts_print_json(&o, p, &seq, have_seq, &t, eff);
      else
        uts_print_table(&o, p, &seq, have_seq, &t, eff);
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  pthread_mutex_destroy(&c.mu);
  MPI_Finalize();
  return status;
}
