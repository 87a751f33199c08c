/* Private: the state of a `steal` balancer, shared by the files of the
 * module (distributed work stealing over MPI on the small-world overlay):
 *   steal.c      public API: configuration checks, create/destroy, tasks in,
 *                results out, phases
 *   queue.c      the local task queue (owner end, thief end)
 *   batch.c      task messages: packing from the queue's front, queueing
 *   theft.c      stealing: requests, replies (how many tasks: one rule,
 *                bal__steal_amount), back-off
 *   victim.c     the registry of policies, one file each: the victim
 *                policies victim_none.c, victim_random.c,
 *                victim_smallworld.c, victim_biased.c, and sharing.c
 *                (work sharing, a policy through the hooks alone). The
 *                core calls a policy's hooks and knows none by name.
 *   route.c      results: stored at home or routed per next hop
 *   rankmap.c    a map from rank to int: what a rank keeps per peer
 *                (next hops, route buffers) without an array of P
 *   sharing.c    the "sharing" baseline: groups, master token, pushes,
 *                its state its own (s->policy_state); sharing.h its pure
 *                group formation, for the tests
 *   lifeline.c   lifelines: a thief that stops asking after empty replies,
 *                registered with its buddies until one pushes it work
 *   terminate.c  termination: Mattern's four-counter waves, then a barrier
 *   exec.c       executing one task (worker threads or polling thread)
 *   spawn.c      tasks spawned by tasks, the result callback's queue
 *   run.c        bal_steal_run(): progress loop, THREAD and POLL modes
 *   transport.c  MPI messages, the tree barrier, the test hook (transport.h)
 *
 * The life of a task. bal_steal_add_task() (steal.c) copies the input into
 * s->own_in[id] at its owner. bal_steal_run() (run.c) pushes every own task
 * onto the back of the queue (bal__steal_q_push_back, queue.c) and starts
 * the progress loop (progress_once). The owner's executors -- its worker
 * threads (bal__steal_worker_main, exec.c) and, in POLL mode, the calling
 * thread's loop (poll_loop) -- pop tasks from the back
 * (bal__steal_q_pop_back). Meanwhile an idle rank
 * asks a victim chosen by its policy (bal__steal_if_due in theft.c, calling
 * s->policy->pick); the victim's loop answers in bal__steal_handle_request,
 * which packs tasks from the front of its queue (bal__steal_pack_front,
 * batch.c) into a BAL__STEAL_TAG_TASKS message sent by the transport
 * (bal__tp_send_msg); the thief queues them at its back
 * (bal__steal_handle_tasks -> bal__steal_unpack_tasks); a policy may
 * also push tasks unasked from its step hook (BAL__STEAL_TAG_PUSH: under
 * "sharing" the token holder does, sharing.c). A stolen task may be
 * stolen again. Whoever pops it runs it in bal__steal_run_task (exec.c),
 * which appends the result to s->done; the progress loop hands each one to
 * bal__steal_deliver (route.c): stored in s->res_* if this rank owns the
 * task, else appended to the buffer of the next hop toward the owner
 * (bal_overlay_next_hop(), or the owner itself without an overlay), sent
 * by bal__steal_route_flush_due and forwarded by every rank on the way
 * (bal__steal_handle_results -> bal__steal_deliver) until it is stored at
 * home; after the run bal_steal_result() (steal.c) reads the result until
 * the next phase starts.
 *
 * The life of a spawned task. A task function calls bal_steal_spawn()
 * (spawn.c) on the thread running it (exec.c tells whether that thread runs
 * a task of the balancer): the input is copied and pushed at the back of
 * the queue with owner = this rank and idx = BAL__STEAL_SPAWNED, so it is
 * popped, stolen and run like any task. Its result, unless empty, travels
 * home the same way and bal__steal_deliver queues it in s->cbq; the
 * progress loop, outside any task, passes it to cfg.on_result
 * (bal__steal_cb_drain). Termination (terminate.c) does not rely on owners:
 * waves sum the task and result messages every rank sent and received while
 * it was passive, until two waves prove that nothing is left anywhere.
 *
 * One progress loop per rank (progress_once) does all communication: it
 * answers steal requests from the front of the task queue, sends a steal
 * request when the queue runs dry, routes finished results toward their
 * owners (buffered per next hop) and drives termination. Tasks run either
 * on a worker thread (THREAD mode) or between polls on the same thread
 * (POLL mode), always from the back of the queue (work-first). With
 * cfg.workers > 1 several threads pop the same queue under s->mu. */
