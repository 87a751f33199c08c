/* ballast-dlb-bench: DLB_Bench [Fontenaille 2018] §5.1 on the steal module.
 * Each rank owns a share of independent tasks given by a distribution,
 * every task "works" for a drawn duration (spin, sleep or simulated), all
 * ranks run them with bal_steal_run(), and each owner checks every result
 * (a checksum of the input): a missing, duplicated or wrong result fails
 * the run. Reports parallel efficiency = sum of measured task times /
 * (P * max resolution time). With --ranks P and outside mpirun, it
 * relaunches itself under mpiexec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "common/cli.h"
#include "common/launch.h"
#include "dlb.h"

/* The per-rank and per-iteration figures of runs[0..n) (rank 0's; NULL on
 * the other ranks). */
static void free_runs(run_out *runs, int n) {
  for (int k = 0; k < n; k++) {
    free(runs[k].final_work);
    free(runs[k].iter_efficiency);
    free(runs[k].iter_resolution);
  }
}

int main(int argc, char **argv) {
  opts o;
  launch_mute_begin(); /* under mpirun, rank 0 alone prints a usage error */
  int prc = dlb_parse(argc, argv, &o);
  launch_mute_end();
  if (prc != CLI_CONTINUE || o.check_flags) return prc == CLI_CONTINUE ? 0 : prc;
  /* The tasks' memory is dlb_memory_fits()'s to check once the distribution
   * is known, naming the flag that asks for it. */
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
  /* The last iteration's distribution: the plot's "initial" work. Every
   * iteration has the same number of tasks. */
  int last_iter = o.iterations - 1;
  long long mine = 0, tasks = 0;
  uint64_t first = 0;
  /* Rank 0 keeps every rank's count for the plot; the others learn their
   * own share from rank 0 (dlb_share_of). */
  long long *counts = rank == 0 && o.plot ? malloc((size_t)p * sizeof *counts) : NULL;
  if (counts) dlb_counts(&o.prm, p, last_iter, counts);
  int short_of_memory = rank == 0 && o.plot && !counts, any_short = short_of_memory;
  MPI_Allreduce(&short_of_memory, &any_short, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any_short) any_short = !dlb_share_of(&o.prm, rank, p, last_iter, &mine, &first, &tasks);
  if (any_short || !dlb_memory_fits(&o, rank, p, mine, tasks)) {
    if (any_short && rank == 0) fprintf(stderr, PROG ": rank 0: out of memory\n");
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
    if (dlb_run_policy(&o, o.policies[k], last && o.trace, rank, p, tasks, &runs[k], &c) != BAL_OK) {
      /* Every rank failed together (the cause is on stderr). */
      bal_steal_destroy(c.s);
      free_runs(runs, k + 1);
      free(counts);
      free(c.ev);
      MPI_Finalize();
      return 1;
    }
    if (last && o.trace && !dlb_gather_trace(&o, &c, rank, p, o.policies[k])) ok = false;
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
    if (o.plot && !dlb_plot(&o, p, last_iter, counts, runs)) ok = false;
    bool results_ok = true;
    for (int k = 0; k < o.npolicies; k++) results_ok = results_ok && runs[k].ok;
    if (o.json)
      dlb_print_json(&o, p, tasks, runs, o.npolicies, results_ok);
    else {
      dlb_print_table(&o, p, tasks, runs, o.npolicies);
      if (o.plot) printf("work distribution plot: %s\n", o.plot);
      if (o.trace) printf("timeline (Chrome trace, open in https://ui.perfetto.dev): %s\n", o.trace);
    }
  }
  free_runs(runs, o.npolicies);
  free(counts);
  free(c.ev);
  int okv = ok, all_ok = 1;
  MPI_Allreduce(&okv, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
