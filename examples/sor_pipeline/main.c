/* sor_pipeline: a pipelined (DOACROSS) SOR sweep whose block size comes
 * from Ballast's grain model ([Siegell 1997] §4.2.4), or is given.
 *
 * The grid's rows are split over the ranks; each sweep walks the columns in
 * blocks, and a rank starts a block only when the rank above has sent its
 * new boundary values for those columns. The program measures the model's
 * inputs itself: t_seq from the smallest of several timings of the local
 * sweep (bal_rebalance_time_min), t_fixed and t_incr by shifting messages
 * through the ranks (bal_rebalance_measure_shift); bal_rebalance_grain then
 * picks the block size. With --check, rank 0 compares the result with a
 * sequential sweep, bit for bit.
 *
 * --work-ns emulates the cost of each point update by sleeping, so that
 * many ranks on few cores measure the pipeline rather than the CPU sharing
 * (docs/BENCHMARKS.md); --shift-delay emulates a slower network.
 *
 * It uses only Ballast's public API, MPI and libc, so it builds from an
 * installed Ballast:
 *   mpicc -o sor_pipeline main.c pipeline.c sor.c $(pkg-config --cflags --libs ballast)
 * Run: mpiexec -n 4 sor_pipeline --rows 400 --cols 1000 --check */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep, strtok_r */
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/rebalance.h>

#include "clock.h"
#include "pipeline.h"

#define PROG "sor_pipeline"
#define MAX_SIZES 64

typedef struct opts {
  int rows, cols, sweeps, reps, shift_reps;
  double omega, work_ns, delay_s;
  int nsizes;
  int64_t sizes[MAX_SIZES]; /* 0: automatic */
  bool check, json;
} opts;

typedef struct run_out {
  int64_t block, blocks;
  bool automatic;
  double measured_s, predicted_s; /* median sweep time; the model's */
  double checksum;
  int check; /* -1 not checked, 0 differs, 1 equal */
} run_out;

static void usage(FILE *out) {
  fprintf(out,
          "Usage: mpiexec -n P " PROG " [options]\n"
          "Pipelined SOR sweep with the block size chosen by Ballast's grain model.\n"
          "  --rows N          interior grid rows, split over the ranks (default 400)\n"
          "  --cols M          interior columns: the pipelined loop (default 1000)\n"
          "  --sweeps S        timed sweeps per block size; the median is reported (default 5)\n"
          "  --omega W         relaxation factor in (0, 2) (default 1.5)\n"
          "  --block-size LIST comma-separated block sizes in columns, 'auto' for the\n"
          "                    model's choice (default auto)\n"
          "  --work-ns T       emulated nanoseconds per point update, slept (default 0:\n"
          "                    real compute only)\n"
          "  --shift-delay S   emulated seconds added to every boundary shift (default 0);\n"
          "                    added to the measured t_fixed\n"
          "  --reps R          timings of the local sweep for t_seq (default 5)\n"
          "  --shift-reps R    message shifts for t_fixed and t_incr (default 20)\n"
          "  --check           compare each result with a sequential sweep on rank 0\n"
          "  --json            print one JSON object instead of the table\n"
          "  --help, --version\n"
          "Exit status: 0, 1 if a result differs from the sequential one, 2 on bad flags.\n");
}

/* An integer flag value in [lo, hi]: decimal digits only, the whole text. */
static bool parse_int(const char *flag, const char *text, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end || errno || v < lo || v > hi) {
    fprintf(stderr, PROG ": %s: '%s' is not an integer in [%" PRId64 ", %" PRId64 "]\n", flag,
            text, lo, hi);
    return false;
  }
  *out = v;
  return true;
}

/* A number flag value in [lo, hi]. */
static bool parse_num(const char *flag, const char *text, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end || errno || !(v >= lo && v <= hi)) {
    fprintf(stderr, PROG ": %s: '%s' is not a number in [%.10g, %.10g]\n", flag, text, lo, hi);
    return false;
  }
  *out = v;
  return true;
}

