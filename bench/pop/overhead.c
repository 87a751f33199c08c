/* Interception cost of libballast_pop.so per MPI call (docs/BENCHMARKS.md,
 * "pop: interception overhead"). One rank; a cheap call in a loop of N
 * calls, timed through MPI_ (wrapped when the library is preloaded) and
 * through PMPI_ (never wrapped) alternately, REPS times each: the same-run
 * baseline. CALL is the call: allreduce (MPI_Allreduce of one int on
 * MPI_COMM_SELF, a blocking call; the default), iprobe (MPI_Iprobe on
 * MPI_COMM_SELF with nothing to receive) or test (MPI_Test of
 * MPI_REQUEST_NULL), the last two the polls of docs/pop.md, "Polling".
 * Prints the medians in ns per call and their difference.
 * Usage: mpiexec -n 1 [-x LD_PRELOAD=.../libballast_pop.so] bench_pop_overhead [N] [REPS] [CALL] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* n calls of `call` through MPI_ (wrapped) or PMPI_ */
static void loop(const char *call, long n, int wrapped) {
  int x = 1, s = 0, flag = 0;
  MPI_Status st;
  if (strcmp(call, "allreduce") == 0) {
    for (long i = 0; i < n; i++)
      (wrapped ? MPI_Allreduce : PMPI_Allreduce)(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  } else if (strcmp(call, "iprobe") == 0) {
    for (long i = 0; i < n; i++)
      (wrapped ? MPI_Iprobe : PMPI_Iprobe)(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &flag, &st);
  } else {
    for (long i = 0; i < n; i++) {
      MPI_Request r = MPI_REQUEST_NULL;
      (wrapped ? MPI_Test : PMPI_Test)(&r, &flag, &st);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int reps = argc > 2 ? atoi(argv[2]) : 11;
  const char *call = argc > 3 ? argv[3] : "allreduce";
  if (n < 1 || reps < 1 || reps > 1000 ||
      (strcmp(call, "allreduce") && strcmp(call, "iprobe") && strcmp(call, "test"))) {
    fprintf(stderr,
            "usage: bench_pop_overhead [N >= 1] [REPS in 1..1000] [allreduce|iprobe|test]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *wrapped = malloc((size_t)reps * sizeof *wrapped);
  double *direct = malloc((size_t)reps * sizeof *direct);
  for (int r = 0; r < reps; r++) {
    double t0 = now_ns();
    loop(call, n, 1);
    double t1 = now_ns();
    loop(call, n, 0);
    double t2 = now_ns();
    wrapped[r] = (t1 - t0) / (double)n;
    direct[r] = (t2 - t1) / (double)n;
  }
  qsort(wrapped, (size_t)reps, sizeof *wrapped, cmp);
  qsort(direct, (size_t)reps, sizeof *direct, cmp);
  double w = wrapped[reps / 2], d = direct[reps / 2];
  printf("{\"call\":\"%s\",\"calls\":%ld,\"reps\":%d,\"mpi_ns\":%.2f,\"pmpi_ns\":%.2f,"
         "\"overhead_ns\":%.2f}\n",
         call, n, reps, w, d, w - d);
  free(wrapped);
  free(direct);
  MPI_Finalize();
  return 0;
}
