/* What SMPI's collective settings cost the simulator (docs/BENCHMARKS.md,
 * "Cost of the simulation" and "Collectives that cost the simulator
 * O(P^2)"): one MPI_Comm_dup -- the balancer dups its communicator for
 * every run -- then the collectives DLB_Bench calls (a reduction of P
 * doubles, an allgather, an allreduce, a barrier, a gather). Rank 0 prints
 * the simulated time of the whole and, per collective, the host's wall
 * time the simulator spent on it: what the settings cost. Build with
 * smpicc, run with smpirun (see bench/steal/smpi-collectives.sh). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The host's clock. SMPI replaces clock_gettime() in the simulated program
 * with the simulated clock; the system call itself is not intercepted. */
static double host_now(void) {
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Ends a timed step: a barrier, so that every rank has left the
 * collective, then rank 0 prints the host time since the previous step
 * ended. The simulator runs every rank in this one thread, so that is what
 * the collective (and one barrier) cost it. */
static void step(MPI_Comm comm, int rank, const char *name, double *t) {
  MPI_Barrier(comm);
  double now = host_now();
  if (rank == 0) printf("  %-10s %8.2f s of host time\n", name, now - *t);
  *t = now;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double t0 = MPI_Wtime(), h = host_now();
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double t1 = MPI_Wtime();
  step(MPI_COMM_WORLD, rank, "comm_dup", &h);
  double *in = calloc((size_t)p, sizeof *in), *out = calloc((size_t)p, sizeof *out);
  double mine[2] = {1, 2}, *all = malloc(2 * sizeof(double) * (size_t)p);
  int *counts = malloc(sizeof(int) * (size_t)p), one = 1, land = 0;
  if (!in || !out || !all || !counts) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Reduce(in, out, p, MPI_DOUBLE, MPI_SUM, 0, dup);
  step(dup, rank, "reduce", &h);
  MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, dup);
  step(dup, rank, "allgather", &h);
  MPI_Allreduce(&one, &land, 1, MPI_INT, MPI_LAND, dup);
  step(dup, rank, "allreduce", &h);
  MPI_Barrier(dup);
  step(dup, rank, "barrier", &h);
  MPI_Gather(&one, 1, MPI_INT, counts, 1, MPI_INT, 0, dup);
  step(dup, rank, "gather", &h);
  double t2 = MPI_Wtime();
  if (rank == 0) printf("ranks %d: MPI_Comm_dup %.3g s, collectives %.3g s (simulated)\n", p, t1 - t0, t2 - t1);
  free(in);
  free(out);
  free(all);
  free(counts);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}
