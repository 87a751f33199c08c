/* How long the extra workers of a POLL-mode rank wait for the progress
 * thread (docs/BENCHMARKS.md, "POLL mode with several workers"). Rank 0
 * adds one root task; every task sleeps SLEEP_US microseconds (a sleep, not
 * a spin: the figure must not depend on how busy the machine's cores are)
 * and, above depth 0, spawns two children, so a binary tree of 2^(D+1) - 1
 * tasks runs on ranks x workers threads. Prints the run time against the
 * ideal (all tasks' sleep spread evenly) and the idle time, for POLL and
 * THREAD progress.
 * Usage: mpiexec -n P bench_steal_poll_wake [WORKERS] [DEPTH] [SLEEP_US] [REPS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

typedef struct ctx {
  bal_steal *s;
  long sleep_us;
} ctx;

static int task(const void *in, size_t len, void *out, size_t cap, size_t *out_len, void *arg) {
  (void)out;
  (void)cap;
  (void)out_len;
  ctx *c = arg;
  int depth;
  if (len != sizeof depth) return 1;
  memcpy(&depth, in, sizeof depth);
  struct timespec ts = {c->sleep_us / 1000000, (c->sleep_us % 1000000) * 1000};
  nanosleep(&ts, NULL);
  if (depth > 0) {
    int child = depth - 1;
    if (bal_steal_spawn(c->s, &child, sizeof child) != BAL_OK ||
        bal_steal_spawn(c->s, &child, sizeof child) != BAL_OK)
      return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int provided, rank, p;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int workers = argc > 1 ? atoi(argv[1]) : 2, depth = argc > 2 ? atoi(argv[2]) : 10;
  long sleep_us = argc > 3 ? atol(argv[3]) : 1000;
  int reps = argc > 4 ? atoi(argv[4]) : 3;
  if (workers < 1 || depth < 0 || depth > 20 || sleep_us < 0 || reps < 1) {
    if (rank == 0) fprintf(stderr, "usage: bench_steal_poll_wake [WORKERS] [DEPTH] [SLEEP_US] [REPS]\n");
    MPI_Finalize();
    return 2;
  }
  double tasks = (double)((1L << (depth + 1)) - 1);
  double ideal = tasks * (double)sleep_us * 1e-6 / ((double)p * workers);
  const bal_steal_progress modes[2] = {BAL_STEAL_PROGRESS_POLL, BAL_STEAL_PROGRESS_THREAD};
  const char *names[2] = {"poll", "thread"};
  if (rank == 0)
    printf("%d ranks x %d workers, %.0f tasks of %ld us: ideal %.4f s\n", p, workers, tasks,
           sleep_us, ideal);
  for (int r = 0; r < reps; r++)
    for (int m = 0; m < 2; m++) { /* interleaved: the modes see the same machine */
      bal_steal_config cfg;
      bal_steal_config_init(&cfg);
      cfg.progress = modes[m];
      cfg.workers = workers;
      ctx c = {NULL, sleep_us};
      if (bal_steal_create(MPI_COMM_WORLD, &cfg, &c.s) != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
      if (rank == 0 && bal_steal_add_task(c.s, &depth, sizeof depth, NULL) != BAL_OK)
        MPI_Abort(MPI_COMM_WORLD, 1);
      MPI_Barrier(MPI_COMM_WORLD);
      double a = MPI_Wtime();
      if (bal_steal_run(c.s, task, 0, &c) != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
      double t = MPI_Wtime() - a, tmax;
      bal_steal_stats st;
      bal_steal_stats_get(c.s, &st);
      double idle = st.idle_s, idle_sum;
      MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      MPI_Reduce(&idle, &idle_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0)
        printf("%-6s run %d: %.4f s (%.3f x ideal), idle %.3f s summed over workers\n", names[m],
               r + 1, tmax, tmax / ideal, idle_sum);
      bal_steal_destroy(c.s);
    }
  MPI_Finalize();
  return 0;
}