#ifndef BALLAST_STEAL_STEAL_INTERNAL_H
#define BALLAST_STEAL_STEAL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/overlay.h>
#include <ballast/steal.h>

#include "core/rng.h"
#include "rankmap.h"
#include "transport.h"

enum {
  BAL__STEAL_TAG_REQ = 1,       /* steal request (empty) */
  BAL__STEAL_TAG_TASKS = 2,     /* steal reply: tasks, possibly none */
  BAL__STEAL_TAG_RESULTS = 3,   /* routed results */
  BAL__STEAL_TAG_PUSH = 4,      /* tasks a policy sends unasked (queued at the back) */
  BAL__STEAL_TAG_WAVE_UP = 5,   /* termination wave: counters toward the root */
  BAL__STEAL_TAG_WAVE_DOWN = 6, /* termination wave: the root's verdict */
  /* The policy's own control messages: tags BAL__STEAL_TAG_POLICY + 0 ..
   * BAL__STEAL_POLICY_TAGS - 1, passed to its handle hook. */
  BAL__STEAL_TAG_POLICY = 8,
  BAL__STEAL_POLICY_TAGS = 8,
  BAL__STEAL_TAG_LIFELINE = 16,    /* a dormant thief's registration (empty; lifeline.c) */
  BAL__STEAL_TAG_LIFELINE_ACK = 17 /* its acknowledgement (empty) */
};

/* The idx of a spawned task: no id, its result goes to cfg.on_result. */
#define BAL__STEAL_SPAWNED ((int64_t)-1)

/* bal_steal_config::idle_wait: the largest message sent without a header
 * announcing it, and the buffer a waiting rank receives into. Requests and
 * empty replies are a few bytes; a theft of a few dozen small tasks fits. */
#define BAL__STEAL_WAIT_BYTES ((size_t)4096)

typedef struct bal__steal_task {
  int owner;
  int own_data; /* data was malloc'd here (stolen task) */
  int64_t idx;
  size_t len;
  unsigned char *data;
} bal__steal_task;

typedef struct bal__steal_result {
  int owner;
  int status;
  int64_t idx;
  size_t len;
  unsigned char *data;
} bal__steal_result;

/* Wire header of one task or one result (homogeneous machines assumed). */
typedef struct bal__steal_wire_hdr {
  int32_t owner;
  int32_t status;
  int64_t idx;
  uint64_t len;
} bal__steal_wire_hdr;

typedef struct bal__steal_route_buf {
  int dest;
  unsigned char *buf;
  size_t len, cap;
  int64_t t_first;
  int64_t n;
} bal__steal_route_buf;

/* Where a rank is in a run (terminate.c). The order matters: until the
 * waves have proved that no task and no result is left (DRAINING) tasks
 * may still move. */
typedef enum bal__steal_phase {
  BAL__STEAL_WORKING,  /* running, stealing, taking part in waves */
  BAL__STEAL_DRAINING, /* no task and no result left anywhere; waiting for
                          this rank's outstanding request and its
                          policy to settle (its settled hook) */
  BAL__STEAL_BARRIER,  /* the final barrier posted */
  BAL__STEAL_DONE      /* no message in flight: the run is over */
} bal__steal_phase;

/* A policy (victim.c holds the registry; one file per policy). A victim
 * policy sets steals and pick; a policy that moves work otherwise (as
 * "sharing" does) uses the per-run hooks start .. end, which the core calls
 * for every policy that has them, whatever it is. Every hook runs on the
 * progress thread (bal_steal_create()'s for init). */
