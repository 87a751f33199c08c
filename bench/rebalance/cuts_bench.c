/* bench_rebalance_cuts: the quality and speed of bal_rebalance_cuts
 * (chains-on-chains, optimal bottleneck) against Zoltan's BLOCK method on
 * the same chains of skewed item costs, and a check of Ballast's bound
 * max/avg <= 1 + max item cost / avg load.
 *
 * Both run on one rank holding every item (the setting of a rebalance
 * step after the costs are gathered). Times are medians of --reps calls;
 * Zoltan's excludes its one-off set-up (Zoltan_Create, parameters) and
 * includes the weight hand-over through its callbacks, which is how an
 * application has to feed it. Loads are summed in double from the exact
 * costs for both methods (Zoltan itself sees them as floats). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/rebalance.h>

#include "common/cli.h"
#include "common/output.h"
#include "common/json.h"
#include "core/clock.h"
#include "costs.h"
#include "zoltan_block.h"

#define PROG "bench_rebalance_cuts"
#define MAX_LIST 32

typedef struct opts {
  int nparts, ndists, nseeds, reps;
  int parts[MAX_LIST];
  cost_dist dists[COST_NDIST];
  uint64_t seeds[MAX_LIST];
  int64_t items;
  const char *csv;
  bool json;
} opts;

typedef struct row {
  int parts;
  cost_dist dist;
  uint64_t seed;
  double b_s, z_s;           /* median times */
  double b_q, z_q, bound;    /* max/avg load, and Ballast's bound */
  bool z_contiguous;
} row;

/* Split a comma-separated LIST into tokens, calling fn on each; fn writes
 * why a token is wrong to err. */
static bool each_token(const char *text, opts *o, bool (*fn)(const char *, opts *, char *, size_t),
                       char *err, size_t n) {
  char buf[1024];
  if (strlen(text) >= sizeof buf) {
    snprintf(err, n, "list too long");
    return false;
  }
  strcpy(buf, text);
  int k = 0;
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), k++)
    if (!fn(t, o, err, n)) return false;
  if (k == 0) snprintf(err, n, "empty list");
  return k > 0;
}

static bool add_part(const char *t, opts *o, char *err, size_t n) {
  int64_t v;
  if (o->nparts == MAX_LIST) {
    snprintf(err, n, "more than %d entries", MAX_LIST);
    return false;
  }
  if (!cli_int_text(t, 1, 1 << 20, &v, err, n)) return false;
  o->parts[o->nparts++] = (int)v;
  return true;
}

static bool add_seed(const char *t, opts *o, char *err, size_t n) {
  if (o->nseeds == MAX_LIST) {
    snprintf(err, n, "more than %d entries", MAX_LIST);
    return false;
  }
  return cli_uint_text(t, &o->seeds[o->nseeds++], err, n);
}

static bool add_dist(const char *t, opts *o, char *err, size_t n) {
  cost_dist d;
  if (!cost_dist_parse(t, &d)) {
    snprintf(err, n, "unknown distribution '%s'", t);
    return false;
  }
  if (o->ndists == COST_NDIST) {
    snprintf(err, n, "a distribution is repeated");
    return false;
  }
  o->dists[o->ndists++] = d;
  return true;
}

