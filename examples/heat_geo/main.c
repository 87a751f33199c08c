/* heat_geo: a 2-D heat equation whose cells cost more inside a disc that
 * crosses the grid, balanced live by the geometric balancer
 * (ballast/rebalance_geo.h) with any partition method, or not at all.
 * The work of a cell is emulated by sleeping (--cell-time seconds per unit
 * of cost), so that 4-16 ranks on a few cores measure the balancer rather
 * than CPU contention. Every step prints the load balance of the compute
 * times (avg/max over ranks) and the halo traffic; the checksum at the end
 * does not depend on the method or the number of ranks.
 *
 * Build (installed Ballast): mpicc *.c $(pkg-config --cflags --libs ballast)
 * Run: mpiexec -n 8 ./heat_geo --method rcb [--weights given] [--csv|--json]
 *      --method none keeps the initial (uniform "rcb") boxes. --help lists
 *      the options. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep (heat_geo.h) */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_geo.h>

#include "heat_geo.h"

typedef struct opts {
  problem pb;
  const char *method; /* a partition method, or "none" */
  bool given;         /* weights: the cells' costs (else measured) */
  bool csv, json;
  const char *owners; /* file for the owner snapshots (rank 0), or NULL */
  int owners_every;
  long interval; /* iterations between the balancer's interactions; 0 automatic */
} opts;

static int usage(const char *msg, const char *arg) {
  fprintf(stderr, "heat_geo: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  return 0;
}

static void help(void) {
  printf("usage: heat_geo [options]\n"
         "  --method NAME     partition method (");
  for (int i = 0; bal_partition_method_name(i); i++) printf("%s, ", bal_partition_method_name(i));
  printf("none); default rcb\n"
         "  --weights KIND    measured (default: the measured rate spread over a rank's\n"
         "                    cells) or given (each cell's cost)\n"
         "  --nx N, --ny N    grid (default 128 x 96)\n"
         "  --steps N         time steps (default 200)\n"
         "  --heavy C         cost of a cell in the disc (default 8; others 1)\n"
         "  --radius R        disc radius in cells (default 16)\n"
         "  --cell-time S     seconds of emulated work per unit of cost (default 2e-6)\n"
         "  --csv             one CSV row per step on stdout, then a summary row\n"
         "  --json            one JSON object: the parameters and the summary\n"
         "  --owners FILE     rank 0 writes every cell's owner every --owners-every\n"
         "                    steps (x y owner cost, blocks for gnuplot's index)\n"
         "  --owners-every N  default 50\n"
         "  --interval N      iterations between the balancer's decisions (default 0:\n"
         "                    the automatic period)\n");
}

static bool parse_long(const char *flag, const char *v, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || *end || end == v || x < lo || x > hi) return usage("bad value for", flag);
  *out = x;
  return true;
}

static bool parse_pos(const char *flag, const char *v, double *out) {
  char *end;
  double x = strtod(v, &end);
  if (*end || end == v || !isfinite(x) || x <= 0) return usage("bad value for", flag);
  *out = x;
  return true;
}

