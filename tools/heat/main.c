/* ballast-heat: 2-D Jacobi heat diffusion over MPI, rows balanced by
 * bal_rebalance against an artificial competing load ([Siegell 1997]).
 *
 * Efficiency ([Siegell 1997] §3): productive time / available time, where
 *   productive = the sequential time on one dedicated processor
 *              = iterations x the dedicated time of one sweep over all ny
 *                rows (sleep mode: ny x --row-time, the emulated cost;
 *                compute mode: rank 0's fastest of 5 timed sweeps of its
 *                initial rows, scaled to ny rows, measured before the run
 *                while the other ranks sleep);
 *   available  = P x elapsed - sum over ranks of the CPU time the
 *                competing load took while the run lasted
 *                ((1 - 1/slowdown) x the time it was on).
 * elapsed is the longest rank's time from a common barrier to its last
 * sweep. A sweep that ends after its deadline (a late wake-up) loses that
 * time: it is in elapsed, not in productive; each rank's total is reported
 * (late_s), so that tools measuring time outside MPI (ballast pop) can be
 * compared (docs/pop.md). "After the first rebalance" applies the same formula to the
 * sweeps that follow the iteration of the first migration. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/ballast.h>

#include "common/cli.h"
#include "common/launch.h"
#include "core/clock.h"
#include "heat.h"

typedef struct timing_arg {
  heat_grid *g;
  heat_halo *h;
} timing_arg;

/* One sweep whose result is thrown away: swap twice, u is unchanged. */
static void timed_sweep(void *arg) {
  timing_arg *a = arg;
  grid_sweep(a->g, a->h);
  double *t = a->g->u;
  a->g->u = a->g->v;
  a->g->v = t;
}

static double sequential_sweep(const heat_opts *o, heat_grid *g, heat_halo *h, int rank) {
  if (o->work == WORK_SLEEP) return (double)o->ny * o->row_s;
  double t = 0;
  if (rank == 0) {
    timing_arg a = {g, h};
    double best = 0;
    if (g->n > 0 && bal_rebalance_time_min(timed_sweep, &a, 5, &best) == BAL_OK)
      t = best / (double)g->n * (double)o->ny;
  }
  MPI_Request req;
  MPI_Ibcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req);
  heat_wait(1, &req, 1e-3);
  return t;
}

static int setup_config(const heat_opts *o, bal_rebalance_config *cfg) {
  bal_rebalance_config_init(cfg);
  cfg->balancer = o->balancer;
  if (!o->filter) cfg->filter = BAL_REBALANCE_FILTER_NONE;
  cfg->threshold = o->threshold ? o->threshold_value : 0.0;
  cfg->profitability = o->profitability;
  cfg->interval = o->interval;
  return 0;
}

