/* ballast-heat: a 2-D Jacobi heat solver over MPI whose grid rows are the
 * work items of bal_rebalance. Shared declarations of its files:
 *   opts.c    command line
 *   grid.c    the local rows, the rebalance callbacks, the sweep, checksums
 *   halo.c    who owns which row, and the halo exchange that follows from it
 *   load.c    the artificial competing load ([Siegell 1997] §3)
 *   trace.c   per-interaction trace of the observed rank, CSV and PNG
 *   report.c  efficiency and the --json / table output
 *   main.c    the iteration loop */
#ifndef BALLAST_HEAT_H
#define BALLAST_HEAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include <ballast/rebalance.h>

#define HEAT_PROG "ballast-heat"
#define HEAT_MAX_LOADED 64
/* --balancer off: no balancer at all (the library's "none" is a balancer
 * that measures and decides without moving). */
#define HEAT_BALANCER_OFF "off"
/* Registered balancers --balancer may name (more than the library has). */
#define HEAT_MAX_BALANCERS 30

typedef enum { LOAD_NONE, LOAD_CONSTANT, LOAD_OSCILLATING } heat_load_kind;
typedef enum { WORK_SLEEP, WORK_COMPUTE } heat_work_mode;

typedef struct heat_opts {
  long long ranks;      /* --ranks (0: already under mpirun) */
  int nx;               /* columns, the two edge columns included */
  int64_t ny;           /* rows */
  long long iterations;
  const char *balancer; /* a bal_rebalance balancer name, or HEAT_BALANCER_OFF */
  bool balancer_off;    /* --balancer off: no balancer at all (the baseline) */
  heat_load_kind load;
  double load_period, load_duty, slowdown;
  int nloaded;
  int loaded[HEAT_MAX_LOADED];
  const char *loaded_arg;
  heat_work_mode work;
  double row_s;         /* sleep mode: dedicated seconds per row and sweep */
  bool filter, threshold, profitability;
  double threshold_value;
  long long interval;
  double poll_s;        /* sleep between completion tests while waiting */
  uint64_t seed;
  bool json;
  const char *trace, *plot;
} heat_opts;

/* Parse argv (tools/common/cli.h): CLI_CONTINUE to run, otherwise the exit
 * status after --help/--version (0) or an error naming the flag (1, 2). */
int heat_parse(int argc, char **argv, heat_opts *o);
const char *heat_load_name(heat_load_kind k);
const char *heat_work_name(heat_work_mode m);

/* ---- grid.c ---- */
typedef struct heat_grid {
  int nx;
  int64_t ny;
  int64_t n, cap; /* local rows, allocated rows */
  int64_t *gid;   /* global index of each local row (sequence order) */
  double *u, *v;  /* current and next values, n rows of nx */
} heat_grid;

/* Rows [first, first+count) with the initial field drawn from seed. */
int grid_init(heat_grid *g, int nx, int64_t ny, int64_t first, int64_t count, uint64_t seed);
void grid_free(heat_grid *g);
/* The callbacks bal_rebalance needs, with g as their argument. */
bal_rebalance_callbacks grid_callbacks(heat_grid *g);
/* Order-independent 64-bit hash of every row's index and bit pattern:
 * equal on any distribution of the same grid values. */
uint64_t grid_hash(const heat_grid *g);
double grid_sum(const heat_grid *g);

/* ---- halo.c ---- */
typedef struct heat_halo {
  int npeers;
  int *peer, *send_cnt, *recv_cnt, *send_off, *recv_off; /* per peer, in rows */
  int64_t *send_rows; /* local indices to send, grouped by peer */
  int64_t *up, *down; /* per local row: local index (>= 0) or -(ghost slot + 1) */
  double *send_buf, *ghost; /* ghost slot 0: hot edge, 1: cold edge, 2...: received rows */
  MPI_Request *req;
} heat_halo;

/* Learn every rank's rows (collective) and plan the exchange. 0 or -1
 * (out of memory). */
int halo_build(heat_halo *h, const heat_grid *g, MPI_Comm comm);
/* Exchange the halo rows of g->u; waits by testing every poll_s seconds
 * (0: MPI_Waitall). Returns an MPI error code. */
int halo_exchange(heat_halo *h, const heat_grid *g, MPI_Comm comm, double poll_s);
void halo_free(heat_halo *h);
/* Complete n requests, testing every poll_s seconds and sleeping between
 * tests (0: MPI_Waitall, which spins in Open MPI). Returns an MPI code. */
int heat_wait(int n, MPI_Request *req, double poll_s);
/* One Jacobi sweep of the local rows from g->u into g->v, then swap. */
void grid_sweep(heat_grid *g, const heat_halo *h);

/* ---- load.c ---- */
typedef struct heat_load {
  heat_load_kind kind;
  double slowdown, period, duty;
  double t0;  /* start of the run (monotonic seconds) */
  bool here;  /* this rank is loaded */
} heat_load;

/* Wall time at which `work` seconds of dedicated computation started at
 * `start` finish when the competing load takes its share of the CPU. */
double load_finish(const heat_load *l, double start, double work);
/* CPU seconds the competing load takes on this rank during [a, b]. */
double load_compete(const heat_load *l, double a, double b);
/* Is the load active at time t? */
bool load_active(const heat_load *l, double t);

/* ---- trace.c ---- */
typedef struct heat_sample {
  double t;          /* seconds since the start */
  long long iter, rows, rebalances;
  double rate_raw, rate;
  int loaded, filter_state;
} heat_sample;

typedef struct heat_trace {
  heat_sample *s;
  long long n, cap;
} heat_trace;

int trace_add(heat_trace *tr, const heat_sample *s);
bool trace_write_csv(const heat_trace *tr, const char *path);
bool trace_plot(const heat_trace *tr, const heat_opts *o, const char *path, int rank);

/* ---- report.c ---- */
typedef struct heat_result {
  int ranks, observed_rank;
  double t_seq_iter;     /* dedicated time of one sweep over all rows (s) */
  double elapsed_s, compete_s, efficiency;
  double after_elapsed_s, after_compete_s, efficiency_after; /* after the first rebalance */
  long long first_rebalance_iter; /* -1: none */
  long long rebalances, interactions, skipped_threshold, skipped_profit, items_moved;
  long long bytes_moved;
  double migrate_s_max;
  uint64_t hash;
  double mean_temperature;
  int64_t *final_rows; /* per rank */
  double *late_s;      /* per rank: how long its sweeps ran past their deadline, in
                        * total (late wake-ups from the emulated row cost; a sweep
                        * whose real work overran it) */
} heat_result;

void report_json(const heat_opts *o, const heat_result *r);
void report_table(const heat_opts *o, const heat_result *r);

#endif
