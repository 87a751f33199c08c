/* sor_pipeline: a pipelined (DOACROSS) SOR sweep whose block size comes
 * from Ballast's grain model (seed 002 §4.2.4), or is given.
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
 * Run: mpiexec -n 4 sor_pipeline --rows 400 --cols 1000 --check */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include <ballast/ballast.h>
#include <ballast/rebalance.h>

#include "common/cli.h"
#include "common/json.h"
#include "core/clock.h"
#include "pipeline.h"

#define PROG "sor_pipeline"
#define MAX_SIZES 64

typedef struct opts {
  int rows, cols, sweeps, reps, shift_reps;
  double omega, work_ns, delay_s;
  int nsizes;
  long long sizes[MAX_SIZES]; /* 0: automatic */
  bool check, json;
} opts;

typedef struct run_out {
  long long block, blocks;
  bool automatic;
  double measured_s, predicted_s; /* median sweep time; the model's */
  double checksum;
  int check; /* -1 not checked, 0 differs, 1 equal */
} run_out;

static bool parse_sizes(const char *text, void *dest, char *err, size_t n) {
  opts *o = dest;
  char buf[1024];
  if (strlen(text) >= sizeof buf) {
    snprintf(err, n, "list too long");
    return false;
  }
  strcpy(buf, text);
  o->nsizes = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (o->nsizes == MAX_SIZES) {
      snprintf(err, n, "more than %d entries", MAX_SIZES);
      return false;
    }
    int64_t v = 0;
    if (strcmp(tok, "auto") != 0 && !cli_int_text(tok, 1, 1000000000, &v, err, n)) return false;
    o->sizes[o->nsizes++] = v;
  }
  if (o->nsizes == 0) {
    snprintf(err, n, "empty list");
    return false;
  }
  return true;
}

