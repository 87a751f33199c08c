/* Private: the state of a `steal` balancer, shared by the files of the
 * module (distributed work stealing over MPI on the small-world overlay):
 *   steal.c      public API: configuration checks, create/destroy, tasks in,
 *                results out, phases
 *   queue.c      the local task queue (owner end, thief end)
 *   batch.c      task messages: packing from the queue's front, queueing
 *   theft.c      stealing: requests, replies, victim choice
 *   route.c      results: stored at home or routed per next hop
 *   sharing.c    the BAL_STEAL_SHARING baseline: groups, master token, pushes
 *   terminate.c  termination: the two tree barriers
 *   exec.c       executing one task (worker thread or polling thread)
 *   run.c        bal_steal_run(): progress loop, THREAD and POLL modes
 *   transport.c  MPI point-to-point messages and the tree barrier
 *
 * One progress loop per rank (progress_once) does all communication: it
 * answers steal requests from the front of the task queue, sends a steal
 * request when the queue runs dry, routes finished results toward their
 * owners (buffered per next hop) and drives termination. Tasks run either
 * on a worker thread (THREAD mode) or between polls on the same thread
 * (POLL mode), always from the back of the queue (work-first). */
#ifndef BALLAST_STEAL_STEAL_INTERNAL_H
#define BALLAST_STEAL_STEAL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/overlay.h>
#include <ballast/steal.h>

#include "core/rng.h"
#include "transport.h"

enum {
  BAL__TAG_REQ = 1,      /* steal request (empty) */
  BAL__TAG_TASKS = 2,    /* steal reply: tasks, possibly none */
  BAL__TAG_RESULTS = 3,  /* routed results */
  BAL__TAG_PUSH = 4,     /* sharing: tasks pushed by the token holder */
  BAL__TAG_TOKEN = 5,    /* sharing: the group's master token */
  BAL__TAG_TOKEN_ACK = 6 /* sharing: the token arrived (see terminate.c) */
};

typedef struct bal__task {
  int owner;
  int own_data; /* data was malloc'd here (stolen task) */
  long long idx;
  size_t len;
  unsigned char *data;
} bal__task;

typedef struct bal__result {
  int owner;
  int status;
  long long idx;
  size_t len;
  unsigned char *data;
} bal__result;

/* Wire header of one task or one result (homogeneous machines assumed). */
typedef struct bal__wire_hdr {
  int32_t owner;
  int32_t status;
  int64_t idx;
  uint64_t len;
} bal__wire_hdr;

typedef struct bal__route_buf {
  unsigned char *buf;
  size_t len, cap;
  int64_t t_first;
  long long n;
} bal__route_buf;

struct bal_steal {
  bal_steal_config cfg;
  bal_steal_progress mode; /* THREAD or POLL after AUTO is resolved */
  MPI_Comm comm;
  int rank, size;
  bal__tp tp;
  bal_overlay *ov;
  int ov_degree;
  int *next_hop; /* cached per destination, -1 unknown */
  bal__rng rng;

  /* own tasks of the current phase */
  unsigned char **own_in;
  size_t *own_len;
  long long own_n, own_cap;
  bool ran; /* a run finished: the next add_task starts a new phase */
  bool has_estimate; /* bal_steal_set_estimate() was called for the next run */
  double estimate;
  bool running;
  bool in_task;

  /* own results */
  unsigned char **res_data;
  size_t *res_len;
  int *res_status;
  unsigned char *res_have;
  long long own_home;

  /* queue shared with the worker: front = [qhead], back = [qtail-1] */
  pthread_mutex_t mu;
  pthread_cond_t work_cv, prog_cv;
  bal__task *q;
  size_t qhead, qtail, qcap;
  bal__result *done; /* finished by the worker, not yet handled */
  size_t ndone, capdone;
  bool worker_busy, stop;
  int err; /* first error seen by the worker */

  /* run state (progress thread only) */
  bal_steal_fn fn;
  size_t max_out;
  void *arg;
  unsigned char *scratch;
  unsigned char *whole; /* SMPI builds: a whole task input (exec.c) */
  size_t whole_cap;
  int phase; /* 0 working, 1 barrier 1 posted, 2 draining, 3 barrier 2 posted, 4 done */
  bool outstanding;
  int victim;
  int64_t t_req, next_steal, backoff, t0;
  int64_t idle_nap; /* POLL mode: current sleep of the idle loop (ns), 0 after activity */
  bal__route_buf *rb;
  int *active; /* destinations with a non-empty route buffer */
  int nactive;
  bal_steal_stats st;