int main(int argc, char **argv) {
  heat_opts o;
  launch_mute_begin(); /* under mpirun, rank 0 alone prints a usage error */
  int prc = heat_parse(argc, argv, &o);
  launch_mute_end();
  if (prc != CLI_CONTINUE) return prc;
  const launch_job job = {HEAT_PROG, BALLAST_MPIEXEC, BALLAST_MPIEXEC_OVERSUBSCRIBE};
  int lrc = launch_ranks(&job, argc, argv, o.ranks);
  if (lrc != LAUNCH_HERE) return lrc;

  int rank, p;
  MPI_Init(&argc, &argv); /* the balancer needs no thread support */
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  int bad = launch_check_size(HEAT_PROG, o.ranks, p, rank) != 0;
  heat_load load = {o.load, o.slowdown, o.load_period, o.load_duty, 0, false};
  for (int k = 0; k < o.nloaded && !bad; k++) {
    if (o.loaded[k] >= p) {
      if (rank == 0)
        fprintf(stderr, HEAT_PROG ": --loaded-ranks: rank %d does not exist (%d ranks)\n",
                o.loaded[k], p);
      bad = 1;
    }
    if (o.loaded[k] == rank) load.here = true;
  }
  if (bad) {
    MPI_Finalize();
    return 2;
  }
  /* The rank whose view is traced: the first loaded one. */
  int observed = o.load != LOAD_NONE ? o.loaded[0] : 0;

  heat_grid g;
  heat_halo h;
  memset(&h, 0, sizeof h);
  int64_t first = o.ny * rank / p, last = o.ny * (rank + 1) / p;
  if (grid_init(&g, o.nx, o.ny, first, last - first, o.seed) || halo_build(&h, &g, MPI_COMM_WORLD)) {
    fprintf(stderr, HEAT_PROG ": rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double t_seq_iter = sequential_sweep(&o, &g, &h, rank);

  bal_rebalance *rb = NULL;
  bal_rebalance_callbacks cb = grid_callbacks(&g);
  if (!o.balancer_off) {
    bal_rebalance_config cfg;
    setup_config(&o, &cfg);
    int rc = bal_rebalance_create(MPI_COMM_WORLD, &cfg, &cb, &rb);
    if (rc != BAL_OK) {
      if (rank == 0) fprintf(stderr, HEAT_PROG ": bal_rebalance_create: %s\n", bal_strerror(rc));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }

  heat_trace tr = {0};
  long long last_inter = 0, last_reb = 0, first_reb = -1;
  long long trace_every = o.iterations / 500 > 0 ? o.iterations / 500 : 1, win_rows = 0;
  double win_s = 0, t_first = 0, late_s = 0;
  bal_rebalance_stats st;
  memset(&st, 0, sizeof st);
  int error = 0;

  MPI_Request breq;
  MPI_Ibarrier(MPI_COMM_WORLD, &breq);
  heat_wait(1, &breq, o.poll_s);
  double t0 = bal__now_s();
  load.t0 = t0;
  if (rank == observed) { /* the initial allocation; no rate measured yet */
    heat_sample s = {0, -1, g.n, 0, NAN, NAN, load_active(&load, t0), 0};
    if (trace_add(&tr, &s)) error = 1;
  }
  for (long long it = 0; it < o.iterations; it++) {
    if (halo_exchange(&h, &g, MPI_COMM_WORLD, o.poll_s) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 1);
    double start = bal__now_s();
    grid_sweep(&g, &h);
    double work = o.work == WORK_SLEEP ? (double)g.n * o.row_s : bal__now_s() - start;
    double finish = load_finish(&load, start, work);
    bal__sleep_until_ns((int64_t)(finish * 1e9));
    double end = bal__now_s(), compute_s = end - start;
    if (end > finish) late_s += end - finish; /* lost time, for the efficiency */
    int64_t rows = g.n;
    if (rb) {
      int rc = bal_rebalance_step(rb, compute_s, (int64_t)rows, NULL);
      if (rc != BAL_OK) { /* collective: every rank stops here */
        if (rank == 0) fprintf(stderr, HEAT_PROG ": bal_rebalance_step: %s\n", bal_strerror(rc));
        if (rc == BAL_EMPI) MPI_Abort(MPI_COMM_WORLD, 1);
        error = 1;
        break;
      }
      bal_rebalance_stats_get(rb, &st);
      if (st.rebalances != last_reb) { /* rows moved somewhere: re-plan the halo everywhere */
        last_reb = st.rebalances;
        if (halo_build(&h, &g, MPI_COMM_WORLD)) MPI_Abort(MPI_COMM_WORLD, 1);
        if (first_reb < 0) {
          first_reb = it;
          t_first = bal__now_s();
        }
      }
      if (rank == observed && st.interactions != last_inter) {
        last_inter = st.interactions;
        heat_sample s = {end - t0, it, g.n, st.rebalances, st.rate_raw, st.rate,
                         load_active(&load, end), st.filter_state};
        if (trace_add(&tr, &s)) error = 1;
      }
    } else if (rank == observed) { /* no balancer: sample the rate ourselves */
      win_rows += rows;
      win_s += compute_s;
      if ((it + 1) % trace_every == 0) {
        double r = win_s > 0 ? (double)win_rows / win_s : 0;
        heat_sample s = {end - t0, it, g.n, 0, r, r, load_active(&load, end), 0};
        if (trace_add(&tr, &s)) error = 1;
        win_rows = 0;
        win_s = 0;
      }
    }
  }
  double t_end = bal__now_s();
  if (rank == observed) { /* the final allocation, so that the last step is drawn to the end */
    heat_sample s = {t_end - t0, o.iterations - 1, g.n, st.rebalances, NAN, NAN,
                     load_active(&load, t_end), st.filter_state};
    if (trace_add(&tr, &s)) error = 1;
  }

  /* ---- results ---- */
  heat_result r;
  memset(&r, 0, sizeof r);
  r.ranks = p;
  r.observed_rank = observed;
  r.t_seq_iter = t_seq_iter;
  r.first_rebalance_iter = first_reb;
  double mine[3] = {t_end - t0, first_reb >= 0 ? t_end - t_first : 0, st.migrate_s}, mx[3];
  MPI_Allreduce(mine, mx, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double comp[2] = {load_compete(&load, t0, t_end), first_reb >= 0 ? load_compete(&load, t_first, t_end) : 0};
  double csum[2];
  MPI_Allreduce(comp, csum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  r.elapsed_s = mx[0];
  r.after_elapsed_s = mx[1];
  r.migrate_s_max = mx[2];
  r.compete_s = csum[0];
  r.after_compete_s = csum[1];
  double avail = p * r.elapsed_s - r.compete_s;
  r.efficiency = avail > 0 ? t_seq_iter * (double)o.iterations / avail : 0;
  double avail_after = p * r.after_elapsed_s - r.after_compete_s;
  r.efficiency_after = first_reb >= 0 && avail_after > 0
                           ? t_seq_iter * (double)(o.iterations - first_reb - 1) / avail_after
                           : 0;
  long long bytes = (long long)st.bytes_sent, bytes_all = 0;
  MPI_Reduce(&bytes, &bytes_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  r.bytes_moved = bytes_all;
  r.rebalances = st.rebalances;
  r.interactions = st.interactions;
  r.skipped_threshold = st.skipped_threshold;
  r.skipped_profit = st.skipped_profit;
  r.items_moved = st.items_moved;
  uint64_t hash = grid_hash(&g), hash_all = 0;
  MPI_Reduce(&hash, &hash_all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  r.hash = hash_all;
  double sum = grid_sum(&g), sum_all = 0;
  MPI_Reduce(&sum, &sum_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  r.mean_temperature = sum_all / ((double)o.nx * (double)o.ny);
  r.final_rows = calloc((size_t)p, sizeof *r.final_rows);
  MPI_Gather(&g.n, 1, MPI_INT64_T, r.final_rows, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  r.late_s = calloc((size_t)p, sizeof *r.late_s);
  MPI_Gather(&late_s, 1, MPI_DOUBLE, r.late_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  if (rank == observed) {
    if (o.trace && !trace_write_csv(&tr, o.trace)) error = 1;
    if (o.plot && !trace_plot(&tr, &o, o.plot, rank)) error = 1;
  }
  int any_error = 0;
  MPI_Allreduce(&error, &any_error, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any_error) {
    if (o.json)
      report_json(&o, &r);
    else
      report_table(&o, &r);
  }
  free(r.final_rows);
  free(r.late_s);
  free(tr.s);
  bal_rebalance_destroy(rb);
  halo_free(&h);
  grid_free(&g);
  MPI_Finalize();
  return any_error ? 1 : 0;
}