/* --block-size: a comma-separated list of sizes and 'auto' (stored as 0). */
static bool parse_sizes(const char *text, opts *o) {
  char buf[1024];
  if (strlen(text) >= sizeof buf) {
    fprintf(stderr, PROG ": --block-size: list too long\n");
    return false;
  }
  strcpy(buf, text);
  o->nsizes = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (o->nsizes == MAX_SIZES) {
      fprintf(stderr, PROG ": --block-size: more than %d entries\n", MAX_SIZES);
      return false;
    }
    int64_t v = 0;
    if (strcmp(tok, "auto") != 0 && !parse_int("--block-size", tok, 1, 1000000000, &v))
      return false;
    o->sizes[o->nsizes++] = v;
  }
  if (o->nsizes == 0) {
    fprintf(stderr, PROG ": --block-size: empty list\n");
    return false;
  }
  return true;
}

static bool parse(int argc, char **argv, opts *o) {
  *o = (opts){.rows = 400, .cols = 1000, .sweeps = 5, .reps = 5, .shift_reps = 20, .omega = 1.5,
              .nsizes = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--check")) {
      o->check = true;
      continue;
    }
    if (!strcmp(a, "--json")) {
      o->json = true;
      continue;
    }
    static const char *valued[] = {"--block-size", "--omega",  "--work-ns", "--shift-delay",
                                   "--rows",       "--cols",   "--sweeps",  "--reps",
                                   "--shift-reps"};
    bool known = false;
    for (size_t f = 0; f < sizeof valued / sizeof valued[0]; f++) known |= !strcmp(a, valued[f]);
    if (!known) {
      fprintf(stderr, PROG ": unknown argument '%s' (see --help)\n", a);
      return false;
    }
    if (i + 1 >= argc) {
      fprintf(stderr, PROG ": %s needs a value\n", a);
      return false;
    }
    const char *v = argv[++i];
    int64_t n;
    if (!strcmp(a, "--block-size")) {
      if (!parse_sizes(v, o)) return false;
    } else if (!strcmp(a, "--omega")) {
      if (!parse_num(a, v, 1e-9, 2.0 - 1e-9, &o->omega)) return false;
    } else if (!strcmp(a, "--work-ns")) {
      if (!parse_num(a, v, 0, 1e9, &o->work_ns)) return false;
    } else if (!strcmp(a, "--shift-delay")) {
      if (!parse_num(a, v, 0, 10, &o->delay_s)) return false;
    } else {
      /* rows * (cols + 2) doubles must fit an int count for MPI */
      int64_t max = !strcmp(a, "--rows") || !strcmp(a, "--cols") ? 20000 : 100000;
      if (!parse_int(a, v, 1, max, &n)) return false;
      int *dst = !strcmp(a, "--rows")     ? &o->rows
                 : !strcmp(a, "--cols")   ? &o->cols
                 : !strcmp(a, "--sweeps") ? &o->sweeps
                 : !strcmp(a, "--reps")   ? &o->reps
                                          : &o->shift_reps;
      *dst = (int)n;
    }
  }
  return true;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of x[0..n) (n >= 1); sorts x. */
