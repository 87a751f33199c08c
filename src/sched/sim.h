/* Private map of the sched module.
 *
 *  sched.c      public entry points: configuration and its settings, setup of
 *               a simulation from a trace, the result (its summary computed
 *               by summary.c)
 *  summary.c    bal_sched_summarize(): the one writer of the summary
 *               metrics, for the simulator and for live outcomes
 *  engine.c     the scheduler's state, shared by the simulator and the
 *               public decision step: queueing, starting and ending jobs,
 *               node accounting, progress rates of shrunk jobs (runtime
 *               models), predictions, and decide() (the policy's pass)
 *  sim.c        the simulator: the event loop over a trace (arrivals and
 *               completion events), calling engine.c as a caller of the
 *               public step API does
 *  state.c      the public decision step (bal_sched_state_*): job ids,
 *               argument checks, node identities (nodes.c)
 *  nodes.c      which nodes each job holds (public states only)
 *  running.c    indexes over running jobs: by predicted end, and the
 *               shareable jobs bucketed by node count
 *  backfill.c   the EASY machinery: reservation, static start estimate, pass
 *  mates.c      SD-Policy's mate selection ([D'Amico 2019] §3.2)
 *  malleable.c  one malleable start (predict, pick mates, start as guest),
 *               for sd and its variants
 *  policy.c     the registry of policies; fcfs.c, easy.c, sd.c the policies
 *  swf_parse.c  the SWF parser, fed the text in pieces (swf_internal.h)
 *  swf_read.c   the readers: a file parsed a chunk at a time as it is
 *               read, memory in one piece
 *  swf_scale.c  bal_swf_scale(): a trace window on a smaller, faster
 *               machine (replays and their simulation)
 *
 * The life of one job: setup() copies it from the trace (PENDING, or
 * REJECTED if larger than the machine); the loop queues it at its submit
 * time (WAITING); the policy starts it statically or, under sd, as a guest
 * on mates (RUNNING; the simulator's resched hook puts a completion event
 * in its heap); rate changes call the hook again (older events go stale);
 * it ends (DONE) and frees its nodes, or passes them to its guest or back
 * to its mates. A public state does the same, minus the heap: the caller
 * reports submits and ends.
 *
 * A new policy is one file defining a bal__sched_policy plus one line in
 * policy.c. Its own settings ("<name>.<key>" in bal_sched_config) reach its
 * configure() hook before the run, which stores them in its private state
 * (state_size bytes, zeroed, at s->policy_state). */
#ifndef BALLAST_SCHED_SIM_H
#define BALLAST_SCHED_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/sched.h>
#include <ballast/share.h>

enum { JOB_PENDING, JOB_WAITING, JOB_RUNNING, JOB_DONE, JOB_REJECTED };

typedef struct sjob {
  /* from the trace */
  double submit, runtime, req;
  int64_t nodes;
  int64_t demand;   /* cores it uses per node when unshrunk: min(cpn, ceil(procs/nodes)) */
  int64_t lend;     /* cores per node it lends as a mate: bal_share_lend(SF, cpn, its
                       ranks per node), the rule ballast/node.h applies too; 0: never
                       a mate */
  bool malleable;
  /* dynamic */
  int state;
  double start, end;
  double work_left; /* static-runtime seconds still to do */
  double rate;      /* progress per second, 1 = unshrunk */
  double last;      /* time work_left was last brought up to date */
  double pred_end;  /* predicted end (requested time, worst-case model) */
  double psd;       /* predicted slowdown, (pred_end - submit) / max(req, 1) */
  double reservation;
  double limit;     /* time limit from its start: req, req / f as a guest, plus the
                       extensions it got as a mate (sched.h's rule) */
  uint32_t gen;     /* invalidates stale completion events */
  int32_t guest;    /* job this one hosts, -1 */
  int32_t host_next; /* next mate of the same guest, -1 */
  int32_t mate_head; /* guest: first of its mates, -1 */
  int64_t full_nodes; /* guest: nodes inherited from mates that ended */
  int32_t nmates;     /* guest: its mates, <= BAL_SCHED_MAX_MATES */
  int32_t times_mate; /* guests hosted, < the jobs */
  int32_t run_pos;  /* 1 while in sim.run, else -1 */
  int32_t bprev, bnext; /* shareable bucket list links */
  bool in_bucket;
} sjob;

typedef struct event {
  double t;
  int32_t job;
  uint32_t gen;
} event;

typedef struct bal__sched_sim bal__sched_sim;

/* One setting a policy takes, for bal_sched_setting_check()'s answers:
 * its name (after "<policy>.") and the values it takes, as text. */
typedef struct bal__sched_setting_info {
  const char *name;   /* "mate_cost"; NULL ends a table */
  const char *values; /* "nodes, sum" */
} bal__sched_setting_info;

/* A policy: schedule() is called after the events of each instant and
 * starts jobs with bal__sched_start_static(), bal__sched_start_guest() or
 * bal__sched_start_malleable(). */