typedef struct bal__steal_policy {
  const char *name;   /* as in bal_steal_config::policy */
  bool needs_overlay; /* build the overlay: victims among its neighbours,
                         results routed through it (else sent directly) */
  bool steals;        /* idle ranks send steal requests and victims answer
                         them with tasks; false: requests are never sent */
  /* Optional: per-balancer state, created by bal_steal_create() after the
   * overlay; *state is released with free() by bal_steal_destroy() (after
   * end: what a run made is gone by then). */
  int (*init)(bal_steal *s, void **state);
  /* The victim of the next steal request (steals only): a rank other than
   * s->rank, or a negative BAL_E* code. */
  int (*pick)(bal_steal *s);
  /* Optional: a reply to the steal request sent to victim at t_req came
   * back at now (steals only). */
  void (*replied)(bal_steal *s, int victim, int64_t t_req, int64_t now);
  /* Optional: the start of a run, on every rank, after the own tasks are
   * counted (s->own_n) and before they are queued or any message is sent;
   * may be collective (bal__tp_allgather). *peers arrives as the core's
   * count of the ranks this rank may talk to (bal_steal_stats's
   * overlay_degree) and may be changed. BAL_OK or a BAL_E* code (the run
   * fails; end is still called). */
  int (*start)(bal_steal *s, int *peers);
  /* Optional: every round of the progress loop; may push tasks
   * (bal__steal_pack_front, then bal__steal_send_basic with
   * BAL__STEAL_TAG_PUSH) while bal__steal_tasks_open(). Returns 1 if it
   * did anything, 0 if not, or a negative error. */
  int (*step)(bal_steal *s, int64_t now);
  /* Optional (required if the policy sends control messages): a message
   * with a tag in BAL__STEAL_TAG_POLICY + [0, BAL__STEAL_POLICY_TAGS). */
  int (*handle)(bal_steal *s, int src, int tag, const unsigned char *buf, size_t len);
  /* Optional: once no work is left anywhere, whether every control
   * message this rank sent has arrived; the final barrier waits for it
   * (terminate.c), so that no message is in flight when a run ends. */
  bool (*settled)(const bal_steal *s);
  /* Optional: release what start made (after every run, errors included,
   * and once more from bal_steal_destroy(): must be idempotent). */
  void (*end)(bal_steal *s);
} bal__steal_policy;

/* The registered policy called name, or NULL. */
const bal__steal_policy *bal__steal_policy_find(const char *name);

/* One task-executing thread of a rank (exec.c): its own result buffer. In
 * POLL mode worker 0 is the thread that called bal_steal_run(). */
typedef struct bal__steal_worker {
  bal_steal *s;
  int index;
  pthread_t th;
  bool started;
  unsigned char *scratch; /* max_out bytes for the task function's result */
  unsigned char *whole;   /* SMPI builds: a whole task input (exec.c) */
  size_t whole_cap;
} bal__steal_worker;

struct bal_steal {
  bal_steal_config cfg; /* cfg.policy points to policy->name */
  const bal__steal_policy *policy;
  void *policy_state; /* policy->init's state, or NULL */
  bal_steal_progress mode; /* THREAD or POLL after AUTO is resolved */
  MPI_Comm comm;
  int rank, size;
  bal__tp tp;
  bal_overlay *ov;
  int ov_degree;
  bal__steal_rankmap next_hop; /* with an overlay: owner -> next hop, as computed */
  bal__rng rng;

  /* own tasks of the current phase */
  unsigned char **own_in;
  size_t *own_len;
  int64_t own_n, own_cap;
  bool ran; /* a run finished: the next add_task starts a new phase */
  bool has_estimate; /* bal_steal_set_estimate() was called for the next run */
  double estimate;
  bool running;
  bool in_task; /* POLL mode: the progress thread is inside a task (exec.c) */

  /* own results */
  unsigned char **res_data;
  size_t *res_len;
  int *res_status;
  unsigned char *res_have;
  int64_t own_home;

  /* queue shared with the workers: front = [qhead], back = [qtail-1] */
  pthread_mutex_t mu;
  pthread_cond_t work_cv, prog_cv;
  bal__steal_task *q;
  size_t qhead, qtail, qcap;
  atomic_int_least64_t queued; /* qtail - qhead, readable without mu */
  bal__steal_result *done; /* finished by a worker, not yet handled */
  size_t ndone, capdone;
  int busy; /* tasks popped and not finished (running) */
  bool stop;
  int err; /* first error seen by a worker */
  bal__steal_worker *wk; /* cfg.workers of them during a run */