static bool parse_parts(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  o->nparts = 0;
  return each_token(v, o, add_part, err, n);
}
static bool parse_dists(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  o->ndists = 0;
  return each_token(v, o, add_dist, err, n);
}
static bool parse_seeds(const char *v, void *dest, char *err, size_t n) {
  opts *o = dest;
  o->nseeds = 0;
  return each_token(v, o, add_seed, err, n);
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->items = 1000000;
  int64_t reps = 5;
  const cli_flag flags[] = {
      CLI_CUSTOM("--parts", "LIST", o, parse_parts, "numbers of parts (default 16,256,4096)"),
      /* Zoltan counts objects in an int */
      CLI_INT("--items", "N", &o->items, 1, 1 << 30, "items in the chain (default 1000000)"),
      CLI_CUSTOM("--dist", "LIST", o, parse_dists,
                 "cost distributions: uniform,cubic,pareto,hotspot,ramp (default all)"),
      CLI_CUSTOM("--seeds", "LIST", o, parse_seeds, "seeds of the costs (default 1,2,3)"),
      CLI_INT("--reps", "R", &reps, 1, 1000,
              "timed calls per method and input; medians reported (default 5)"),
      CLI_PATH("--csv", "FILE", &o->csv, "also write one CSV row per input"),
      CLI_BOOL("--json", &o->json, "print one JSON object instead of the table"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = PROG " [options]   (MPI program; runs on one rank)",
      .description = "bal_rebalance_cuts against Zoltan LB_METHOD=BLOCK on chains of skewed costs.",
      .flags = flags,
      .epilog = "Exit status: 0; 1 if Ballast broke its bound or a method failed; 2 on bad flags."};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->reps = (int)reps;
  if (!o->nparts) {
    static const int def[] = {16, 256, 4096};
    for (int k = 0; k < 3; k++) o->parts[o->nparts++] = def[k];
  }
  if (!o->ndists)
    for (int d = 0; d < COST_NDIST; d++) o->dists[o->ndists++] = (cost_dist)d;
  if (!o->nseeds)
    for (uint64_t s = 1; s <= 3; s++) o->seeds[o->nseeds++] = s;
  for (int k = 0; k < o->nparts; k++)
    if (o->parts[k] > o->items) {
      fprintf(stderr, PROG ": --parts %d is more than --items %lld\n", o->parts[k],
              (long long)o->items);
      return 2;
    }
  return CLI_CONTINUE;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Largest part load over the average, parts given per item. */
static double quality_parts(int64_t n, const double *w, int p, const int *part, double *load,
                            bool *contiguous) {
  double tot = 0, mx = 0;
  memset(load, 0, (size_t)p * sizeof *load);
  *contiguous = true;
  for (int64_t j = 0; j < n; j++) {
    load[part[j]] += w[j];
    tot += w[j];
    if (j > 0 && part[j] < part[j - 1]) *contiguous = false;
  }
  for (int k = 0; k < p; k++) mx = fmax(mx, load[k]);
  return mx / (tot / p);
}

static bool run_one(const opts *o, int p, cost_dist d, uint64_t seed, double *w, int *part,
                    int64_t *cuts, double *load, double *times, row *r) {
  int64_t n = o->items;
  cost_fill(d, seed, n, w);
  double tot = 0, wmax = 0;
  for (int64_t j = 0; j < n; j++) {
    tot += w[j];
    wmax = fmax(wmax, w[j]);
  }
  double avg = tot / p;
  *r = (row){.parts = p, .dist = d, .seed = seed, .bound = 1.0 + wmax / avg};

  for (int k = 0; k < o->reps; k++) {
    int64_t t0 = bal__now_ns();
    int rc = bal_rebalance_cuts(n, w, p, NULL, NULL, cuts, NULL);
    times[k] = (double)(bal__now_ns() - t0) * 1e-9;
    if (rc != BAL_OK) {
      fprintf(stderr, PROG ": bal_rebalance_cuts: %s\n", bal_strerror(rc));
      return false;
    }
  }
  r->b_s = median(times, o->reps);
  double mx = 0;
  for (int k = 0; k < p; k++) {
    double s = 0;
    for (int64_t j = cuts[k]; j < cuts[k + 1]; j++) s += w[j];
    mx = fmax(mx, s);
  }
  r->b_q = mx / avg;

  zblock *z = zblock_create(MPI_COMM_SELF, n, w, p);
  if (!z) {
    fprintf(stderr, PROG ": Zoltan set-up failed\n");
    return false;
  }
  for (int k = 0; k < o->reps; k++)
    if (zblock_run(z, part, &times[k]) != 0) {
      fprintf(stderr, PROG ": Zoltan_LB_Partition failed\n");
      zblock_destroy(z);
      return false;
    }
  zblock_destroy(z);
  r->z_s = median(times, o->reps);
  r->z_q = quality_parts(n, w, p, part, load, &r->z_contiguous);
  return true;
}

int main(int argc, char **argv) {
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE) return prc;
  FILE *csv = NULL;
  out_file csv_out;
  if (o.csv) {
    if (!out_open(&csv_out, PROG, "--csv", o.csv)) return 1;
    csv = csv_out.f;
  }
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int pmax = 0;
  for (int k = 0; k < o.nparts; k++) pmax = o.parts[k] > pmax ? o.parts[k] : pmax;
  int nrows = o.nparts * o.ndists * o.nseeds;
  double *w = malloc((size_t)o.items * sizeof *w), *load = malloc((size_t)pmax * sizeof *load);
  int *part = malloc((size_t)o.items * sizeof *part);
  int64_t *cuts = malloc((size_t)(pmax + 1) * sizeof *cuts);
  double *times = malloc((size_t)o.reps * sizeof *times);
  row *rows = calloc((size_t)nrows, sizeof *rows);
  bool ok = w && load && part && cuts && times && rows, bound_ok = true;
  if (!ok) fprintf(stderr, PROG ": out of memory\n");
  /* Every rank would do the same: only rank 0 works (run it on one rank). */
  int done = 0;
  for (int a = 0; ok && rank == 0 && a < o.nparts; a++)
    for (int b = 0; ok && b < o.ndists; b++)
      for (int c = 0; ok && c < o.nseeds; c++) {
        row *r = &rows[done];
        ok = run_one(&o, o.parts[a], o.dists[b], o.seeds[c], w, part, cuts, load, times, r);
        if (!ok) break;
        done++;
        /* exact costs: the bound holds to rounding of the load sums */
        if (r->b_q > r->bound * (1 + 1e-12)) bound_ok = false;
      }
  if (rank == 0 && csv) {
    fprintf(csv, "parts,items,dist,seed,reps,ballast_s,zoltan_s,ratio,ballast_max_avg,"
                 "zoltan_max_avg,bound,ballast_within_bound,zoltan_within_bound,zoltan_contiguous\n");
    for (int k = 0; k < done; k++) {
      const row *r = &rows[k];
      fprintf(csv, "%d,%lld,%s,%llu,%d,%.9g,%.9g,%.6g,%.9g,%.9g,%.9g,%d,%d,%d\n", r->parts,
              (long long)o.items, cost_dist_name(r->dist), (unsigned long long)r->seed, o.reps,
              r->b_s, r->z_s, r->b_s / r->z_s, r->b_q, r->z_q, r->bound,
              r->b_q <= r->bound * (1 + 1e-12), r->z_q <= r->bound * (1 + 1e-12),
              r->z_contiguous);
    }
  }
  if (rank == 0 && o.json) {
    json_writer j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_string(&j, "program", PROG);
    json_int(&j, "items", o.items);
    json_int(&j, "reps", o.reps);
    json_array_begin(&j, "parts");
    for (int k = 0; k < o.nparts; k++) json_int(&j, NULL, o.parts[k]);
    json_array_end(&j);
    json_array_begin(&j, "dists");
    for (int k = 0; k < o.ndists; k++) json_string(&j, NULL, cost_dist_name(o.dists[k]));
    json_array_end(&j);
    json_array_begin(&j, "seeds");
    for (int k = 0; k < o.nseeds; k++) json_uint(&j, NULL, o.seeds[k]);
    json_array_end(&j);
    json_array_begin(&j, "results");
    for (int k = 0; k < done; k++) {
      const row *r = &rows[k];
      json_object_begin(&j, NULL);
      json_int(&j, "parts", r->parts);
      json_string(&j, "dist", cost_dist_name(r->dist));
      json_uint(&j, "seed", r->seed);
      json_double(&j, "ballast_s", r->b_s);
      json_double(&j, "zoltan_s", r->z_s);
      json_double(&j, "ratio", r->b_s / r->z_s);
      json_double(&j, "ballast_max_avg", r->b_q);
      json_double(&j, "zoltan_max_avg", r->z_q);
      json_double(&j, "bound", r->bound);
      json_bool(&j, "ballast_within_bound", r->b_q <= r->bound * (1 + 1e-12));
      json_bool(&j, "zoltan_contiguous", r->z_contiguous);
      json_object_end(&j);
    }
    json_array_end(&j);
    json_bool(&j, "ok", ok && bound_ok);
    json_object_end(&j);
    if (!json_finish(&j)) cli_output_failed("--json");
  } else if (rank == 0) {
    printf("cuts: %lld items, one rank, medians of %d calls\n", (long long)o.items, o.reps);
    printf("%6s %-8s %5s %11s %11s %8s %11s %11s %9s %6s\n", "parts", "dist", "seed",
           "ballast_ms", "zoltan_ms", "ratio", "ballast_q", "zoltan_q", "bound", "within");
    for (int k = 0; k < done; k++) {
      const row *r = &rows[k];
      printf("%6d %-8s %5llu %11.3f %11.3f %8.3f %11.6f %11.6f %9.6f %6s\n", r->parts,
             cost_dist_name(r->dist), (unsigned long long)r->seed, r->b_s * 1e3, r->z_s * 1e3,
             r->b_s / r->z_s, r->b_q, r->z_q, r->bound,
             r->b_q <= r->bound * (1 + 1e-12) ? "yes" : "NO");
    }
  }
  bool csv_ok = true; /* only rank 0 writes the CSV */
  if (csv && rank == 0) csv_ok = out_commit(&csv_out);
  else if (csv) out_discard(&csv_out);
  free(w);
  free(load);
  free(part);
  free(cuts);
  free(times);
  free(rows);
  int bad = !(ok && bound_ok && csv_ok);
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad;
}