typedef struct bal__sched_policy {
  const char *name;
  bool sharing; /* uses mates: keep the shareable-job buckets */
  /* Bytes of private state, zeroed before configure() (0 = none). */
  size_t state_size;
  /* One of its settings, "<name>.<key>" = value, before the run; BAL_OK or
   * BAL_EINVAL for a key or value it does not take. NULL: it takes none. */
  int (*configure)(void *state, const char *key, const char *value);
  /* The keys configure() takes, ending with a NULL name; NULL: none. */
  const bal__sched_setting_info *settings;
  void (*schedule)(bal__sched_sim *s);
} bal__sched_policy;

/* Decisions taken by one decide() (sched.h's bal_sched_decision); node
 * lists are kept as offsets into dnodes until decide() returns. */
typedef struct bal__sched_decisions {
  bal_sched_decision *d;
  int64_t n, cap;
  int64_t *nodes; /* public states: the node lists, concatenated */
  int64_t nnodes, capnodes;
} bal__sched_decisions;

struct bal__sched_sim {
  const bal_sched_config *cfg;
  const bal__sched_policy *policy;
  void *policy_state; /* policy->state_size bytes, or NULL */
  sjob *jobs;
  int32_t njobs;
  int64_t nodes, cpn;
  int64_t guest_cores; /* cores per node a mate lends at most: bal_share_lend(SF, cpn, 1),
                          floor(SF * cpn) below SF = 1, cpn − 1 at it */
  double now;
  int64_t free_nodes;
  /* wait queue, FCFS order (indices into jobs) */
  int32_t *queue;
  int32_t nqueue;
  /* running jobs sorted by (pred_end, index) */
  int32_t *run;
  int32_t nrun;
  double psd_sum; /* Σ psd over running jobs (dynamic cut-off) */
  /* shareable running jobs bucketed by node count */
  int32_t *bucket_head; /* nodes + 1 entries */
  int32_t *bucket_count;
  int64_t *sizes; /* distinct node counts present, ascending */
  int32_t nsizes;
  /* completion events: binary min-heap, grown on demand (never past the
   * bound in sched.h, 1 + 3 max_mates events per job); rc records a
   * failed growth */
  event *heap;
  size_t nheap, capheap;
  int rc;
  /* mate-selection scratch (sd): per node count, up to max_mates best */
  int32_t *best_idx;
  double *best_p;
  int32_t *best_n;
  uint32_t *best_stamp;
  uint32_t stamp;
  /* failed selections since the machine last changed: per node count, the
   * shortest guest duration that found no mates (longer ones cannot) */
  double *fail_dur;
  uint32_t *fail_epoch;
  uint32_t epoch; /* bumped whenever a job starts or ends */
  /* counters */
  int64_t events, violations;
  int32_t max_queue;
  /* called whenever job j starts or its rate changes (the simulator
   * schedules its completion); NULL in a public state */
  void (*resched)(bal__sched_sim *s, int32_t j);
  /* decisions of the current decide() */
  bal__sched_decisions dec;
  /* node identities (public states only; NULL in the simulator): a doubly
   * linked list through the nodes per holder, the free ones in free_head */
  int32_t *node_next, *node_prev;
  int32_t *node_owner; /* the job holding each node, -1 = free */
  int32_t free_head;
  /* per job slot: the first and last node of the chain it holds itself (a
   * guest: those inherited from ended mates), -1 = none */
  int32_t *nhead, *ntail;
  /* job ids of public states: the id of each job slot */
  int64_t *ids;
};

/* running.c */
void bal__sched_run_insert(bal__sched_sim *s, int32_t j);
void bal__sched_run_remove(bal__sched_sim *s, int32_t j);
void bal__sched_run_set_pred(bal__sched_sim *s, int32_t j, double pred);
void bal__sched_bucket_add(bal__sched_sim *s, int32_t j);
void bal__sched_bucket_remove(bal__sched_sim *s, int32_t j);

/* sim.c: run the events to the end; BAL_OK or BAL_ENOMEM (the event heap
 * could not grow; the simulation stopped there). */
int bal__sched_loop(bal__sched_sim *s);

/* engine.c: the shape of job j from its request: nodes (0 = from procs),
 * per-node demand and what it lends as a mate; state PENDING. */
void bal__sched_job_init(bal__sched_sim *s, int32_t j, int64_t procs, int64_t nodes);
/* engine.c: queue job j (WAITING) by submit time, after equal ones. */
void bal__sched_enqueue(bal__sched_sim *s, int32_t j);
/* engine.c: take waiting job j out of the queue (a cancelled job). */
void bal__sched_dequeue(bal__sched_sim *s, int32_t j);
/* engine.c: running job j ends at s->now (DONE). */
void bal__sched_finish(bal__sched_sim *s, int32_t j);
/* engine.c: run the policy at s->now, recording its decisions in s->dec;
 * BAL_OK or BAL_ENOMEM (the record could not grow: the decisions were
 * still applied, s->rc says so). */
