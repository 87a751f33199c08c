/* bench_partition: bal_partition_compute() against Zoltan's RCB on the
 * same items (docs/BENCHMARKS.md, "partition: against Zoltan RCB on 10⁶
 * cells"), and Zoltan's Hilbert curve (HSFC) beside them: the curve
 * partitioner of the library Ballast's curves are compared with. For the
 * grid fields of fields.h (cells as points at their centres, with
 * weights) and clustered points, at each --parts:
 *   - load imbalance (max/avg) of every Ballast method and of Zoltan RCB
 *     and HSFC;
 *   - halo as a ratio to Zoltan RCB's: cut faces of the grid
 *     (bal_partition_grid_quality), for points those with a point of
 *     another part within the tool's default cutoff (tools/partition);
 *   - time, median of --reps calls, and Zoltan's median over it (> 1:
 *     Ballast faster). Zoltan's time is Zoltan_LB_Partition alone
 *     (Zoltan_Create and the parameters excluded), coordinates and
 *     weights handed over through its callbacks included; Ballast's is
 *     bal_partition_compute() without a result handle;
 * and, on every grid field, the items moved when the field moves by 1% of
 * the width (fields.h; --moved-only prints only this table): incremental
 * (the defaults: boundaries moved from the current ones, REMAP) against a
 * fresh partition (REMAP too, so the fresh one is not charged for its
 * labels).
 * --tolerance sets Ballast's bal_partition_config.tolerance (0: the
 * curves' best-balanced cuts, the baseline of their compact pieces).
 * All on one rank (MPI_COMM_SELF), one thread. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/partition.h>

#include "common/cli.h"
#include "core/clock.h"
#include "fields.h"
#include "partition/partition_tool.h"
#include "zoltan_geom.h"

#define PROG "bench_partition"
#define MAX_LIST 16

typedef struct opts {
  int64_t nx, ny, points, reps;
  int nparts;
  int parts[MAX_LIST];
  int nmethods;
  const char *methods[MAX_LIST]; /* bal_partition_method_name()s */
  uint64_t seed;
  double tol;
  double tolerance; /* bal_partition_config.tolerance of Ballast's calls */
  bool moved_only; /* only the items-moved table */
} opts;

/* The items of one run: coordinates, weights, domain; and a grid's shape. */
typedef struct items {
  part_field f;
  double lo[3], hi[3];
  double *coords; /* cell centres for a grid, f.coord for points */
} items;

static bool parse_parts(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  char buf[512];
  if (strlen(v) >= sizeof buf) return snprintf(err, n, "list too long"), false;
  strcpy(buf, v);
  o->nparts = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    int64_t p;
    if (o->nparts == MAX_LIST) return snprintf(err, n, "more than %d entries", MAX_LIST), false;
    if (!cli_int_text(t, 1, BAL_PARTITION_MAX_PARTS, &p, err, n)) return false;
    o->parts[o->nparts++] = (int)p;
  }
  if (o->nparts == 0) return snprintf(err, n, "empty list"), false;
  return true;
}

static bool parse_methods(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  char buf[512];
  if (strlen(v) >= sizeof buf) return snprintf(err, n, "list too long"), false;
  strcpy(buf, v);
  o->nmethods = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    const char *name = NULL;
    for (int m = 0; bal_partition_method_name(m) && !name; m++)
      if (strcmp(t, bal_partition_method_name(m)) == 0) name = bal_partition_method_name(m);
    if (!name) return snprintf(err, n, "unknown method '%s'", t), false;
    if (o->nmethods == MAX_LIST) return snprintf(err, n, "more than %d entries", MAX_LIST), false;
    o->methods[o->nmethods++] = name;
  }
  if (o->nmethods == 0) return snprintf(err, n, "empty list"), false;
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *t, int64_t n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Figures of one assignment. */
typedef struct figures {
  double imbalance, seconds;
  int64_t halo;
  int neighbors_max;
} figures;

