/* The C twin of examples/fortran/heat_rows.f90: a 2-D heat equation
 * (explicit Jacobi steps) on NY x NX cells whose rows are distributed over
 * the MPI ranks and rebalanced by bal_rebalance through pack/unpack/remove
 * callbacks; rank 0 is made slow on purpose (a busy wait per row), so rows
 * leave it. Same grid, initial values, iterations, arithmetic and checksum
 * as the Fortran program: both print the checksum's bits, which depend
 * neither on the language nor on the number of ranks nor on balancing
 * (tests/fortran/heat_twin.sh compares them).
 *
 * Build (installed Ballast): mpicc heat_rows.c $(pkg-config --cflags --libs ballast)
 * Run:                       mpiexec -n 4 ./heat_rows [--no-balance]  */
#include <ballast/ballast.h>
#include <ballast/rebalance.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 64, NY = 96, ITERS = 300 };
static const double alpha = 0.1;
static const double slow_s = 50.0e-6; /* rank 0's extra time per row */

/* This rank's rows 1..n, with halo rows 0 and n+1: row i is u[i*NX ..]. */
struct domain {
  double *u;
  int64_t n;
};

/* Replace the rows by m rows from `rows` (m * NX doubles), empty halos. */
static int set_rows(struct domain *d, const double *rows, int64_t m) {
  double *v = calloc((size_t)(m + 2) * NX, sizeof *v);
  if (!v) return 1;
  if (m > 0) memcpy(v + NX, rows, (size_t)m * NX * sizeof *v);
  free(d->u);
  d->u = v;
  d->n = m;
  return 0;
}

static int count_rows(int64_t *n, void *arg) {
  *n = ((struct domain *)arg)->n;
  return 0;
}

static int pack_rows(bal_rebalance_end end, int64_t skip, int64_t count, void *buf, size_t bytes,
                     void *arg) {
  struct domain *d = arg;
  if (bytes != (size_t)count * NX * sizeof(double)) return 1;
  int64_t first = end == BAL_REBALANCE_LOW ? skip + 1 : d->n - skip - count + 1;
  memcpy(buf, d->u + first * NX, bytes);
  return 0;
}

static int unpack_rows(bal_rebalance_end end, int64_t count, const void *buf, size_t bytes,
                       void *arg) {
  struct domain *d = arg;
  if (bytes != (size_t)count * NX * sizeof(double)) return 1;
  double *rows = malloc((size_t)(d->n + count) * NX * sizeof *rows);
  if (!rows) return 1;
  double *own = end == BAL_REBALANCE_LOW ? rows + count * NX : rows;
  double *in = end == BAL_REBALANCE_LOW ? rows : rows + d->n * NX;
  memcpy(own, d->u + NX, (size_t)d->n * NX * sizeof *rows);
  memcpy(in, buf, bytes);
  int rc = set_rows(d, rows, d->n + count);
  free(rows);
  return rc;
}

