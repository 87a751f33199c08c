/* uts_count.c: count the nodes of an unbalanced tree with tasks that spawn
 * tasks. The tree is a UTS binomial tree [Olivier 2006] whose nodes draw
 * their children from a small hash (SplitMix64's) instead of SHA-1, so this
 * needs nothing but Ballast and MPI; its counts are therefore not the
 * published ones (`ballast uts` is the real benchmark).
 *   mpicc uts_count.c $(pkg-config --cflags --libs ballast) -o uts_count
 *   mpiexec -n 4 ./uts_count */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ballast/steal.h>

typedef struct node {
  uint64_t state;
  int64_t depth;
} node;

static uint64_t hash(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static bal_steal *bal;
static int64_t nodes, max_depth; /* this rank's counts (one worker thread) */

/* A task is one node: count it and spawn its children. The root has 200; a
 * node below it has 8 with probability 0.124, else none (q * m just below 1:
 * deep, narrow and unpredictable subtrees). */
static int visit(const void *in, size_t len, void *out, size_t cap, size_t *out_len, void *arg) {
  (void)len, (void)out, (void)cap, (void)out_len, (void)arg;
  node n;
  memcpy(&n, in, sizeof n);
  nodes++;
  if (n.depth > max_depth) max_depth = n.depth;
  int kids = n.depth == 0 ? 200 : (double)(hash(n.state) >> 11) * 0x1p-53 < 0.124 ? 8 : 0;
  for (int i = 0; i < kids; i++) {
    node c = {hash(n.state + (uint64_t)i + 1), n.depth + 1};
    if (bal_steal_spawn(bal, &c, sizeof c) != BAL_OK) return 1;
  }
  return 0; /* an empty result: nothing travels back */
}

int main(int argc, char **argv) {
  int provided, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (bal_steal_create(MPI_COMM_WORLD, NULL, &bal) != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  node root = {42, 0};
  if (rank == 0) bal_steal_add_task(bal, &root, sizeof root, NULL);
  /* Returns once no task is left on any rank. */
  if (bal_steal_run(bal, visit, 0, NULL) != BAL_OK) MPI_Abort(MPI_COMM_WORLD, 1);
  int64_t total = 0, depth = 0;
  MPI_Reduce(&nodes, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&max_depth, &depth, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%lld nodes, depth %lld\n", (long long)total, (long long)depth);
  bal_steal_destroy(bal);
  MPI_Finalize();
  return 0;
}