static bool measure(const items *it, int parts, const int *part, figures *fig) {
  if (it->f.grid) {
    bal_partition_quality q;
    int rc = bal_partition_grid_quality(2, it->f.n, it->f.items, it->f.weight, parts, part, &q);
    if (rc != BAL_OK) return fprintf(stderr, PROG ": grid quality: %s\n", bal_strerror(rc)), false;
    fig->imbalance = q.imbalance;
    fig->halo = q.halo_faces;
    fig->neighbors_max = q.neighbors_max;
    return true;
  }
  part_result r = {.part = (int *)part};
  if (!part_points_halo(&it->f, parts, 0.0, &r)) return false;
  double *sum = calloc((size_t)parts, sizeof *sum), total = 0, max = 0;
  if (!sum) return false;
  for (int64_t i = 0; i < it->f.items; i++) {
    sum[part[i]] += it->f.weight[i];
    total += it->f.weight[i];
  }
  for (int k = 0; k < parts; k++) max = fmax(max, sum[k]);
  free(sum);
  fig->imbalance = max / (total / parts);
  fig->halo = r.halo;
  fig->neighbors_max = r.neighbors_max;
  return true;
}

static bool run_ballast(const opts *o, const items *it, const char *method, int parts, int *part,
                        figures *fig) {
  bal_partition_input in = {.dim = 2, .n = it->f.items, .coords = it->coords,
                            .weights = it->f.weight};
  memcpy(in.lo, it->lo, sizeof in.lo);
  memcpy(in.hi, it->hi, sizeof in.hi);
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.method = method;
  cfg.parts = parts;
  cfg.tolerance = o->tolerance;
  double t[64];
  for (int64_t r = 0; r < o->reps; r++) {
    int64_t t0 = bal__now_ns();
    int rc = bal_partition_compute(&in, &cfg, NULL, part, NULL);
    t[r] = (double)(bal__now_ns() - t0) * 1e-9;
    if (rc != BAL_OK)
      return fprintf(stderr, PROG ": %s, %d parts: %s\n", method, parts, bal_strerror(rc)), false;
  }
  fig->seconds = median(t, o->reps);
  return measure(it, parts, part, fig);
}

/* Zoltan's LB_METHOD `method` ("RCB", "HSFC") on the items. */
static bool run_zoltan(const opts *o, const items *it, const char *method, int parts, int *part,
                       figures *fig) {
  zgeom *z = zgeom_create(MPI_COMM_SELF, method, it->f.items, 2, it->coords, it->f.weight, parts,
                          o->tol);
  if (!z) return fprintf(stderr, PROG ": Zoltan %s set-up failed\n", method), false;
  double t[64];
  bool ok = true;
  for (int64_t r = 0; ok && r < o->reps; r++) ok = zgeom_run(z, part, &t[r]) == 0;
  zgeom_destroy(z);
  if (!ok) return fprintf(stderr, PROG ": Zoltan %s failed (%d parts)\n", method, parts), false;
  fig->seconds = median(t, o->reps);
  return measure(it, parts, part, fig);
}

static void row(const char *field, int parts, const char *method, const figures *f,
                const figures *z) {
  double halo_ratio = z->halo > 0 ? (double)f->halo / (double)z->halo : NAN;
  double speed = z->seconds / f->seconds;
  printf("%-9s %5d %-11s %9.4f %9lld %7.3f %4d %10.4f %7.2f\n", field, parts, method,
         f->imbalance, (long long)f->halo, halo_ratio, f->neighbors_max, f->seconds, speed);
}

/* Every method and Zoltan on one set of items, at every --parts; ratios
 * (halo, speed) to Zoltan RCB's. */
static bool quality(const opts *o, const items *it, const char *field, int *part) {
  for (int pi = 0; pi < o->nparts; pi++) {
    int parts = o->parts[pi];
    figures z, h, b;
    if (!run_zoltan(o, it, "RCB", parts, part, &z)) return false;
    row(field, parts, "zoltan-rcb", &z, &z);
    if (!run_zoltan(o, it, "HSFC", parts, part, &h)) return false;
    row(field, parts, "zoltan-hsfc", &h, &z);
    for (int m = 0; m < o->nmethods; m++) {
      if (!run_ballast(o, it, o->methods[m], parts, part, &b)) return false;
      row(field, parts, o->methods[m], &b, &z);
    }
    fflush(stdout);
  }
  return true;
}

