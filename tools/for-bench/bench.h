/* Private to ballast-for-bench: schedules, options, results, and the three
 * parts of the program (main.c: flags; run.c: timed interleaved rounds;
 * report.c: table and JSON), plus trace.c for --trace and factoring.c for
 * the factoring baselines. */
#ifndef BALLAST_BENCH_FOR_BENCH_H
#define BALLAST_BENCH_FOR_BENCH_H

#include <ballast/for.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels.h"
#include "workloads.h"

#define PROG "ballast-for-bench"
#define MAX_REPS 1000

#ifdef BENCH_HAVE_OPENMP
#define HAVE_OMP true
#else
#define HAVE_OMP false
#endif
#ifdef BENCH_HAVE_TBB
#define HAVE_TBB true
#else
#define HAVE_TBB false
#endif

/* bal_for, then bal_for_learn (with --repeat >= 2 only: one bal_loop per
 * sequence of calls), then the baselines: OpenMP's, TBB's, and the
 * factoring family (factoring.h). */
enum {
  S_BAL,
  S_LEARN,
  S_OMP_STATIC,
  S_OMP_DYN1,
  S_OMP_DYNC,
  S_OMP_GUIDED,
  S_TBB,
  S_FAC2,
  S_WF,
  S_AWFB,
  S_AF,
  S_COUNT
};
/* Whether schedule s is one bal_for is compared with. */
#define IS_BASELINE(s) ((s) != S_BAL && (s) != S_LEARN)
#define MAX_REPEAT 100
extern const char *const sched_names[S_COUNT];
extern bool sched_avail[S_COUNT];

enum { MODE_SPIN, MODE_SLEEP, MODE_COUNT };
extern const char *const mode_names[MODE_COUNT];

typedef struct options {
  int64_t threads;      /* 0: bal_pool_create(0) size */
  int64_t items;        /* skewed workloads, spin mode */
  int64_t sleep_items;  /* skewed workloads, sleep mode */
  int64_t tiny_items;   /* uniform tiny workload */
  double spin_mean_ns;  /* mean item cost, spin mode */
  double sleep_mean_us; /* mean item cost, sleep mode */
  int64_t chunk;        /* OpenMP dynamic,chunk; 0: items / (64 P) */
  int64_t grain;        /* bal_for grain (0: adaptive) */
  int64_t reps;         /* interleaved rounds */
  int64_t pause_ms;     /* pause before every timed run */
  bool modes[MODE_COUNT];
  int64_t repeat;       /* calls in a row per timed run (a time-stepping loop) */
  double drift;         /* costs x (1 + 0.5 sin(2 pi i/n + c drift)) at call c */
  int64_t change_at;    /* from this call (1-based; 0: never) items are mirrored */
  double heavy_at;      /* position of mid's heavy item, a fraction of the range */
  double heavy_share;   /* its share of the work */
  int workload; /* -1: all */
  uint64_t seed;
  bool json;
  const char *trace; /* --trace FILE, or NULL */
} options;

/* Results of one (mode, workload). */
typedef struct result {
  int mode;
  workload_id wl;
  int64_t n, chunk;
  double ideal_s;
  double median_s[S_COUNT];
  double ratio[S_COUNT]; /* median over rounds of t(bal_for) / t(schedule) */
  double ratio_learn[S_COUNT]; /* median over rounds of t(bal_for_learn) / t(schedule) */
  /* With --repeat N > 1, times are per call, averaged over calls 2 .. N
   * (ideal_s likewise); with --change-at K: medians of call K alone and of
   * call K + 1 alone (NAN without), and their ideals. */
  double change_s[S_COUNT], after_s[S_COUNT];
  double ideal_change_s, ideal_after_s;
  double eff[S_COUNT];
  int best;          /* baseline with the highest ratio (the fastest), -1 if none */
  int best_learn;    /* the same, against bal_for_learn's times */
  /* bal_for_learn against the best baseline without the winner's curse:
   * the best of ten baselines' medians, picked and measured on the same
   * rounds, is biased low by their noise. Rounds are split into even and
   * odd; each round's t(bal_for_learn) / t(baseline) takes the baseline
   * that was fastest (highest median ratio) on the other half, and this is
   * the median of those per-round ratios (NAN with fewer than 2 rounds). */
  double learn_vs_heldout;
  double target;     /* bound on the targeted figure */
  double target_val; /* the targeted figure (NAN if its baseline is missing) */
  bal_for_stats stats; /* sum over workers, last bal_for run */
  double work_s;       /* the requested work of that run's (last) call */
  /* Median over rounds of bal_for_learn's time over the bound of the work
   * its items measured (busy): per call, the bound scaled by busy over the
   * requested work, so a host slower than the calibration does not count
   * against the schedule. */
  double learn_vs_busy_bound;
} result;

/* The pool bal_for runs on, its grain, and whether to show progress (run.c). */
extern bal_pool *pool;
extern int64_t bal_grain;
extern bool progress;

/* Build the job of (mode, workload), run the interleaved rounds, fill r. */
void bench_one(const options *o, int P, int mode, workload_id wl, double iters_per_ns,
               double tiny_ns, acc_slot *acc, result *r);
void print_table(const options *o, int P, double ipn, double tiny_ns, double overshoot_us,
                 const result *res, int nres);
void print_json(const options *o, int P, double ipn, double tiny_ns, double overshoot_us,
                const result *res, int nres);

#endif