  /* run state (progress thread only) */
  bal_steal_fn fn;
  size_t max_out;
  void *arg;
  bal__steal_phase phase;
  bool in_poll; /* inside bal_steal_poll(): result callbacks wait */
  bal__steal_result *cbq; /* spawned tasks' results for cfg.on_result */
  size_t ncbq, capcbq;
  bool outstanding; /* a steal request awaits its reply */
  int64_t t_req, next_steal, backoff, t0;
  int64_t idle_nap; /* POLL mode: current sleep of the idle loop (ns), 0 after activity */
  /* route buffers, one per destination used (route.c): rb[rb_of[dest]] */
  bal__steal_route_buf *rb;
  int nrb, caprb;
  bal__steal_rankmap rb_of;
  int *active; /* destinations with a non-empty route buffer (caprb of room) */
  int nactive;
  bal_steal_stats st;

  /* lifelines (lifeline.c; progress thread only) */
  bool dormant;       /* registered with the buddies, sending no request */
  int fails;          /* steal replies without a task in a row */
  int *held;          /* thieves registered here, oldest first, each once */
  int nheld, capheld;
  int64_t ll_unacked; /* registrations sent from here, not yet acknowledged */
  int64_t ll_dormancies; /* times this rank went dormant in the last run (tests) */

  /* termination (terminate.c): Mattern's counters and the current wave */
  int64_t basic_sent, basic_recv; /* task and result messages, this run */
  int64_t wave;                   /* the wave this rank is in, from 1 */
  int wave_children;              /* children's reports of this wave received */
  bool wave_reported;             /* this rank's report of this wave is sent */
  int64_t wave_s, wave_r;         /* sums of the children's reports */
  int64_t wave_prev_r;            /* root: R of the previous wave, -1 before */
};

/* Tasks may still move between ranks (steal replies carry tasks, a
 * policy's pushes): not every result of the run is home yet. */
static inline bool bal__steal_tasks_open(const bal_steal *s) {
  return s->phase == BAL__STEAL_WORKING;
}

/* Seconds since the start of the run, for the trace callback. */
static inline double bal__steal_secs(const bal_steal *s, int64_t t) {
  return (double)(t - s->t0) * 1e-9;
}

/* ---- steal.c ---- */

/* Free the current phase's results. */
void bal__steal_free_results(bal_steal *s);
/* Release the previous phase's tasks and results. */
void bal__steal_new_phase(bal_steal *s);

/* ---- queue.c (callers hold s->mu) ---- */

/* Room for `extra` more tasks at the back; BAL_OK or BAL_ENOMEM. */
int bal__steal_q_reserve(bal_steal *s, size_t extra);
size_t bal__steal_q_size(const bal_steal *s);
/* Owner end: append (room reserved with bal__steal_q_reserve) and pop the back
 * for local execution (pop returns false if empty). */
void bal__steal_q_push_back(bal_steal *s, bal__steal_task t);
bool bal__steal_q_pop_back(bal_steal *s, bal__steal_task *t);
/* Thief end: the i-th task from the front (i < size), and dropping the
 * first n tasks once they have been handed over. */
bal__steal_task *bal__steal_q_front(bal_steal *s, size_t i);
void bal__steal_q_drop_front(bal_steal *s, size_t n);
/* Free every task left in the queue and empty it (end of a run). */
void bal__steal_q_clear(bal_steal *s);

/* ---- theft.c: stealing ---- */

/* How many of its n queued tasks a victim running busy tasks gives a
 * thief: floor(n * fraction), at least one, as long as the victim keeps
 * one task to run, queued or running (pure). */
size_t bal__steal_amount(size_t n, int busy, double fraction);
/* Answer a steal request from src (from the front of the queue). */
int bal__steal_handle_request(bal_steal *s, int src);
/* A steal reply from src: queue its tasks, or back off if it has none. */
int bal__steal_handle_tasks(bal_steal *s, int src, const unsigned char *buf, size_t len);
/* Send a steal request if the queue is empty and none is outstanding;
 * returns 1 if one was sent, 0 if not, or a negative error. */
int bal__steal_if_due(bal_steal *s, bool empty, int64_t now);

/* ---- lifeline.c: lifelines (bal_steal_config::lifelines) ---- */

/* The run's lifeline state, at its start (every rank). */
void bal__steal_ll_start(bal_steal *s);
/* Free the held list (bal_steal_destroy()). */
void bal__steal_ll_end(bal_steal *s);
/* A steal reply without a task came back: after cfg.lifelines of them in a
 * row while nothing is queued or running here, register with every buddy
 * and go dormant. BAL_OK or an error. */
