/* The MPI calls measured by libballast_pop.so: every blocking call that can
 * wait for another rank, and the waits of non-blocking ones. Each wrapper
 * is PMPI_<name> between bal_pop_mpi_enter() and bal_pop_mpi_exit().
 * Not measured (docs/pop.md): MPI_Test* (they return at once; a program
 * that polls with them shows the polling as useful time), one-sided
 * synchronisation, MPI-IO, MPI_Comm_create and other communicator
 * constructors (collective, but rare), non-blocking calls themselves (only
 * their waits). Signatures are MPI-3's, as Open MPI 4.1's <mpi.h> has them. */
#include <mpi.h>

#include <ballast/pop.h>

/* WRAP(Name, (parameters), (arguments)) */
#define WRAP(name, params, args)                                                              \
  int MPI_##name params {                                                                     \
    bal_pop_mpi_enter();                                                                      \
    int rc_ = PMPI_##name args;                                                               \
    bal_pop_mpi_exit();                                                                       \
    return rc_;                                                                               \
  }

/* ---- point to point ---- */
WRAP(Send, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
     (b, n, t, d, tag, c))
WRAP(Ssend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
     (b, n, t, d, tag, c))
WRAP(Bsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
     (b, n, t, d, tag, c))
WRAP(Rsend, (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c),
     (b, n, t, d, tag, c))
WRAP(Recv, (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st),
     (b, n, t, s, tag, c, st))
WRAP(Sendrecv,
     (const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn,
      MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *status),
     (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status))
WRAP(Sendrecv_replace,
     (void *b, int n, MPI_Datatype t, int d, int stag, int s, int rtag, MPI_Comm c,
      MPI_Status *st),
     (b, n, t, d, stag, s, rtag, c, st))
WRAP(Probe, (int s, int tag, MPI_Comm c, MPI_Status *st), (s, tag, c, st))
WRAP(Mprobe, (int s, int tag, MPI_Comm c, MPI_Message *m, MPI_Status *st), (s, tag, c, m, st))
WRAP(Mrecv, (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st), (b, n, t, m, st))

/* ---- waits of non-blocking calls ---- */
WRAP(Wait, (MPI_Request *r, MPI_Status *st), (r, st))
WRAP(Waitall, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st))
WRAP(Waitany, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st))
WRAP(Waitsome, (int n, MPI_Request r[], int *out, int idx[], MPI_Status st[]),
     (n, r, out, idx, st))

/* ---- collectives ---- */
WRAP(Barrier, (MPI_Comm c), (c))
WRAP(Bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))
WRAP(Reduce,
     (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
     (sb, rb, n, t, op, root, c))
WRAP(Allreduce, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     (sb, rb, n, t, op, c))
WRAP(Reduce_scatter,
     (const void *sb, void *rb, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c),
     (sb, rb, rn, t, op, c))
WRAP(Reduce_scatter_block,
     (const void *sb, void *rb, int rn, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     (sb, rb, rn, t, op, c))
WRAP(Scan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     (sb, rb, n, t, op, c))
WRAP(Exscan, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),
     (sb, rb, n, t, op, c))
WRAP(Gather,
     (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
      MPI_Comm c),
     (sb, sn, st, rb, rn, rt, root, c))
WRAP(Gatherv,
     (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dis[],
      MPI_Datatype rt, int root, MPI_Comm c),
     (sb, sn, st, rb, rn, dis, rt, root, c))
WRAP(Scatter,
     (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,
      MPI_Comm c),
     (sb, sn, st, rb, rn, rt, root, c))
WRAP(Scatterv,
     (const void *sb, const int sn[], const int dis[], MPI_Datatype st, void *rb, int rn,
      MPI_Datatype rt, int root, MPI_Comm c),
     (sb, sn, dis, st, rb, rn, rt, root, c))
WRAP(Allgather,
     (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
     (sb, sn, st, rb, rn, rt, c))
WRAP(Allgatherv,
     (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dis[],
      MPI_Datatype rt, MPI_Comm c),
     (sb, sn, st, rb, rn, dis, rt, c))
WRAP(Alltoall,
     (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),
     (sb, sn, st, rb, rn, rt, c))
WRAP(Alltoallv,
     (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, const int rn[],
      const int rd[], MPI_Datatype rt, MPI_Comm c),
     (sb, sn, sd, st, rb, rn, rd, rt, c))
WRAP(Alltoallw,
     (const void *sb, const int sn[], const int sd[], const MPI_Datatype st[], void *rb,
      const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c),
     (sb, sn, sd, st, rb, rn, rd, rt, c))
