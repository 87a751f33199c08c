/* A 2-D heat equation on NX x NY cells whose cost varies in space (a heavy
 * disc that crosses the grid), decomposed in 2-D by the geometric balancer
 * (ballast/rebalance_geo.h). Shared declarations of the example:
 *   cells.c  the items: this rank's cells, and the balancer's callbacks
 *   halo.c   who owns which cell, the halo plan and exchange, the stencil
 *   main.c   options, the time loop, the per-step table, the checksum */
#ifndef HEAT_GEO_H
#define HEAT_GEO_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep */
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <mpi.h>

/* The problem, the same on every rank. */
typedef struct problem {
  int nx, ny;
  int steps;
  double heavy;     /* cost of a cell inside the disc (outside: 1) */
  double radius;    /* of the disc, in cells */
  double cell_time; /* seconds of (emulated) work per unit of cost */
} problem;

/* This rank's cells: global index (x fastest) and temperature. */
typedef struct cells {
  int64_t n, cap;
  int64_t *gid;
  double *u;
  const problem *pb;
  int step; /* where the disc is, for the weights callback */
} cells;

/* The halo: owner of every cell (replicated), the cells this rank sends
 * to and receives from each rank (ascending global index on both sides),
 * and a global-size array holding this rank's and its halo's values. */
typedef struct halo {
  int rank, size;
  int *owner;           /* nx * ny */
  double *val;          /* nx * ny: values of own and halo cells */
  int npeer;
  int *peer;            /* ranks exchanged with */
  int64_t *send_off, *recv_off; /* npeer + 1 each, into send/recv */
  int64_t *send, *recv; /* global indices */
  double *sbuf, *rbuf;
  MPI_Request *req;
} halo;

/* cells.c */
double cell_cost(const problem *pb, int step, int64_t gid);
int cells_reserve(cells *c, int64_t n);
struct bal_rebalance_geo_callbacks;
void cells_callbacks(cells *c, bool given_weights, struct bal_rebalance_geo_callbacks *cb);

/* halo.c */
int halo_init(halo *h, const problem *pb, MPI_Comm comm);
/* After the cells moved (or at the start): owners, plan. Collective. */
int halo_rebuild(halo *h, const problem *pb, const cells *c, MPI_Comm comm);
/* Exchange halo values; returns the values this rank sent. Collective
 * among peers. */
int64_t halo_exchange(halo *h, const cells *c, MPI_Comm comm);
/* One explicit diffusion step on this rank's cells. */
void halo_diffuse(halo *h, const problem *pb, cells *c);
void halo_free(halo *h);

/* A monotonic clock and absolute sleeps (sleep-mode cost emulation). */
static inline double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static inline void sleep_until(double when) {
#ifdef BALLAST_SMPI
  /* The SMPI build (bench/rebalance/heat_geo_smpi.sh): every rank is a
   * thread of one simulator, clock_gettime above reads the simulated clock
   * (smpicc maps it to smpi_clock_gettime) but clock_nanosleep would block
   * the real thread without advancing simulated time. The cell work is
   * charged as simulated computation instead: smpi_execute(s) runs s *
   * smpi/host-speed flops on this rank's simulated core, so the rank is
   * busy for s simulated seconds (the CPU time the real code spends is not
   * counted: smpi/simulate-computation:no). */
  double left = when - now_s();
  if (left > 0) smpi_execute(left);
#else
  struct timespec t;
  t.tv_sec = (time_t)when;
  t.tv_nsec = (long)((when - (double)t.tv_sec) * 1e9);
  if (t.tv_nsec >= 1000000000L) t.tv_nsec = 999999999L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
  }
#endif
}

#endif