/* Cannot fail: shrinking keeps the buffer (its tail is simply unused). */
static void remove_rows(bal_rebalance_end end, int64_t count, void *arg) {
  struct domain *d = arg;
  if (end == BAL_REBALANCE_LOW)
    memmove(d->u + NX, d->u + (count + 1) * NX, (size_t)(d->n - count) * NX * sizeof(double));
  d->n -= count;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int balance = 1;
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--no-balance") == 0) balance = 0;

  /* Block distribution of the rows, then the initial values. */
  struct domain d = {NULL, 0};
  int64_t first = (int64_t)rank * NY / nranks;
  int64_t n = (int64_t)(rank + 1) * NY / nranks - first;
  double *init = malloc((size_t)n * NX * sizeof *init);
  if (!init) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < NX; j++)
      init[i * NX + j] = (double)((7 * (first + i) + 13 * j) % 17) / 16.0;
  if (set_rows(&d, init, n)) MPI_Abort(MPI_COMM_WORLD, 1);
  free(init);

  bal_rebalance *rb = NULL;
  if (balance) {
    bal_rebalance_config cfg;
    bal_rebalance_config_init(&cfg);
    cfg.interval = 10; /* decide every 10 iterations */
    bal_rebalance_callbacks cb = {.count = count_rows, .pack = pack_rows,
                                  .unpack = unpack_rows, .remove = remove_rows,
                                  .item_bytes = NX * sizeof(double), .arg = &d};
    int rc = bal_rebalance_create(MPI_COMM_WORLD, &cfg, &cb, &rb);
    if (rc != BAL_OK) {
      fprintf(stderr, "bal_rebalance_create: %s\n", bal_strerror(rc));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  int *counts = malloc((size_t)nranks * sizeof *counts);
  int *displs = malloc((size_t)nranks * sizeof *displs);
  double *unew = malloc((size_t)NY * NX * sizeof *unew);
  if (!counts || !displs || !unew) MPI_Abort(MPI_COMM_WORLD, 1);
  int64_t total_moved = 0;
  for (int it = 0; it < ITERS; it++) {
    /* Where the rows are now: this rank's first global row and its nearest
     * neighbours that hold rows (a rank may have given all away). */
    int nr = (int)d.n;
    MPI_Allgather(&nr, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    first = 0;
    for (int r = 0; r < rank; r++) first += counts[r];
    int prev = rank - 1, next = rank + 1;
    while (prev >= 0 && counts[prev] == 0) prev--;
    while (next < nranks && counts[next] == 0) next++;
    MPI_Request req[4];
    int nreq = 0;
    if (d.n > 0 && prev >= 0) {
      MPI_Irecv(d.u, NX, MPI_DOUBLE, prev, 2, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(d.u + NX, NX, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &req[nreq++]);
    }
    if (d.n > 0 && next < nranks) {
      MPI_Irecv(d.u + (d.n + 1) * NX, NX, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(d.u + d.n * NX, NX, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);

    if (balance) bal_rebalance_mark(rb);
    /* One Jacobi step; the outer rows and columns are fixed. */
    for (int64_t i = 1; i <= d.n; i++) {
      const double *c = d.u + i * NX, *up = c - NX, *down = c + NX;
      double *o = unew + (i - 1) * NX;
      memcpy(o, c, NX * sizeof *o);
      int64_t g = first + i - 1;
      if (g == 0 || g == NY - 1) continue;
      for (int j = 1; j < NX - 1; j++)
        o[j] = c[j] + alpha * (((up[j] + down[j]) + (c[j - 1] + c[j + 1])) - 4.0 * c[j]);
    }
    if (d.n > 0) memcpy(d.u + NX, unew, (size_t)d.n * NX * sizeof *unew);
    if (rank == 0) { /* the slow rank: busy for slow_s per row */
      double t0 = MPI_Wtime();
      while (MPI_Wtime() - t0 < slow_s * (double)d.n) {
      }
    }
    if (balance) {
      int64_t moved = 0;
      int rc = bal_rebalance_step(rb, BAL_REBALANCE_MEASURE, BAL_REBALANCE_ALL, &moved);
      if (rc != BAL_OK) {
        fprintf(stderr, "bal_rebalance_step: %s\n", bal_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      total_moved += moved;
    }
  }

  /* Checksum: row sums in column order, added in global row order on rank 0. */
  double *row_sums = malloc((size_t)(d.n + 1) * sizeof *row_sums);
  double *all_sums = malloc(NY * sizeof *all_sums);
  if (!row_sums || !all_sums) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int64_t i = 0; i < d.n; i++) {
    row_sums[i] = 0;
    for (int j = 0; j < NX; j++) row_sums[i] += d.u[(i + 1) * NX + j];
  }
  int nr = (int)d.n;
  MPI_Gather(&nr, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  displs[0] = 0;
  for (int r = 1; r < nranks; r++) displs[r] = displs[r - 1] + counts[r - 1];
  MPI_Gatherv(row_sums, nr, MPI_DOUBLE, all_sums, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* Every move is counted by its sender and its receiver. */
  MPI_Allreduce(MPI_IN_PLACE, &total_moved, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    double checksum = 0;
    for (int i = 0; i < NY; i++) checksum += all_sums[i];
    int64_t bits;
    memcpy(&bits, &checksum, sizeof bits);
    printf("heat_rows: %d x %d, %d iterations, %d ranks, %s\n", NY, NX, ITERS, nranks,
           balance ? "balanced" : "unbalanced");
    printf("rows moved %lld, rank 0 ends with %d rows\n", (long long)(total_moved / 2), counts[0]);
    printf("checksum %lld (%.16e)\n", (long long)bits, checksum);
  }
  bal_rebalance_destroy(rb);
  free(row_sums);
  free(all_sums);
  free(unew);
  free(counts);
  free(displs);
  free(d.u);
  MPI_Finalize();
  return 0;
}
