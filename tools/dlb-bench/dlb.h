/* ballast-dlb-bench: DLB_Bench [Fontenaille 2018] §5.1 on the steal module.
 * Shared declarations of its files:
 *   workload.c  how many tasks each rank owns and what each costs (workload.h)
 *   opts.c      command line
 *   run.c       the tasks, one iteration, every iteration of one policy,
 *               the memory check
 *   trace.c     recording the balancer's events, gathering them (--trace)
 *   report.c    --json / table, the timeline and the work-distribution plot
 *   main.c      start-up, the policies in turn, the results */
#ifndef BALLAST_DLB_BENCH_H
#define BALLAST_DLB_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ballast/steal.h>

#include "common/steal_flags.h"
#include "workload.h"

#define PROG "ballast-dlb-bench"
/* Policies one run may compare: more than the registry holds, so that
 * `--policy all` takes every registered one (parse_policies() refuses
 * rather than drops any beyond it). */
#define DLB_MAX_POLICIES 64

/* One trace event: kind (bal_steal_event), begin/end (s), peer rank. */
typedef struct dlb_event {
  double kind, t0, t1, peer;
} dlb_event;

typedef enum { MODE_SPIN, MODE_SLEEP, MODE_SIMULATED } work_mode;
/* The --work-mode names in work_mode order, NULL-terminated. */
extern const char *const mode_names[];

typedef struct opts {
  dlb_params prm;
  int npolicies;
  const char *policies[DLB_MAX_POLICIES]; /* registered names (bal_steal_policy_name) */
  const char *policy_arg;
  work_mode mode;
  int degree;
  double steal_fraction;
  double slice;
  double poll_interval;
  double backoff_max;
  int idle_wait; /* bal_steal_config::idle_wait (index in idle_wait_names) */
  int64_t lifelines; /* bal_steal_config::lifelines */
  int group_size;
  double estimate_error;
  int iterations;
  bool json;
  bool check_flags; /* SMPI build: check the flags, then exit */
  const char *trace;
  const char *plot;
  long long ranks; /* --ranks, 0 if absent */
} opts;

typedef struct ctx {
  bal_steal *s;
  work_mode mode;
  double slice;
  int rank;
  pthread_mutex_t mu;
  dlb_event *ev;
  long long nev, capev;
  long long lost; /* events not recorded: no memory to grow ev */
  bool tracing;
} ctx;

/* One iteration's figures, as rank 0 gathers them. */
typedef struct iter_out {
  double work_s, resolution_s, idle_s;
  long long attempts, thefts, given, messages, bytes, routed, route_msgs, results_bad, executions;
  int peers_max, degree_max;
} iter_out;

/* A policy's figures: totals over the measured iterations (all of them
 * with --iterations 1; the 2nd to the last otherwise), except results_bad
 * and executions, which count every iteration. */
typedef struct run_out {
  const char *policy;
  double efficiency;
  iter_out sum;
  bool ok;
  double *iter_efficiency, *iter_resolution; /* per iteration, rank 0 only */
  double *final_work;                         /* per rank, last iteration, rank 0 only */
} run_out;

/* ---- opts.c ---- */
/* Parse argv (tools/common/cli.h): CLI_CONTINUE to run, otherwise the exit
 * status after --help/--version (0) or an error naming the flag (1, 2). */
int dlb_parse(int argc, char **argv, opts *o);

/* ---- run.c ---- */
/* Refuse, before building anything, a workload the machine cannot hold,
 * naming the flag that asks for it (collective; the same answer on every
 * rank). */
bool dlb_memory_fits(const opts *o, int rank, int p, long long mine, long long tasks);
/* Collective: rank's share of iteration iter (dlb_counts() on rank 0, sent
 * to each rank): its task count, the global id of its first task and the
 * tasks of all ranks. False on every rank if rank 0 is out of memory. */
bool dlb_share_of(const dlb_params *prm, int rank, int p, int iter, long long *mine,
                  uint64_t *first, long long *tasks);
/* Run every iteration of policy pol on one balancer (collective); tasks is
 * the number of tasks of one iteration. BAL_OK, or the error every rank
 * failed with (the cause is on stderr). */
int dlb_run_policy(const opts *o, const char *pol, bool tracing, int rank, int p,
                   long long tasks, run_out *out, ctx *c);

/* ---- trace.c ---- */
/* bal_steal_config.trace: record one event in the ctx *arg. */
void dlb_on_event(void *arg, bal_steal_event ev, double t0, double t1, int peer);
/* Gather the last run's events to rank 0 and write o->trace (collective).
 * False after printing why. */
bool dlb_gather_trace(const opts *o, ctx *c, int rank, int p, const char *policy);

/* ---- report.c ---- */
/* Write ev[0..n) where rank_of_event[i] gives the rank; returns false and
 * prints a message on failure. */
bool dlb_write_trace(const char *path, const dlb_event *ev, const int *rank_of, long long n,
                     int ranks, const char *policy);

/* Plot the initial work per rank and the final work per rank of each run
 * (series[k][r], names[k]); returns false and prints why on failure. */
bool dlb_write_plot(const char *path, int ranks, const double *initial, int nseries,
                    const double *const *series, const char *const *names);
/* The work-distribution plot of o->plot (rank 0). */
bool dlb_plot(const opts *o, int p, int last_iter, const long long *counts, const run_out *runs);
void dlb_print_json(const opts *o, int p, long long tasks, const run_out *runs, int nruns,
                    bool ok);
void dlb_print_table(const opts *o, int p, long long tasks, const run_out *runs, int nruns);

#endif