static bool grid_items(const opts *o, items *it) {
  memset(it, 0, sizeof *it);
  it->f = (part_field){.grid = true, .dims = 2, .n = {o->nx, o->ny, 1}, .items = o->nx * o->ny};
  it->f.weight = malloc((size_t)it->f.items * sizeof(double));
  it->coords = malloc((size_t)it->f.items * 2 * sizeof(double));
  if (!it->f.weight || !it->coords) return false;
  for (int64_t y = 0, i = 0; y < o->ny; y++)
    for (int64_t x = 0; x < o->nx; x++, i++) {
      it->coords[2 * i] = (double)x + 0.5;
      it->coords[2 * i + 1] = (double)y + 0.5;
    }
  part_domain(&it->f, it->lo, it->hi);
  return true;
}

/* Items moved when every field moves by 1% of the width (fields.h). */
static bool moved(const opts *o, items *it, int *part) {
  int64_t n = it->f.items;
  int *old = malloc((size_t)n * sizeof *old), *fresh = malloc((size_t)n * sizeof *fresh);
  double *w2 = malloc((size_t)n * sizeof *w2), *w1 = it->f.weight;
  bool ok = old && fresh && w2;
  printf("\nfield moved by 1%% of the width: items moved, incremental vs fresh (both REMAP)\n"
         "%-9s %5s %-10s %10s %10s %7s %11s %11s\n", "field", "parts", "method", "incr", "fresh",
         "ratio", "incr imb", "fresh imb");
  for (int fk = 0; ok && field_name(fk); fk++) {
    field_fill((field_kind)fk, o->nx, o->ny, 0.5, 0.5, o->seed, w1);
    field_fill((field_kind)fk, o->nx, o->ny, 0.51, 0.5, o->seed, w2);
    for (int pi = 0; ok && pi < o->nparts; pi++)
      for (int m = 0; ok && m < o->nmethods; m++) {
        const char *method = o->methods[m];
        bal_partition_input in = {.dim = 2, .n = n, .coords = it->coords, .weights = w1};
        memcpy(in.lo, it->lo, sizeof in.lo);
        memcpy(in.hi, it->hi, sizeof in.hi);
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = method;
        cfg.parts = o->parts[pi];
        cfg.tolerance = o->tolerance;
        bal_partition_result *prev = NULL;
        int rc = bal_partition_compute(&in, &cfg, NULL, old, &prev);
        in.weights = w2;
        in.from = old;
        if (rc == BAL_OK) rc = bal_partition_compute(&in, &cfg, prev, part, NULL);
        cfg.incremental = false;
        if (rc == BAL_OK) rc = bal_partition_compute(&in, &cfg, NULL, fresh, NULL);
        bal_partition_result_destroy(prev);
        int64_t mi = 0, mf = 0;
        if (rc == BAL_OK) rc = bal_partition_moved(n, NULL, old, part, &mi, NULL);
        if (rc == BAL_OK) rc = bal_partition_moved(n, NULL, old, fresh, &mf, NULL);
        if (rc != BAL_OK) {
          fprintf(stderr, PROG ": moved, %s: %s\n", method, bal_strerror(rc));
          ok = false;
          break;
        }
        it->f.weight = w2;
        figures fi, ff;
        ok = measure(it, o->parts[pi], part, &fi) && measure(it, o->parts[pi], fresh, &ff);
        it->f.weight = w1;
        double ratio = mf > 0 ? (double)mi / (double)mf : NAN;
        printf("%-9s %5d %-10s %10lld %10lld %7.3f %11.4f %11.4f\n", field_name(fk), o->parts[pi],
               method, (long long)mi, (long long)mf, ratio, fi.imbalance, ff.imbalance);
      }
    fflush(stdout);
  }
  free(old);
  free(fresh);
  free(w2);
  return ok;
}

