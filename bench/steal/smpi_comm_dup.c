/* What SMPI's collective settings cost the simulator (docs/BENCHMARKS.md,
 * "Cost of the simulation"): one MPI_Comm_dup -- the balancer dups its
 * communicator for every run -- then the collectives DLB_Bench calls (a
 * reduction of P doubles, an allgather, an allreduce, a barrier, a gather).
 * Rank 0 prints the simulated time of each; the simulation's wall time is
 * what the settings cost. Build with smpicc, run with smpirun (see
 * bench/steal/smpi-collectives.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double t0 = MPI_Wtime();
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  double t1 = MPI_Wtime();
  double *in = calloc((size_t)p, sizeof *in), *out = calloc((size_t)p, sizeof *out);
  double mine[2] = {1, 2}, *all = malloc(2 * sizeof(double) * (size_t)p);
  int *counts = malloc(sizeof(int) * (size_t)p), one = 1, land = 0;
  if (!in || !out || !all || !counts) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Reduce(in, out, p, MPI_DOUBLE, MPI_SUM, 0, dup);
  MPI_Allgather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, dup);
  MPI_Allreduce(&one, &land, 1, MPI_INT, MPI_LAND, dup);
  MPI_Barrier(dup);
  MPI_Gather(&one, 1, MPI_INT, counts, 1, MPI_INT, 0, dup);
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
