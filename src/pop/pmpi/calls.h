/* Private to libballast_pop.so: the MPI calls it measures, one list for
 * the C wrappers (wrap.c, which says which calls and why) and the Fortran
 * ones (fortran.c), so that the two cannot drift apart: the blocking calls
 * (POP_MEASURED_CALLS, which lend with BALLAST_LEND=1) and the tests and
 * probes (POP_POLLING_CALLS, which never lend). Signatures are
 * MPI-3's, as Open MPI 4.1's <mpi.h> has them.
 *   X(Name, name, F, (C parameters), (C arguments))
 * Name is the C name after MPI_, name the Fortran one, F the Fortran entry
 * point's argument count (the C arguments and ierror, all by reference). */
#ifndef BALLAST_POP_CALLS_H
#define BALLAST_POP_CALLS_H

/* clang-format off */
#define POP_MEASURED_CALLS(X) \
  /* ---- point to point ---- */ \
  X(Send, send, 7, \
    (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c), \
    (b, n, t, d, tag, c)) \
  X(Ssend, ssend, 7, \
    (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c), \
    (b, n, t, d, tag, c)) \
  X(Bsend, bsend, 7, \
    (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c), \
    (b, n, t, d, tag, c)) \
  X(Rsend, rsend, 7, \
    (const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c), \
    (b, n, t, d, tag, c)) \
  X(Recv, recv, 8, \
    (void *b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Status *st), \
    (b, n, t, s, tag, c, st)) \
  X(Sendrecv, sendrecv, 13, \
    (const void *sb, int sn, MPI_Datatype st, int d, int stag, void *rb, int rn, \
     MPI_Datatype rt, int s, int rtag, MPI_Comm c, MPI_Status *status), \
    (sb, sn, st, d, stag, rb, rn, rt, s, rtag, c, status)) \
  X(Sendrecv_replace, sendrecv_replace, 10, \
    (void *b, int n, MPI_Datatype t, int d, int stag, int s, int rtag, MPI_Comm c, \
     MPI_Status *st), \
    (b, n, t, d, stag, s, rtag, c, st)) \
  X(Probe, probe, 5, (int s, int tag, MPI_Comm c, MPI_Status *st), (s, tag, c, st)) \
  /* ---- waits of non-blocking calls ---- */ \
  X(Wait, wait, 3, (MPI_Request *r, MPI_Status *st), (r, st)) \
  X(Waitall, waitall, 4, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st)) \
  X(Waitany, waitany, 5, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st)) \
  X(Waitsome, waitsome, 6, \
    (int n, MPI_Request r[], int *out, int idx[], MPI_Status st[]), \
    (n, r, out, idx, st)) \
  /* ---- collectives ---- */ \
  X(Barrier, barrier, 2, (MPI_Comm c), (c)) \
  X(Bcast, bcast, 6, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c)) \
  X(Reduce, reduce, 8, \
    (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c), \
    (sb, rb, n, t, op, root, c)) \
  X(Allreduce, allreduce, 7, \
    (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), \
    (sb, rb, n, t, op, c)) \
  X(Reduce_scatter, reduce_scatter, 7, \
    (const void *sb, void *rb, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c), \
    (sb, rb, rn, t, op, c)) \
  X(Reduce_scatter_block, reduce_scatter_block, 7, \
    (const void *sb, void *rb, int rn, MPI_Datatype t, MPI_Op op, MPI_Comm c), \
    (sb, rb, rn, t, op, c)) \
  X(Scan, scan, 7, \
    (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), \
    (sb, rb, n, t, op, c)) \
  X(Exscan, exscan, 7, \
    (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), \
    (sb, rb, n, t, op, c)) \
  X(Gather, gather, 9, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root, \
     MPI_Comm c), \
    (sb, sn, st, rb, rn, rt, root, c)) \
  X(Gatherv, gatherv, 10, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dis[], \
     MPI_Datatype rt, int root, MPI_Comm c), \
    (sb, sn, st, rb, rn, dis, rt, root, c)) \
  X(Scatter, scatter, 9, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root, \
     MPI_Comm c), \
    (sb, sn, st, rb, rn, rt, root, c)) \
  X(Scatterv, scatterv, 10, \
    (const void *sb, const int sn[], const int dis[], MPI_Datatype st, void *rb, int rn, \
     MPI_Datatype rt, int root, MPI_Comm c), \
    (sb, sn, dis, st, rb, rn, rt, root, c)) \
  X(Allgather, allgather, 8, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c), \
    (sb, sn, st, rb, rn, rt, c)) \
  X(Allgatherv, allgatherv, 9, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dis[], \
     MPI_Datatype rt, MPI_Comm c), \
    (sb, sn, st, rb, rn, dis, rt, c)) \
  X(Alltoall, alltoall, 8, \
    (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c), \
    (sb, sn, st, rb, rn, rt, c)) \
  X(Alltoallv, alltoallv, 10, \
    (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, const int rn[], \
     const int rd[], MPI_Datatype rt, MPI_Comm c), \
    (sb, sn, sd, st, rb, rn, rd, rt, c)) \
  X(Alltoallw, alltoallw, 10, \
    (const void *sb, const int sn[], const int sd[], const MPI_Datatype st[], void *rb, \
     const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c), \
    (sb, sn, sd, st, rb, rn, rd, rt, c))

/* Tests and probes: they return at once, so they are measured (their time
 * is MPI time, as TALP counts it: a rank that waits by polling shows its
 * polling as MPI time) through bal_pop_mpi_poll_enter(), which never
 * lends CPUs. docs/pop.md, "Polling", has the evidence and the cost. */
#define POP_POLLING_CALLS(X) \
  X(Test, test, 4, (MPI_Request *r, int *flag, MPI_Status *st), (r, flag, st)) \
  X(Testall, testall, 5, (int n, MPI_Request r[], int *flag, MPI_Status st[]), (n, r, flag, st)) \
  X(Testany, testany, 6, \
    (int n, MPI_Request r[], int *i, int *flag, MPI_Status *st), (n, r, i, flag, st)) \
  X(Testsome, testsome, 6, \
    (int n, MPI_Request r[], int *out, int idx[], MPI_Status st[]), (n, r, out, idx, st)) \
  X(Iprobe, iprobe, 6, \
    (int s, int tag, MPI_Comm c, int *flag, MPI_Status *st), (s, tag, c, flag, st)) \
  X(Improbe, improbe, 7, \
    (int s, int tag, MPI_Comm c, int *flag, MPI_Message *m, MPI_Status *st), \
    (s, tag, c, flag, m, st))

/* Measured from C only: fortran.c has no wrappers for them yet, so a
 * Fortran program's MPI_Mprobe and MPI_Mrecv count as useful time. */
#define POP_MEASURED_CALLS_C_ONLY(X) \
  X(Mprobe, mprobe, 6, \
    (int s, int tag, MPI_Comm c, MPI_Message *m, MPI_Status *st), \
    (s, tag, c, m, st)) \
  X(Mrecv, mrecv, 6, \
    (void *b, int n, MPI_Datatype t, MPI_Message *m, MPI_Status *st), \
    (b, n, t, m, st))
/* clang-format on */

#endif