static double median(double *x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* A JSON number, or null when it is not finite (JSON has no NaN or inf). */
static void json_num(const char *sep, const char *key, double v) {
  if (isfinite(v))
    printf("%s\"%s\": %.17g", sep, key, v);
  else
    printf("%s\"%s\": null", sep, key);
}

static void fail(const char *what, int code) {
  fprintf(stderr, PROG ": %s failed (%d)\n", what, code);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The sequential sweeps the pipeline must reproduce. */
static void sequential(const opts *o, sor_grid *ref) {
  for (int i = 0; i < o->rows + 2; i++)
    for (int j = -1; j <= o->cols; j++) *sor_at(ref, i, j) = sor_initial(i, j, o->rows, o->cols);
  for (int s = 0; s < o->sweeps; s++) sor_block(ref, o->omega, 1, o->rows + 1, 0, o->cols);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      printf(PROG " (Ballast %s)\n", bal_version());
      return 0;
    }
  }
  opts o;
  if (!parse(argc, argv, &o)) return 2;

  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (o.rows < p) {
    if (rank == 0) fprintf(stderr, PROG ": --rows %d is fewer than the %d ranks\n", o.rows, p);
    MPI_Finalize();
    return 2;
  }
  /* Linux rounds sleeps up by the timer slack (50 us by default), which
   * would add a fixed cost to every emulated block. */
  if (o.work_ns > 0 || o.delay_s > 0) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

  sor_rank s;
  if (sor_rank_init(&s, MPI_COMM_WORLD, o.rows, o.cols, o.omega, o.work_ns, o.delay_s) != 0)
    fail("allocating the local rows", 0);

  /* ---- the model's inputs, measured ---- */
  sor_probe probe = {.s = &s};
  if (sor_grid_alloc(&probe.scratch, s.g.rows, s.g.cols) != 0) fail("allocating the probe", 0);
  memcpy(probe.scratch.v, s.g.v, (size_t)s.g.rows * (size_t)(s.g.cols + 2) * sizeof *s.g.v);
  double t_local, t_slowest, t_fixed_meas, t_incr;
  int rc = bal_rebalance_time_min(sor_probe_run, &probe, o.reps, &t_local);
  if (rc != BAL_OK) fail("bal_rebalance_time_min", rc);
  sor_grid_free(&probe.scratch);
  /* The pipeline moves at the pace of the slowest rank ([Siegell 1997]
   * §4.2.1: t_iteration is the longest on any processor). */
  MPI_Allreduce(&t_local, &t_slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double t_seq = t_slowest * p;
  rc = bal_rebalance_measure_shift(MPI_COMM_WORLD, sizeof(double), o.cols, o.shift_reps,
                                   &t_fixed_meas, &t_incr);
  if (rc != BAL_OK) fail("bal_rebalance_measure_shift", rc);
  double t_fixed = t_fixed_meas + o.delay_s;
  int64_t auto_blocks, auto_b;
  double auto_pred;
  rc = bal_rebalance_grain(t_seq, o.cols, p, t_fixed, t_incr, &auto_blocks, &auto_b, &auto_pred);
  if (rc != BAL_OK) fail("bal_rebalance_grain", rc);

  /* ---- one pipelined run per requested block size ---- */
  sor_grid full = {0}, ref = {0};
  if (rank == 0 && o.check &&
      (sor_grid_alloc(&full, o.rows + 2, o.cols) != 0 || sor_grid_alloc(&ref, o.rows + 2, o.cols) != 0))
    fail("allocating the check grids", 0);
  if (rank == 0 && o.check) sequential(&o, &ref);
  run_out *runs = calloc((size_t)o.nsizes, sizeof *runs);
  double *times = malloc((size_t)o.sweeps * sizeof *times);
  double *tmax = malloc((size_t)o.sweeps * sizeof *tmax);
  if (!runs || !times || !tmax) fail("allocating the results", 0);
  bool all_equal = true;
  for (int k = 0; k < o.nsizes; k++) {
    run_out *r = &runs[k];
    r->automatic = o.sizes[k] == 0;
    r->block = r->automatic ? auto_b : (o.sizes[k] < o.cols ? o.sizes[k] : o.cols);
    if ((rc = bal_rebalance_grain_time(t_seq, o.cols, p, t_fixed, t_incr, r->block, &r->blocks,
                                       &r->predicted_s)) != BAL_OK)
      fail("bal_rebalance_grain_time", rc);
    sor_rank_reset(&s);
    for (int sw = 0; sw < o.sweeps; sw++) {
      /* The model describes one execution of the pipelined loop, fill and
       * drain included: start every sweep together and time it to the last
       * rank's end (without the barrier, a sweep's drain would overlap the
       * next one's fill). */
      MPI_Barrier(MPI_COMM_WORLD);
      int64_t t0 = now_ns();
      if ((rc = sor_rank_sweep(&s, (int)r->block)) != MPI_SUCCESS) fail("the pipelined sweep", rc);
      times[sw] = (double)(now_ns() - t0) * 1e-9;
    }
    MPI_Reduce(times, tmax, o.sweeps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) r->measured_s = median(tmax, o.sweeps);
    double local = sor_checksum(&s.g, 1, s.nrows + 1);
    MPI_Reduce(&local, &r->checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    r->check = -1;
    if (o.check) {
      if ((rc = sor_rank_gather(&s, rank == 0 ? &full : NULL)) != MPI_SUCCESS) fail("MPI_Gatherv", rc);
      if (rank == 0) {
        size_t row = (size_t)(o.cols + 2);
        r->check = memcmp(full.v + row, ref.v + row, (size_t)o.rows * row * sizeof *full.v) == 0;
        if (!r->check) all_equal = false;
      }
    }
  }

  if (rank == 0 && o.json) {
    printf("{\"program\": \"" PROG "\", \"ranks\": %d, \"rows\": %d, \"cols\": %d, "
           "\"sweeps\": %d",
           p, o.rows, o.cols, o.sweeps);
    json_num(", ", "omega", o.omega);
    json_num(", ", "work_ns", o.work_ns);
    json_num(", ", "shift_delay_s", o.delay_s);
    printf(", \"reps\": %d, \"shift_reps\": %d, \"check\": %s", o.reps, o.shift_reps,
           o.check ? "true" : "false");
    printf(", \"model\": {");
    json_num("", "t_seq_s", t_seq);
    json_num(", ", "t_fixed_measured_s", t_fixed_meas);
    json_num(", ", "t_fixed_s", t_fixed);
    json_num(", ", "t_incr_s", t_incr);
    printf(", \"auto_block_size\": %" PRId64 ", \"auto_blocks\": %" PRId64, auto_b,
           auto_blocks);
    json_num(", ", "auto_predicted_s", auto_pred);
    printf("}, \"runs\": [");
    for (int k = 0; k < o.nsizes; k++) {
      const run_out *r = &runs[k];
      printf("%s{\"block_size\": %" PRId64 ", \"blocks\": %" PRId64 ", \"automatic\": %s",
             k ? ", " : "", r->block, r->blocks, r->automatic ? "true" : "false");
      json_num(", ", "measured_s", r->measured_s);
      json_num(", ", "predicted_s", r->predicted_s);
      json_num(", ", "efficiency", t_seq / (p * r->measured_s));
      json_num(", ", "predicted_efficiency", t_seq / (p * r->predicted_s));
      json_num(", ", "checksum", r->checksum);
      printf(", \"result\": %s}", r->check < 0 ? "null" : r->check ? "\"equal\"" : "\"differs\"");
    }
    printf("]}\n");
  } else if (rank == 0) {
    printf("SOR pipeline: %d ranks, %d x %d grid, %d sweeps, omega %g, %g ns/point emulated, "
           "%g s/shift added\n",
           p, o.rows, o.cols, o.sweeps, o.omega, o.work_ns, o.delay_s);
    printf("model: t_seq %.4g s, t_fixed %.3g s (measured %.3g), t_incr %.3g s/element -> "
           "block size %" PRId64 " (%" PRId64 " blocks), predicted %.4g s\n",
           t_seq, t_fixed, t_fixed_meas, t_incr, auto_b, auto_blocks, auto_pred);
    printf("%10s %6s %7s %11s %12s %10s %10s %16s %8s\n", "block_size", "blocks", "auto",
           "measured_s", "predicted_s", "efficiency", "predicted", "checksum", "result");
    for (int k = 0; k < o.nsizes; k++) {
      const run_out *r = &runs[k];
      printf("%10" PRId64 " %6" PRId64 " %7s %11.4g %12.4g %10.3f %10.3f %16.10g %8s\n", r->block,
             r->blocks, r->automatic ? "yes" : "no", r->measured_s, r->predicted_s,
             t_seq / (p * r->measured_s), t_seq / (p * r->predicted_s), r->checksum,
             r->check < 0 ? "-" : r->check ? "equal" : "DIFFERS");
    }
  }
  free(runs);
  free(times);
  free(tmax);
  sor_grid_free(&full);
  sor_grid_free(&ref);
  sor_rank_free(&s);
  int bad = !all_equal;
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return bad ? 1 : 0;
}