int bal__steal_ll_failed(bal_steal *s);
/* Tasks arrived (a reply or a push): active again, the count restarts. */
void bal__steal_ll_woke(bal_steal *s);
/* A message shows src is awake (it sent tasks, or a steal request): drop
 * its registration here, if any (lifeline.c, "Stale registrations"). */
void bal__steal_ll_awake(bal_steal *s, int src);
/* A registration (acknowledged; src held while tasks are open) or an
 * acknowledgement from src. BAL_OK, BAL_ENOMEM or BAL_EMPI. */
int bal__steal_ll_handle(bal_steal *s, int src, int tag);
/* Push spare tasks to the held thieves, oldest first; returns 1 if any
 * was pushed, 0 if not, or a negative error. */
int bal__steal_ll_push_due(bal_steal *s);
/* Whether every registration sent from here has been acknowledged (the
 * final barrier waits for it, terminate.c). */
bool bal__steal_ll_settled(const bal_steal *s);

/* ---- batch.c: task messages ---- */

/* Pack up to k tasks from the front of the queue (caller holds s->mu) into
 * a task message: *buf (malloc'd), *bytes stored, *bulk unstored bytes
 * (sim_bulk.h); returns how many tasks it took (they leave the queue), or
 * a negative error. */
int64_t bal__steal_pack_front(bal_steal *s, size_t k, unsigned char **buf, size_t *bytes,
                              size_t *bulk);
/* Queue the tasks of a task message; returns how many, or a negative error. */
int64_t bal__steal_unpack_tasks(bal_steal *s, const unsigned char *buf, size_t len);
/* Tasks a policy pushed (BAL__STEAL_TAG_PUSH): queued, and counted in
 * bal_steal_stats::thefts when there are any. */
int bal__steal_handle_push(bal_steal *s, const unsigned char *buf, size_t len);

/* ---- route.c: results ---- */

/* Store a result at home or route it toward its owner; takes data. */
int bal__steal_deliver(bal_steal *s, int owner, int status, int64_t idx, size_t len,
                       unsigned char *data);
/* A batch of routed results. */
int bal__steal_handle_results(bal_steal *s, unsigned char *buf, size_t len);
/* Send the route buffers that are full, old, or all of them when idle;
 * returns 1 if any was sent, 0 if not, or a negative error. */
int bal__steal_route_flush_due(bal_steal *s, bool idle, int64_t now);

/* ---- terminate.c ---- */

/* Start the run's termination state (every rank, before any message). */
void bal__steal_term_start(bal_steal *s);
/* Advance termination (s->phase); returns 1 if it moved, 0 if not, or a
 * negative error. */
int bal__steal_term_step(bal_steal *s);
/* A wave message (BAL__STEAL_TAG_WAVE_UP or _DOWN). */
int bal__steal_term_handle(bal_steal *s, int src, int tag, const unsigned char *buf, size_t len);
/* Whether a received message is a basic message of Mattern's method
 * (results, or a task message with tasks). */
bool bal__steal_is_basic(int tag, const void *buf, size_t len);
/* Send a basic message of Mattern's method (tasks or results): counted. */
int bal__steal_send_basic(bal_steal *s, int dest, int tag, void *buf, size_t len, size_t bulk);

/* ---- exec.c: executing one task (worker threads or polling thread) ---- */

void bal__steal_run_task(bal__steal_worker *w, bal__steal_task *t);
/* A worker thread (pthread start routine, arg is its bal__steal_worker). */
void *bal__steal_worker_main(void *arg);
/* Whether the calling thread runs a task of s; *progress_thread tells
 * whether it is s's progress thread (POLL mode's worker 0). */
bool bal__steal_in_task(const bal_steal *s, bool *progress_thread);

/* ---- spawn.c: spawned tasks' results ---- */

/* Queue a spawned task's result for cfg.on_result; takes data. */
int bal__steal_cb_push(bal_steal *s, int status, size_t len, unsigned char *data);
/* Pass the queued results to cfg.on_result (progress thread, outside any
 * task and bal_steal_poll()); returns 1 if any, else 0. */
int bal__steal_cb_drain(bal_steal *s);
/* Free the queued results (end of a run, errors). */
void bal__steal_cb_clear(bal_steal *s);

#endif
