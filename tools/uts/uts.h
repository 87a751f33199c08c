/* ballast-uts: the Unbalanced Tree Search benchmark on the steal module
 * (main.c says how it runs). Shared declarations of its files:
 *   tree.c    the UTS trees: nodes, children, the depth-first search (tree.h)
 *   opts.c    command line
 *   run.c     the tasks of the parallel search, rank 0's sequential
 *             baseline, a barrier that does not spin
 *   report.c  the --json / table output
 *   main.c    start-up, baseline, the run, the checks of its counts */
#ifndef BALLAST_TOOLS_UTS_H
#define BALLAST_TOOLS_UTS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <ballast/steal.h>

#include "common/steal_flags.h"
#include "tree.h"

#define PROG "ballast-uts"
/* Nodes between two looks at the queue (a relaxed atomic load), and
 * between two bal_steal_poll() calls (POLL mode: steal requests are served
 * then), about 20 us and 170 us of SHA-1 at 12 M nodes/s. */
#define CHECK_EVERY 256
#define POLL_EVERY 8 /* checks */

/* The names of --type, --shape and --progress in their enums' order,
 * NULL-terminated. */
extern const char *const type_names[];
extern const char *const shape_names[];
extern const char *const progress_names[];

typedef struct opts {
  uts_params prm;
  int64_t ranks, workers, max_nodes, baseline_nodes; /* baseline -1: the whole tree */
  const char *policy;
  double steal_fraction, poll_interval, backoff_max;
  int progress; /* index in progress_names */
  int idle_wait; /* bal_steal_config::idle_wait (index in idle_wait_names) */
  int64_t lifelines; /* bal_steal_config::lifelines */
  uint64_t seed;
  bool json;
  bool check_flags; /* SMPI build: check the flags, then exit */
  /* Simulated work (SMPI build only; 0 elsewhere): seconds per node, or 0
   * for work_per_rank x ranks / nodes; a check every `slice` seconds. */
  double node_cost, work_per_rank, slice;
} opts;

/* ---- opts.c ---- */
/* Parse argv (tools/common/cli.h): CLI_CONTINUE to run, otherwise the exit
 * status after --help/--version (0) or an error naming the flag (1, 2). */
int uts_parse(int argc, char **argv, opts *o);

/* ---- run.c ---- */
/* One rank's state of the parallel search, the argument of uts_task(). */
typedef struct run_ctx {
  const opts *o;
  bal_steal *s;
  pthread_mutex_t mu;
  uts_counts total; /* this rank's, summed at the end of each task */
  atomic_int_least64_t counted; /* nodes counted here, updated at checks */
  atomic_bool stop;             /* --max-nodes passed on this rank */
  atomic_bool oom;              /* a task ran out of memory: its nodes are lost */
  int64_t splits;
  int64_t every, poll_every; /* nodes between checks, checks between polls */
  double node_cost;          /* simulated seconds per node (SMPI), else 0 */
  double last_end;           /* MPI_Wtime() at the end of this rank's last task */
} run_ctx;

/* The bal_steal task: search the nodes of its input (an array of uts_node)
 * and count them into the run_ctx *arg. */
int uts_task(const void *in, size_t in_len, void *out, size_t out_cap, size_t *out_len,
             void *arg);

/* Rank 0's sequential search of the tree (o->baseline_nodes of it). */
typedef struct seq_out {
  uts_counts cnt;
  double time_s;
  bool complete, too_big;
} seq_out;

/* 0, or -1 when out of memory. */
int uts_sequential(const opts *o, seq_out *r);

/* Wait at a barrier on MPI_COMM_WORLD without spinning. */
void uts_quiet_barrier(void);

/* ---- report.c ---- */
/* The run's figures, reduced to rank 0. */
typedef struct sums {
  int64_t nodes, leaves, spawned, attempts, thefts, given, routed, messages, executed_stolen,
      waves, splits, stopped;
  int64_t max_depth;
  double time_s, work_s, idle_s;
  double last_task_s; /* from the start to the end of the last task anywhere */
  double node_cost; /* simulated seconds per node (SMPI), else 0 */
  int64_t every;    /* nodes between checks */
} sums;

void uts_print_json(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                    double eff);
void uts_print_table(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                     double eff);

#endif