static bool parse(int argc, char **argv, opts *o) {
  *o = (opts){.pb = {128, 96, 200, 8.0, 16.0, 2e-6}, .method = "rcb", .owners_every = 50};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--csv")) { o->csv = true; continue; }
    if (!strcmp(a, "--json")) { o->json = true; continue; }
    if (i + 1 >= argc) return usage("unknown option or missing value", a);
    const char *v = argv[++i];
    long x;
    if (!strcmp(a, "--method")) {
      bool known = !strcmp(v, "none");
      for (int m = 0; bal_partition_method_name(m); m++)
        known |= !strcmp(v, bal_partition_method_name(m));
      if (!known) return usage("unknown --method", v);
      o->method = v;
    } else if (!strcmp(a, "--weights")) {
      if (strcmp(v, "measured") && strcmp(v, "given")) return usage("bad value for", a);
      o->given = !strcmp(v, "given");
    } else if (!strcmp(a, "--nx") || !strcmp(a, "--ny")) {
      if (!parse_long(a, v, 2, 4096, &x)) return false;
      *(a[3] == 'x' ? &o->pb.nx : &o->pb.ny) = (int)x;
    } else if (!strcmp(a, "--steps")) {
      if (!parse_long(a, v, 1, 1000000, &x)) return false;
      o->pb.steps = (int)x;
    } else if (!strcmp(a, "--interval")) {
      if (!parse_long(a, v, 0, 1000000, &o->interval)) return false;
    } else if (!strcmp(a, "--owners-every")) {
      if (!parse_long(a, v, 1, 1000000, &x)) return false;
      o->owners_every = (int)x;
    } else if (!strcmp(a, "--heavy")) {
      if (!parse_pos(a, v, &o->pb.heavy)) return false;
    } else if (!strcmp(a, "--radius")) {
      if (!parse_pos(a, v, &o->pb.radius)) return false;
    } else if (!strcmp(a, "--cell-time")) {
      if (!parse_pos(a, v, &o->pb.cell_time)) return false;
    } else if (!strcmp(a, "--owners")) {
      o->owners = v;
    } else {
      return usage("unknown option", a);
    }
  }
  if (2.0 * o->pb.radius >= o->pb.nx || 2.0 * o->pb.radius >= o->pb.ny)
    return usage("the disc must fit the grid (2 --radius < --nx, --ny)", NULL);
  if (o->csv && o->json) return usage("--csv and --json exclude each other", NULL);
  return true;
}

/* Rank 0 appends every cell's owner and cost at this step (a gnuplot block). */
static void write_owners(FILE *f, const opts *o, const halo *h, int step) {
  fprintf(f, "# step %d\n", step);
  for (int y = 0; y < o->pb.ny; y++) {
    for (int x = 0; x < o->pb.nx; x++) {
      int64_t g = (int64_t)y * o->pb.nx + x;
      fprintf(f, "%d %d %d %g\n", x, y, h->owner[g], cell_cost(&o->pb, step, g));
    }
    fprintf(f, "\n");
  }
  fprintf(f, "\n");
}

/* The sum of all temperatures in global order on rank 0 (the same bits
 * whatever the decomposition). */
static double checksum(const opts *o, const cells *c, MPI_Comm comm, int rank, int size) {
  int64_t ncell = (int64_t)o->pb.nx * o->pb.ny;
  int mine = (int)c->n, *cnt = malloc((size_t)size * sizeof *cnt),
      *dsp = malloc((size_t)size * sizeof *dsp);
  int64_t *gid = malloc((size_t)ncell * sizeof *gid);
  double *u = malloc((size_t)ncell * sizeof *u), *all = malloc((size_t)ncell * sizeof *all);
  double sum = 0.0;
  if (!cnt || !dsp || !gid || !u || !all) MPI_Abort(comm, 1);
  MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
  for (int r = 0, at = 0; rank == 0 && r < size; r++) {
    dsp[r] = at;
    at += cnt[r];
  }
  MPI_Gatherv(c->gid, mine, MPI_INT64_T, gid, cnt, dsp, MPI_INT64_T, 0, comm);
  MPI_Gatherv(c->u, mine, MPI_DOUBLE, u, cnt, dsp, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    for (int64_t i = 0; i < ncell; i++) all[gid[i]] = u[i];
    for (int64_t i = 0; i < ncell; i++) sum += all[i];
  }
  free(cnt);
  free(dsp);
  free(gid);
  free(u);
  free(all);
  return sum;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help")) {
      help();
      return 0;
    }
  opts o;
  if (!parse(argc, argv, &o)) return 2;
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const problem *pb = &o.pb;
  int64_t ncell = (int64_t)pb->nx * pb->ny;
  if (ncell < size) {
    if (rank == 0) fprintf(stderr, "heat_geo: fewer cells than ranks\n");
    MPI_Finalize();
    return 2;
  }

  /* rows of cells dealt in order, then an initial uniform partition */
  cells c = {.pb = pb};
  int64_t lo = ncell * rank / size, hi = ncell * (rank + 1) / size;
  if (cells_reserve(&c, hi - lo)) MPI_Abort(comm, 1);
  for (int64_t g = lo; g < hi; g++) {
    int64_t x = g % pb->nx, y = g / pb->nx;
    c.gid[c.n] = g;
    c.u[c.n++] = (double)((x * 7 + y * 13) % 17) / 17.0;
  }
  bool balance = strcmp(o.method, "none") != 0;
  bal_rebalance_geo_config cfg;
  bal_rebalance_geo_config_init(&cfg);
  cfg.dim = 2;
  cfg.hi[0] = pb->nx;
  cfg.hi[1] = pb->ny;
  cfg.partition.method = balance ? o.method : "rcb";
  cfg.measure.interval = o.interval;