  /* BAL_STEAL_SHARING (sharing.c): this rank's group, in ring order */
  int *group;      /* members (ranks), ascending */
  int gsize, gpos; /* members, this rank's index */
  long long *token;      /* the token while held here (layout in sharing.c) */
  int64_t token_release; /* when a held token may be passed on */
  bool token_waited;     /* this visit of the token already waited out a quiet lap */
  int token_unacked;     /* tokens sent from here whose arrival is not yet acknowledged */
};

/* Seconds since the start of the run, for the trace callback. */
static inline double bal__steal_secs(const bal_steal *s, int64_t t) {
  return (double)(t - s->t0) * 1e-9;
}

/* ---- steal.c ---- */

/* Free the current phase's results. */
void bal__free_results(bal_steal *s);
/* Release the previous phase's tasks and results. */
void bal__new_phase(bal_steal *s);

/* ---- queue.c (callers hold s->mu) ---- */

/* Room for `extra` more tasks at the back; BAL_OK or BAL_ENOMEM. */
int bal__q_reserve(bal_steal *s, size_t extra);
size_t bal__q_size(const bal_steal *s);
/* Owner end: append (room reserved with bal__q_reserve) and pop the back
 * for local execution (pop returns false if empty). */
void bal__q_push_back(bal_steal *s, bal__task t);
bool bal__pop_back(bal_steal *s, bal__task *t);
/* Thief end: the i-th task from the front (i < size), and dropping the
 * first n tasks once they have been handed over. */
bal__task *bal__q_front(bal_steal *s, size_t i);
void bal__q_drop_front(bal_steal *s, size_t n);
/* Free every task left in the queue and empty it (end of a run). */
void bal__q_clear(bal_steal *s);

/* ---- theft.c: stealing ---- */

/* Answer a steal request from src (from the front of the queue). */
int bal__handle_request(bal_steal *s, int src);
/* A steal reply from src: queue its tasks, or back off if it has none. */
int bal__handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len);
/* Send a steal request if the queue is empty and none is outstanding;
 * returns 1 if one was sent, 0 if not, or a negative error. */
int bal__steal_if_due(bal_steal *s, bool empty, int64_t now);

/* Pack up to k tasks from the front of the queue (caller holds s->mu) into
 * a task message: *buf (malloc'd), *bytes stored, *bulk unstored bytes
 * (sim_bulk.h); returns how many tasks it took (they leave the queue), or
 * a negative error. */
long long bal__pack_front(bal_steal *s, size_t k, unsigned char **buf, size_t *bytes,
                          size_t *bulk);
/* Queue the tasks of a task message; returns how many, or a negative error. */
long long bal__unpack_tasks(bal_steal *s, const unsigned char *buf, size_t len);

/* ---- sharing.c: the work-sharing baseline ---- */

/* Groups of the run (collective: all ranks call it at the start of a run
 * under BAL_STEAL_SHARING). */
int bal__sharing_start(bal_steal *s);
/* Token and pushed tasks (messages with the BAL__TAG_PUSH/TOKEN/TOKEN_ACK tags). */
int bal__sharing_handle(bal_steal *s, int src, int tag, const unsigned char *buf, size_t len);
/* Pass a held token on when due; returns 1 if it moved, 0 if not, or a
 * negative error. */
int bal__sharing_step(bal_steal *s, int64_t now);
/* Drop the run's group and token. */
void bal__sharing_free(bal_steal *s);
/* Pure: assign p ranks to ceil(p / gsize) groups of at most gsize members
 * with about equal total estimate (largest first, each to the least-loaded
 * group with room). group_of[r] receives rank r's group. Returns the
 * number of groups, or BAL_ENOMEM. */
int bal__sharing_groups(const double *estimate, int p, int gsize, int *group_of);

/* ---- route.c: results ---- */

/* Store a result at home or route it toward its owner; takes data. */
int bal__deliver(bal_steal *s, int owner, int status, long long idx, size_t len,
                 unsigned char *data);
/* A batch of routed results. */
int bal__handle_results(bal_steal *s, unsigned char *buf, size_t len);
/* Send the route buffers that are full, old, or all of them when idle;
 * returns 1 if any was sent, 0 if not, or a negative error. */
int bal__route_flush_due(bal_steal *s, bool idle, int64_t now);

/* ---- terminate.c ---- */

/* Advance termination (s->phase); returns 1 if it moved, 0 if not, or a
 * negative error. */
int bal__term_step(bal_steal *s);

/* ---- exec.c: executing one task (worker thread or polling thread) ---- */

void bal__run_task(bal_steal *s, bal__task *t);
/* The THREAD-mode worker (pthread start routine, arg is the balancer). */
void *bal__worker_main(void *arg);

#endif