static int parse(int argc, char **argv, opts *o) {
  *o = (opts){.rows = 400, .cols = 1000, .sweeps = 5, .reps = 5, .shift_reps = 20, .omega = 1.5,
              .nsizes = 1};
  /* rows * (cols + 2) doubles must fit an int count for MPI */
  int64_t rows = o->rows, cols = o->cols, sweeps = o->sweeps, reps = o->reps,
          shift_reps = o->shift_reps;
  const cli_flag flags[] = {
      CLI_INT("--rows", "N", &rows, 1, 20000,
              "interior grid rows, split over the ranks (default 400)"),
      CLI_INT("--cols", "M", &cols, 1, 20000, "interior columns: the pipelined loop (default 1000)"),
      CLI_INT("--sweeps", "S", &sweeps, 1, 100000,
              "timed sweeps per block size; the median is reported (default 5)"),
      {.kind = CLI_KIND_DOUBLE, .name = "--omega", .metavar = "W", .dest = &o->omega, .dmin = 0,
       .dmax = 2, .open_min = true, .open_max = true,
       .help = "relaxation factor in (0, 2) (default 1.5)"},
      CLI_CUSTOM("--block-size", "LIST", o, parse_sizes,
                 "comma-separated block sizes in columns, 'auto' for the\n"
                 "model's choice (default auto)"),
      CLI_DOUBLE("--work-ns", "T", &o->work_ns, 0, 1e9,
                 "emulated nanoseconds per point update, slept (default 0:\n"
                 "real compute only)"),
      CLI_DOUBLE("--shift-delay", "S", &o->delay_s, 0, 10,
                 "emulated seconds added to every boundary shift (default 0);\n"
                 "added to the measured t_fixed"),
      CLI_INT("--reps", "R", &reps, 1, 100000, "timings of the local sweep for t_seq (default 5)"),
      CLI_INT("--shift-reps", "R", &shift_reps, 1, 100000,
              "message shifts for t_fixed and t_incr (default 20)"),
      CLI_BOOL("--check", &o->check, "compare each result with a sequential sweep on rank 0"),
      CLI_BOOL("--json", &o->json, "print one JSON object instead of the table"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "mpiexec -n P " PROG " [options]",
      .description = "Pipelined SOR sweep with the block size chosen by Ballast's grain model.",
      .flags = flags,
      .epilog = "Exit status: 0, 1 if a result differs from the sequential one, 2 on bad flags."};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  o->rows = (int)rows;
  o->cols = (int)cols;
  o->sweeps = (int)sweeps;
  o->reps = (int)reps;
  o->shift_reps = (int)shift_reps;
  return CLI_CONTINUE;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
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
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE) return prc;

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
  /* The pipeline moves at the pace of the slowest rank (seed 002:
   * t_iteration is the longest on any processor). */
  MPI_Allreduce(&t_local, &t_slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double t_seq = t_slowest * p;
  rc = bal_rebalance_measure_shift(MPI_COMM_WORLD, sizeof(double), o.cols, o.shift_reps,
                                   &t_fixed_meas, &t_incr);
  if (rc != BAL_OK) fail("bal_rebalance_measure_shift", rc);
  double t_fixed = t_fixed_meas + o.delay_s;
  long long auto_blocks, auto_b;
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
      long long t0 = bal__now_ns();
      if ((rc = sor_rank_sweep(&s, (int)r->block)) != MPI_SUCCESS) fail("the pipelined sweep", rc);
      times[sw] = (double)(bal__now_ns() - t0) * 1e-9;
    }
    MPI_Reduce(times, tmax, o.sweeps, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      qsort(tmax, (size_t)o.sweeps, sizeof *tmax, cmp_double);
      r->measured_s = o.sweeps % 2 ? tmax[o.sweeps / 2]
                                   : 0.5 * (tmax[o.sweeps / 2 - 1] + tmax[o.sweeps / 2]);
    }
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
    json_writer j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_string(&j, "program", PROG);
    json_int(&j, "ranks", p);
    json_int(&j, "rows", o.rows);
    json_int(&j, "cols", o.cols);
    json_int(&j, "sweeps", o.sweeps);
    json_double(&j, "omega", o.omega);
    json_double(&j, "work_ns", o.work_ns);
    json_double(&j, "shift_delay_s", o.delay_s);
    json_int(&j, "reps", o.reps);
    json_int(&j, "shift_reps", o.shift_reps);
    json_bool(&j, "check", o.check);
    json_object_begin(&j, "model");
    json_double(&j, "t_seq_s", t_seq);
    json_double(&j, "t_fixed_measured_s", t_fixed_meas);
    json_double(&j, "t_fixed_s", t_fixed);
    json_double(&j, "t_incr_s", t_incr);
    json_int(&j, "auto_block_size", auto_b);
    json_int(&j, "auto_blocks", auto_blocks);
    json_double(&j, "auto_predicted_s", auto_pred);
    json_object_end(&j);
    json_array_begin(&j, "runs");
    for (int k = 0; k < o.nsizes; k++) {
      const run_out *r = &runs[k];
      json_object_begin(&j, NULL);
      json_int(&j, "block_size", r->block);
      json_int(&j, "blocks", r->blocks);
      json_bool(&j, "automatic", r->automatic);
      json_double(&j, "measured_s", r->measured_s);
      json_double(&j, "predicted_s", r->predicted_s);
      json_double(&j, "efficiency", t_seq / (p * r->measured_s));
      json_double(&j, "predicted_efficiency", t_seq / (p * r->predicted_s));
      json_double(&j, "checksum", r->checksum);
      if (r->check < 0) json_string(&j, "result", NULL);
      else json_string(&j, "result", r->check ? "equal" : "differs");
      json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
    json_finish(&j);
  } else if (rank == 0) {
    printf("SOR pipeline: %d ranks, %d x %d grid, %d sweeps, omega %g, %g ns/point emulated, "
           "%g s/shift added\n",
           p, o.rows, o.cols, o.sweeps, o.omega, o.work_ns, o.delay_s);
    printf("model: t_seq %.4g s, t_fixed %.3g s (measured %.3g), t_incr %.3g s/element -> "
           "block size %lld (%lld blocks), predicted %.4g s\n",
           t_seq, t_fixed, t_fixed_meas, t_incr, auto_b, auto_blocks, auto_pred);
    printf("%10s %6s %7s %11s %12s %10s %10s %16s %8s\n", "block_size", "blocks", "auto",
           "measured_s", "predicted_s", "efficiency", "predicted", "checksum", "result");
    for (int k = 0; k < o.nsizes; k++) {
      const run_out *r = &runs[k];
      printf("%10lld %6lld %7s %11.4g %12.4g %10.3f %10.3f %16.10g %8s\n", r->block, r->blocks,
             r->automatic ? "yes" : "no", r->measured_s, r->predicted_s,
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