#ifdef BALLAST_SMPI
  /* SimGrid SMPI implements MPI_Iallgather linearly (every rank sends to
   * every rank, then waits on 2P requests): at 256 simulated ranks the
   * pipelined exchange of measurements made each step cost minutes of
   * simulation. The blocking exchange runs SMPI's selected MPI_Allgather
   * (bruck in bench/rebalance/heat_geo_smpi.sh); decisions then act on
   * this step's measurements rather than one iteration late. */
  cfg.measure.pipelined = false;
#endif
  bal_rebalance_geo_callbacks cb;
  cells_callbacks(&c, false, &cb); /* unit weights for the uniform start */
  bal_rebalance_geo *g = NULL;
  int rc = bal_rebalance_geo_create(comm, &cfg, &cb, &g);
  if (rc == BAL_OK) rc = bal_rebalance_geo_partition(g, NULL);
  bal_rebalance_geo_destroy(g);
  g = NULL;
  if (rc == BAL_OK && balance) {
    cells_callbacks(&c, o.given, &cb);
    rc = bal_rebalance_geo_create(comm, &cfg, &cb, &g);
  }
  if (rc != BAL_OK) {
    if (rank == 0) fprintf(stderr, "heat_geo: %s\n", bal_strerror(rc));
    MPI_Abort(comm, 1);
  }
  halo h;
  if (halo_init(&h, pb, comm) || halo_rebuild(&h, pb, &c, comm)) MPI_Abort(comm, 1);
  FILE *of = NULL;
  if (o.owners && rank == 0 && !(of = fopen(o.owners, "w"))) {
    fprintf(stderr, "heat_geo: cannot write %s\n", o.owners);
    MPI_Abort(comm, 1);
  }

  /* step_ms: the balancer's step of the row before (see the loop) */
  if (rank == 0 && o.csv) printf("step,efficiency,halo_values,moved,prev_step_ms,iter_ms\n");
  if (rank == 0 && !o.csv && !o.json)
    printf("%5s %10s %11s %7s %9s %9s\n", "step", "avg/max", "halo", "moved", "prev step",
           "iter ms");
  double sum_avg = 0, sum_max = 0, halo_total = 0, quiet_step = 0, quiet_iter = 0;
  double step_prev = 0, iter_prev = 0;
  int64_t moved_total = 0, quiet_n = 0;
  bool moved_prev = false;
  double t_run = now_s();
  for (int s = 0; s < pb->steps; s++) {
    c.step = s;
    double t_it = now_s();
    int64_t sent = halo_exchange(&h, &c, comm);
    double t0 = now_s(), work = 0.0;
    halo_diffuse(&h, pb, &c);
    for (int64_t i = 0; i < c.n; i++) work += cell_cost(pb, s, c.gid[i]);
    sleep_until(t0 + work * pb->cell_time);
    double compute = now_s() - t0;
    /* The figures of this step, reduced before the balancer's step: the
     * ranks leave this reduction together, so the time the step takes is
     * its own cost, not a wait for the slowest rank's computation (which
     * its pipelined exchange would otherwise absorb). The step's time is
     * reported with the next step's figures. */
    double in[3] = {compute, step_prev, (double)sent}, mx[3], sm[3];
    MPI_Allreduce(in, mx, 3, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(in, sm, 3, MPI_DOUBLE, MPI_SUM, comm);
    int64_t moved = 0;
    if (balance) {
      bal_rebalance_stats before, after;
      bal_rebalance_geo_stats_get(g, &before);
      double ts = now_s();
      rc = bal_rebalance_geo_step(g, compute, NULL);
      step_prev = now_s() - ts;
      if (rc != BAL_OK) {
        if (rank == 0) fprintf(stderr, "heat_geo: step %d: %s\n", s, bal_strerror(rc));
        MPI_Abort(comm, 1);
      }
      bal_rebalance_geo_stats_get(g, &after); /* global counts: the same on every rank */
      moved = after.items_moved - before.items_moved;
      if (after.rebalances > before.rebalances && halo_rebuild(&h, pb, &c, comm))
        MPI_Abort(comm, 1);
    }
    double iter = now_s() - t_it, eff = mx[0] > 0 ? sm[0] / size / mx[0] : 1.0;
    double hsum = sm[2];
    sum_avg += sm[0] / size;
    sum_max += mx[0];
    halo_total += hsum;
    moved_total += moved;
    if (s > 0 && !moved_prev) { /* the step before moved nothing: its cost */
      quiet_step += mx[1];
      quiet_iter += iter_prev;
      quiet_n++;
    }
    moved_prev = moved > 0;
    iter_prev = iter;
    if (of && s % o.owners_every == 0) write_owners(of, &o, &h, s);
    if (rank == 0 && o.csv)
      printf("%d,%.4f,%.0f,%lld,%.3f,%.3f\n", s, eff, hsum, (long long)moved, 1e3 * mx[1],
             1e3 * iter);
    else if (rank == 0 && !o.json && (s % 10 == 0 || s == pb->steps - 1))
      printf("%5d %10.3f %11.0f %7lld %9.3f %9.3f\n", s, eff, hsum, (long long)moved,
             1e3 * mx[1], 1e3 * iter);
  }
  double wall = now_s() - t_run;
  double sum = checksum(&o, &c, comm, rank, size);
  bal_rebalance_stats st = {0};
  if (balance) bal_rebalance_geo_stats_get(g, &st);
  if (rank == 0) {
    double eff = sum_avg / sum_max, frac = quiet_n && quiet_iter > 0 ? quiet_step / quiet_iter : 0;
    if (o.json)
      printf("{\"method\":\"%s\",\"weights\":\"%s\",\"ranks\":%d,\"nx\":%d,\"ny\":%d,"
             "\"steps\":%d,\"heavy\":%g,\"radius\":%g,\"cell_time\":%g,\"interval\":%ld,"
             "\"efficiency\":%.4f,"
             "\"halo_per_step\":%.1f,\"moved\":%lld,\"rebalances\":%lld,"
             "\"quiet_step_fraction\":%.5f,\"wall_s\":%.3f,\"checksum\":\"%a\"}\n",
             o.method, o.given ? "given" : "measured", size, pb->nx, pb->ny, pb->steps,
             pb->heavy, pb->radius, pb->cell_time, o.interval, eff, halo_total / pb->steps,
             (long long)moved_total, (long long)st.rebalances, frac, wall, sum);
    else
      printf("%smethod %s weights %s ranks %d: efficiency %.3f, halo %.1f values/step, "
             "moved %lld cells in %lld rebalances, step cost when nothing moved %.2f%% of an "
             "iteration, wall %.2f s, checksum %a\n",
             o.csv ? "# " : "", o.method, o.given ? "given" : "measured", size, eff,
             halo_total / pb->steps, (long long)moved_total, (long long)st.rebalances,
             100 * frac, wall, sum);
  }
  if (of) fclose(of);
  halo_free(&h);
  bal_rebalance_geo_destroy(g);
  free(c.gid);
  free(c.u);
  MPI_Finalize();
  return 0;
}