int bal__sched_decide(bal__sched_sim *s);
/* engine.c: starting jobs (the only way policies change the machine);
 * each records its decision */
void bal__sched_start_static(bal__sched_sim *s, int32_t j);
/* Start guest j on the given mates (their nodes sum to j's nodes). */
void bal__sched_start_guest(bal__sched_sim *s, int32_t j, const int32_t *mates, int nmates);
/* engine.c: start j statically on the given free nodes (public states). */
void bal__sched_start_static_on(bal__sched_sim *s, int32_t j, const int64_t *nodes);
/* engine.c: empty s->dec and make room for n decisions (and their nodes);
 * BAL_ENOMEM leaves the state unchanged. link() points each decision at
 * its nodes once the record is complete. */
int bal__sched_decisions_reserve(bal__sched_sim *s, int64_t n);
void bal__sched_decisions_link(bal__sched_sim *s);
/* engine.c: node conservation and sharing links; false on a violation. */
bool bal__sched_check(const bal__sched_sim *s);

/* nodes.c (public states): node lists. take() moves n free nodes to job j
 * (the first n of the free list, or the given ones); release() frees j's
 * own chain; pass() appends mate m's chain to guest g's; append() writes
 * j's chain to out and returns the count. */
void bal__sched_nodes_take(bal__sched_sim *s, int32_t j, int64_t n, const int64_t *which);
void bal__sched_nodes_release(bal__sched_sim *s, int32_t j);
void bal__sched_nodes_pass(bal__sched_sim *s, int32_t m, int32_t g);
int64_t bal__sched_nodes_append(const bal__sched_sim *s, int32_t j, int64_t *out);

/* sched.c: the policy cfg names and the checks of bal_sched_run() on the
 * configuration (limits), then the settings handed to the policy;
 * BAL_EINVAL or BAL_ENOMEM. Fills s->cfg, policy, nodes, cpn, guest_cores
 * and policy_state. */
int bal__sched_init(bal__sched_sim *s, const bal_sched_config *cfg);
/* sched.c: the sharing policies' per-node-count arrays (BAL_ENOMEM). */
int bal__sched_alloc_sharing(bal__sched_sim *s);
/* sched.c: free what init, alloc_sharing and the engine allocated. */
void bal__sched_release(bal__sched_sim *s);
/* Progress factor of a job with `demand` cores per node given `cores`. */
double bal__sched_share_rate(int64_t cores, int64_t demand);

/* backfill.c */
typedef struct bal__sched_reservation {
  double shadow;  /* when the head can start */
  int64_t extra;  /* nodes free at shadow beyond the head's need */
  int64_t head_nodes;
  double head_req;
} bal__sched_reservation;
void bal__sched_reserve(const bal__sched_sim *s, int64_t need, bal__sched_reservation *r);
/* Predicted static start of a job needing `need` nodes for `req` seconds,
 * queued behind the head's reservation r. */
double bal__sched_static_start(const bal__sched_sim *s, int64_t need, double req, const bal__sched_reservation *r);
/* The EASY pass; `malleable` (may be NULL) is tried for each job that
 * cannot start statically, with the head's reservation (`head`: j is the
 * head and r is its own); it returns true if it started the job. */
typedef bool (*bal__sched_malleable_fn)(bal__sched_sim *s, int32_t j, const bal__sched_reservation *r, bool head);
void bal__sched_backfill_pass(bal__sched_sim *s, bal__sched_malleable_fn malleable);

/* How mates.c weighs a mate's predicted slowdown p in the cost it
 * minimises over a choice of mates. */
typedef enum bal__sched_mate_cost {
  BAL__SCHED_COST_NODES, /* Σ p × nodes, as the SLURM implementation does */
  BAL__SCHED_COST_SUM    /* Σ p, [D'Amico 2019] Eq. 1 as printed */
} bal__sched_mate_cost;

/* mates.c: choose mates for guest j predicted to run `dur` seconds;
 * returns their count (0 = none) and fills out[BAL_SCHED_MAX_MATES]. */
int bal__sched_select_mates(bal__sched_sim *s, int32_t j, double dur, bal__sched_mate_cost cost,
                            int32_t *out);

/* malleable.c: SD-Policy's malleable start of job j, which cannot start
 * statically ([D'Amico 2019] Listing 1): if j is malleable, and starting it
 * now on mates is predicted to end it before its static start would, start
 * it as a guest and return true. r and head as for bal__sched_malleable_fn;
 * a variant calls it from its own bal__sched_malleable_fn. */
bool bal__sched_start_malleable(bal__sched_sim *s, int32_t j, const bal__sched_reservation *r,
                                bool head, bal__sched_mate_cost cost);

/* policy.c: the policy named name, or NULL; with len >= 0 only the first
 * len bytes of name are compared (a settings key's "<name>." prefix). */
const bal__sched_policy *bal__sched_policy_find(const char *name, ptrdiff_t len);

#endif