static int bench(const opts *o) {
  items it;
  int *part = NULL;
  bool ok = grid_items(o, &it) && (part = malloc((size_t)it.f.items * sizeof *part));
  if (!ok) return fprintf(stderr, PROG ": out of memory\n"), 1;
  if (o->moved_only)
    printf("%lldx%lld cells\n", (long long)o->nx, (long long)o->ny);
  else
    printf("%lldx%lld cells; times: median of %lld calls; halo: cut faces (grids), points within "
           "the default cutoff (points)\n%-9s %5s %-11s %9s %9s %7s %4s %10s %7s\n",
           (long long)o->nx, (long long)o->ny, (long long)o->reps, "field", "parts", "method",
           "imbalance", "halo", "/zoltan", "nbmx", "seconds", "zoltan/x");
  for (int k = 0; ok && !o->moved_only && field_name(k); k++) {
    field_fill((field_kind)k, o->nx, o->ny, 0.5, 0.5, o->seed, it.f.weight);
    ok = quality(o, &it, field_name(k), part);
  }
  if (ok) ok = moved(o, &it, part);
  free(it.coords);
  free(it.f.weight);
  free(part);
  if (ok && !o->moved_only && o->points > 0) {
    items pt = {.f = {.dims = 2, .items = o->points}};
    pt.f.coord = malloc((size_t)o->points * 2 * sizeof(double));
    pt.f.weight = malloc((size_t)o->points * sizeof(double));
    part = malloc((size_t)o->points * sizeof *part);
    ok = pt.f.coord && pt.f.weight && part;
    if (ok) {
      field_points(o->points, o->seed, pt.f.coord, pt.f.weight);
      pt.coords = pt.f.coord;
      part_domain(&pt.f, pt.lo, pt.hi);
      printf("\n%lld clustered points\n", (long long)o->points);
      ok = quality(o, &pt, "clustered", part);
    }
    part_field_free(&pt.f);
    free(part);
  }
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  opts o = {.nx = 1000, .ny = 1000, .points = 1000000, .reps = 5, .seed = 1, .tol = 1.05,
            .tolerance = BAL_PARTITION_TOLERANCE_DEFAULT,
            .nparts = 4, .parts = {16, 64, 256, 1024}};
  const cli_flag flags[] = {
      CLI_INT("--nx", "N", &o.nx, 1, 1 << 15, "cells along x (default 1000)"),
      CLI_INT("--ny", "N", &o.ny, 1, 1 << 15, "cells along y (default 1000)"),
      CLI_CUSTOM("--parts", "LIST", &o, parse_parts, "part counts (default 16,64,256,1024)"),
      CLI_CUSTOM("--methods", "LIST", &o, parse_methods, "Ballast methods (default: all)"),
      CLI_INT("--points", "N", &o.points, 0, 1 << 26, "clustered points (default 10^6; 0: none)"),
      CLI_INT("--reps", "R", &o.reps, 1, 63, "timed calls per figure (default 5)"),
      CLI_UINT("--seed", "S", &o.seed, "seed of the fields (default 1)"),
      CLI_BOOL("--moved-only", &o.moved_only, "only the table of items moved (no Zoltan)"),
      CLI_DOUBLE("--zoltan-tol", "T", &o.tol, 1.0, 10.0, "Zoltan's IMBALANCE_TOL (default 1.05)"),
      CLI_DOUBLE("--tolerance", "T", &o.tolerance, 0.0, 1.0,
                 "Ballast's tolerance (default BAL_PARTITION_TOLERANCE_DEFAULT; 0: the curves' "
                 "best-balanced cuts, as before they moved to compact pieces)"),
      CLI_END};
  const cli_program prog = {.name = PROG, .usage = PROG " [OPTIONS]", .flags = flags};
  for (int m = 0; bal_partition_method_name(m) && m < MAX_LIST; m++)
    o.methods[o.nmethods++] = bal_partition_method_name(m);
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  MPI_Init(&argc, &argv);
  rc = bench(&o);
  MPI_Finalize();
  return rc;
}
