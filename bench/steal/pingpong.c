/* bench_mpi_pingpong: the latency and bandwidth of this machine's MPI
 * between two ranks, to calibrate `ballast simulate-dlb` (--intra-latency,
 * --intra-bandwidth) against a real run here. Latency: half the round trip
 * of an 8-byte message; bandwidth: bytes / (half round trip - latency) for
 * a large message. Median of repetitions. Run with 2 ranks:
 *   mpiexec -n 2 build/bench/bench_mpi_pingpong [BYTES] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median half round trip of n bytes over reps repetitions. */
static double half_rtt(int rank, char *buf, int n, int reps) {
  double *t = malloc((size_t)reps * sizeof *t);
  for (int i = -3; i < reps; i++) { /* 3 warm-up rounds */
    MPI_Barrier(MPI_COMM_WORLD);
    double a = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (i >= 0) t[i] = (MPI_Wtime() - a) / 2;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  double m = t[reps / 2];
  free(t);
  return m;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int big = argc > 1 ? atoi(argv[1]) : 1 << 24;
  if (p != 2 || big < 1024) {
    if (rank == 0) fprintf(stderr, "bench_mpi_pingpong: run on 2 ranks; BYTES >= 1024\n");
    MPI_Finalize();
    return 2;
  }
  char *buf = calloc((size_t)big, 1);
  double lat = half_rtt(rank, buf, 8, 1001);
  double t_big = half_rtt(rank, buf, big, 51);
  double bw = big / (t_big > lat ? t_big - lat : t_big);
  if (rank == 0)
    printf("{\"latency_s\": %.3e, \"bandwidth_Bps\": %.3e, \"bytes\": %d}\n", lat, bw, big);
  free(buf);
  MPI_Finalize();
  return 0;
}
