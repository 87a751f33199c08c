/* Private: state of one simulation, shared by the event loop (sim.c), the
 * running-job indexes (running.c), the backfill machinery (backfill.c,
 * mates.c) and the policies (fcfs.c, easy.c, sd.c). */
#ifndef BALLAST_SCHED_SIM_H
#define BALLAST_SCHED_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/sched.h>

enum { JOB_PENDING, JOB_WAITING, JOB_RUNNING, JOB_DONE, JOB_REJECTED };

typedef struct sjob {
  /* from the trace */
  double submit, runtime, req;
  int64_t nodes;
  int64_t demand;   /* cores it uses per node when unshrunk: min(cpn, ceil(procs/nodes)) */
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
  uint32_t gen;     /* invalidates stale completion events */
  int32_t guest;    /* job this one hosts, -1 */
  int32_t host_next; /* next mate of the same guest, -1 */
  int32_t mate_head; /* guest: first of its mates, -1 */
  int64_t full_nodes; /* guest: nodes inherited from mates that ended */
  int32_t nmates, times_mate;
  int32_t run_pos;  /* 1 while in sim.run, else -1 */
  int32_t bprev, bnext; /* shareable bucket list links */
  bool in_bucket;
} sjob;

typedef struct event {
  double t;
  int32_t job;
  uint32_t gen;
} event;

typedef struct bal__sim bal__sim;

/* A policy: called after the events of each instant; starts jobs with
 * bal__sim_start_static() / bal__sim_start_guest(). */
typedef struct bal__policy {
  const char *name;
  bool sharing; /* uses mates: keep the shareable-job buckets */
  void (*schedule)(bal__sim *s);
} bal__policy;

struct bal__sim {
  const bal_sched_config *cfg;
  const bal__policy *policy;
  sjob *jobs;
  int32_t njobs;
  int64_t nodes, cpn;
  int64_t guest_cores; /* cores per node lent to a guest: floor(SF * cpn) */
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
  /* completion events: binary min-heap */
  event *heap;
  int32_t nheap, capheap;
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
  int64_t events, malleable_starts, mate_selections, violations;
  int32_t max_queue;
};

/* running.c */
void bal__run_insert(bal__sim *s, int32_t j);
void bal__run_remove(bal__sim *s, int32_t j);
void bal__run_set_pred(bal__sim *s, int32_t j, double pred);
void bal__bucket_add(bal__sim *s, int32_t j);
void bal__bucket_remove(bal__sim *s, int32_t j);

/* sim.c: run the events to the end. */
void bal__sim_loop(bal__sim *s);
/* sim.c: starting jobs (the only way policies change the machine) */
void bal__sim_start_static(bal__sim *s, int32_t j);
/* Start guest j on the given mates (their nodes sum to j's nodes). */
void bal__sim_start_guest(bal__sim *s, int32_t j, const int32_t *mates, int nmates);
/* Progress factor of a job with `demand` cores per node given `cores`. */
double bal__share_rate(int64_t cores, int64_t demand);

/* backfill.c */
typedef struct bal__reservation {
  double shadow;  /* when the head can start */
  int64_t extra;  /* nodes free at shadow beyond the head's need */
  int64_t head_nodes;
  double head_req;
} bal__reservation;
void bal__reserve(const bal__sim *s, int64_t need, bal__reservation *r);
/* Predicted static start of a job needing `need` nodes for `req` seconds,
 * queued behind the head's reservation r. */
double bal__static_start(const bal__sim *s, int64_t need, double req, const bal__reservation *r);
/* The EASY pass; `malleable` (may be NULL) is tried for each job that
 * cannot start statically, with the head's reservation (`head`: j is the
 * head and r is its own); it returns true if it started the job. */
typedef bool (*bal__malleable_fn)(bal__sim *s, int32_t j, const bal__reservation *r, bool head);
void bal__backfill_pass(bal__sim *s, bal__malleable_fn malleable);

/* mates.c: choose mates for guest j predicted to run `dur` seconds;
 * returns their count (0 = none) and fills out[cfg->max_mates]. */
int bal__select_mates(bal__sim *s, int32_t j, double dur, int32_t *out);

/* policy.c */
const bal__policy *bal__policy_find(const char *name);

#endif
