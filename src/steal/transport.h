/* Private: the point-to-point transport of the `steal` module. All MPI
 * traffic of a balancer goes through here (one thread at a time), apart
 * from duplicating and freeing its communicator (steal.c): messages are
 * whole byte buffers, sent without blocking and received by probing, plus
 * the non-blocking barrier used for termination and the one collective of
 * a policy's start hook (sharing's groups). Keeping it behind
 * this interface lets another transport (one-sided, another runtime) replace
 * MPI point-to-point without touching the balancing logic. */
#ifndef BALLAST_STEAL_TRANSPORT_H
#define BALLAST_STEAL_TRANSPORT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bal__tp_send {
  MPI_Request req;
  void *buf;
} bal__tp_send;

typedef struct bal__tp {
  MPI_Comm comm;
  int rank, size;
  bal__tp_send *sends; /* in-flight sends, buffers freed on completion */
  size_t nsends, capsends;
  unsigned char *peers; /* bit r (peers[r / 8], 1 << r % 8) set once a message was sent to r:
                           a bit, not a byte, per rank, as every rank has one */
  int npeers;
  int64_t messages, bytes;
  void *bulk_buf; /* SMPI builds: shared source/sink of simulated bulk bytes */
  /* 0, or the largest message sent unannounced: a longer one goes after a
   * header of its tag and length (set by bal_steal_create from
   * bal_steal_config::idle_wait, which it checks is equal on every rank), which is what
   * lets bal__tp_wait_msg receive from anyone into wait_buf (split_above
   * bytes, allocated at its first call). */
  size_t split_above;
  void *wait_buf;
  int64_t waits; /* calls of bal__tp_wait_msg (tests read it) */
  /* non-blocking tree barrier (see transport.c) */
  int64_t epoch;   /* barriers started so far */
  int bar_up[2];     /* arrivals from children, by epoch parity */
  int bar_down[2];   /* release from the parent received, by epoch parity */
  int bar_active, bar_up_sent;
  /* Test hook, off when 0: counts down at each MPI call of the transport,
   * and the call that brings it to 0 fails with BAL_EMPI without reaching
   * MPI, so tests can walk every error path (tests/mpi/test_steal.c). */
  int64_t fail_countdown;
  /* Test hook, off when 0: every message received waits a uniformly drawn
   * 0 .. delay_max_ns before it is handed over (delay_rng is its SplitMix64
   * state), so tests shuffle the timing of every protocol. */
  int64_t delay_max_ns;
  uint64_t delay_rng;
} bal__tp;

/* Bind to a (private) communicator. Returns BAL_OK, BAL_ENOMEM, or BAL_EMPI
 * if an MPI call fails. */
int bal__tp_init(bal__tp *tp, MPI_Comm comm);
void bal__tp_free(bal__tp *tp);
/* Zero the counters (messages, bytes, peers) at the start of a run. */
void bal__tp_reset_stats(bal__tp *tp);

/* Send len bytes to dest with tag; takes ownership of buf (malloc'd or NULL
 * when len is 0) in every case. bulk is the number of unstored task-input
 * bytes the message stands for (sim_bulk.h): in an SMPI build they are sent
 * ahead of it from a shared buffer and absorbed by bal__tp_recv_msg, so the
 * simulated network carries them; elsewhere it is always 0. Returns BAL_OK,
 * BAL_ENOMEM, BAL_ERANGE (len > INT_MAX) or BAL_EMPI. */
int bal__tp_send_msg(bal__tp *tp, int dest, int tag, void *buf, size_t len, size_t bulk);

/* Send a control message (termination waves): as bal__tp_send_msg without
 * bulk, not counted in the statistics, like the barrier's. */
int bal__tp_send_ctl(bal__tp *tp, int dest, int tag, void *buf, size_t len);

/* Receive one pending message if any: returns 1 and fills the outputs (buf
 * is malloc'd, NULL when *len is 0; the caller frees it), 0 if none is
 * pending, or a negative BAL_E* code. */
int bal__tp_recv_msg(bal__tp *tp, int *src, int *tag, void **buf, size_t *len);
/* Block until a message arrives (from any rank), then as bal__tp_recv_msg:
 * 1 and the outputs, or 0 when it was the transport's own (bulk, a
 * barrier message), or a negative BAL_E* code; BAL_EINVAL when
 * split_above is 0. A blocking receive, not a probe: SMPI 3.32 implements
 * MPI_Probe as a loop of probes, and a receive completed by MPI_Test
 * stays in SimGrid's per-actor activity list (walked at every finished
 * communication) until the rank ends, while one completed by
 * MPI_Recv/MPI_Wait is removed. */
int bal__tp_wait_msg(bal__tp *tp, int *src, int *tag, void **buf, size_t *len);

/* Collective over the communicator: every rank contributes `bytes` bytes
 * from `mine`; `all` receives size * bytes, rank r's at r * bytes.
 * Returns BAL_OK, BAL_ERANGE (bytes > INT_MAX) or BAL_EMPI. Only between
 * runs' point-to-point traffic (no message of the balancer is pending). */
int bal__tp_allgather(bal__tp *tp, const void *mine, size_t bytes, void *all);
/* Collective: MPI_Barrier over the communicator (between runs). BAL_OK or
 * BAL_EMPI. */
int bal__tp_sync(bal__tp *tp);

/* Complete finished sends; returns BAL_OK or BAL_EMPI. */
int bal__tp_progress(bal__tp *tp);
/* Wait for every outstanding send (all of them are known to be matched). */
int bal__tp_wait_sends(bal__tp *tp);

/* Non-blocking barrier: start, then test until *done. It is a binary-tree
 * barrier over point-to-point messages on the same communicator (handled
 * inside bal__tp_recv_msg, so the caller must keep receiving), not
 * MPI_Ibarrier: SimGrid 3.32's MPI_Ibarrier completes on some ranks before
 * all have entered. Its messages are not counted in the statistics. */
int bal__tp_barrier_start(bal__tp *tp);
int bal__tp_barrier_test(bal__tp *tp, int *done);

#endif
