/* Timed runs: every schedule once per round, in a shuffled order, with a
 * pause before each run so other runtimes' spinning workers are idle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/clock.h"
#include "factoring.h"
#include "stats.h"
#include "schedules.h"
#include "trace.h"

const char *const sched_names[S_COUNT] = {
    "bal_for",  "bal_for_learn", "omp_static", "omp_dynamic_1", "omp_dynamic_chunk", "omp_guided",
    "tbb_auto", "fac2",          "wf",         "awf_b",         "af"};
/* bal_for_learn: main.c turns it on with --repeat >= 2. */
bool sched_avail[S_COUNT] = {true,     false, HAVE_OMP, HAVE_OMP, HAVE_OMP, HAVE_OMP,
                             HAVE_TBB, true,  true,     true,     true};
const char *const mode_names[MODE_COUNT] = {"spin", "sleep"};

bal_pool *pool;
int64_t bal_grain;
bool progress;

static void bal_body(int64_t lo, int64_t hi, void *arg) {
  const bench_job *job = arg;
  bench_run_range(job, lo, hi, &job->acc[bal_worker_id()]);
}

static void run_schedule(int s, const bench_job *job, bal_loop *loop) {
  int rc = 0;
  switch (s) {
  case S_BAL: bal_for(pool, 0, job->n, bal_grain, bal_body, (void *)job); break;
  case S_LEARN: rc = bal_for_learn(pool, loop, 0, job->n, bal_grain, bal_body, (void *)job); break;
  case S_FAC2: rc = fac_run(FAC_FAC2, pool, job); break;
  case S_WF: rc = fac_run(FAC_WF, pool, job); break;
  case S_AWFB: rc = fac_run(FAC_AWFB, pool, job); break;
  case S_AF: rc = fac_run(FAC_AF, pool, job); break;
#ifdef BENCH_HAVE_OPENMP
  case S_OMP_STATIC: omp_run(OMP_STATIC, job); break;
  case S_OMP_DYN1: omp_run(OMP_DYNAMIC_1, job); break;
  case S_OMP_DYNC: omp_run(OMP_DYNAMIC_CHUNK, job); break;
  case S_OMP_GUIDED: omp_run(OMP_GUIDED, job); break;
#endif
#ifdef BENCH_HAVE_TBB
  case S_TBB: tbb_run(job); break;
#endif
  default: break;
  }
  if (rc != 0) {
    fprintf(stderr, PROG ": %s failed: %s\n", sched_names[s],
            rc < 0 && s == S_LEARN ? bal_strerror(rc) : "out of memory");
    exit(1);
  }
}

static void pause_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) != 0) {
  }
}

/* Order of the schedules in one round: a permutation drawn from the seed.
 * Not a rotation: a rotation keeps each schedule's predecessor fixed, and
 * with other tenants on the cores bal_for measured 1.06-1.28 x the best
 * other schedule when it always ran right after TBB, 1.01-1.06 otherwise
 * (see docs/BENCHMARKS.md). */
static void shuffle(int *v, int n, uint64_t *state) {
  for (int i = n - 1; i > 0; i--) {
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    z ^= z >> 31;
    int j = (int)(z % (uint64_t)(i + 1)), t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* The costs of call c (0-based) of a sequence: the base costs, mirrored
 * from call change_at on, times the drift field. */
typedef struct call_costs {
  uint64_t *iters; /* spin */
  int64_t *ns;     /* sleep */
  double ideal_s;
  double work_s; /* the sum of the requested costs */
} call_costs;

/* One timed sequence of o->repeat calls of schedule s (bal_for_learn: with
 * one new bal_loop); t[c] receives call c's time and, for bal_for_learn
 * (the only schedule whose bound run.c scales by it), busy[c] the summed
 * time its bodies took (NAN for the others). Checks that every item ran
 * exactly once in each call. */
static void timed_run(int s, bench_job *job, const call_costs *calls, int ncalls, double *t,
                      double *busy) {
  bal_loop *loop = NULL;
  if (s == S_LEARN && bal_loop_create(&loop) != BAL_OK) {
    fprintf(stderr, PROG ": out of memory\n");
    exit(1);
  }
  for (int c = 0; c < ncalls; c++) {
    if (calls) {
      job->spin_iters = calls[c].iters;
      job->sleep_ns = calls[c].ns;
    }
    memset(job->acc, 0, sizeof(acc_slot) * (size_t)job->threads);
    double t0 = bal__now_s();
    run_schedule(s, job, loop);
    t[c] = bal__now_s() - t0;
    busy[c] = NAN;
    bal_for_stats st;
    if (s == S_LEARN && bal_for_last_stats(pool, -1, &st) == BAL_OK)
      busy[c] = st.busy_seconds;
    int64_t items = 0;
    for (int k = 0; k < job->threads; k++) items += job->acc[k].items;
    if (items != job->n) {
      fprintf(stderr, PROG ": internal error: %s ran %lld of %lld items\n", sched_names[s],
              (long long)items, (long long)job->n);
      exit(1);
    }
  }
  bal_loop_destroy(loop);
}

/* --trace with --repeat N: one more, untimed, sequence of N bal_for_learn
 * calls on a new loop, the last one drawn (its deal is the profile's). */
static void trace_learn(int mode, workload_id wl, bench_job *job, const call_costs *calls,
                        int ncalls, int64_t pause) {
  bal_loop *loop = NULL;
  if (bal_loop_create(&loop) != BAL_OK) {
    fprintf(stderr, PROG ": out of memory\n");
    exit(1);
  }
  pause_ms(pause);
  for (int c = 0; c + 1 < ncalls; c++) {
    if (calls) {
      job->spin_iters = calls[c].iters;
      job->sleep_ns = calls[c].ns;
    }
    memset(job->acc, 0, sizeof(acc_slot) * (size_t)job->threads);
    run_schedule(S_LEARN, job, loop);
  }
  if (calls) {
    job->spin_iters = calls[ncalls - 1].iters;
    job->sleep_ns = calls[ncalls - 1].ns;
  }
  bool ok = trace_run(pool, loop, bal_grain, mode_names[mode], workload_name(wl), job);
  bal_loop_destroy(loop);
  if (!ok) {
    trace_close(false);
    exit(1);
  }
}

/* Mean of t[from .. n) (t[0] when n == 1). */
static double steady(const double *t, int n) {
  if (n == 1) return t[0];
  double sum = 0;
  for (int c = 1; c < n; c++) sum += t[c];
  return sum / (n - 1);
}
/* bal_for_learn over the best baseline picked on the other rounds
 * (result.learn_vs_heldout, bench.h; stats.h). */
static double learn_vs_heldout_best(double ratios_learn[][MAX_REPS], const int *avail, int na,
                                    int reps) {
  const double *rows[S_COUNT];
  int nrows = 0;
  for (int q = 0; q < na; q++)
    if (IS_BASELINE(avail[q])) rows[nrows++] = ratios_learn[avail[q]];
  return bench_heldout_ratio(rows, nrows, reps, NULL, NULL);
}


/* Build the job of (mode, workload), run the interleaved rounds, fill r. */
void bench_one(const options *o, int P, int mode, workload_id wl, double iters_per_ns,
                      double tiny_ns, acc_slot *acc, result *r) {
  bench_job job = {.threads = P, .acc = acc};
  int ncalls = (int)o->repeat;
  call_costs *calls = NULL;
  double *base = NULL;
  memset(r, 0, sizeof *r);
  r->mode = mode;
  r->wl = wl;
  if (wl == WL_UNIFORM) {
    /* The tiny kernel has no cost array: no drift, no change. */
    job.kind = KERNEL_TINY;
    job.n = o->tiny_items;
    r->ideal_s = tiny_ns * (double)job.n / P * 1e-9;
    r->ideal_change_s = r->ideal_after_s = r->ideal_s;
    r->work_s = tiny_ns * (double)job.n * 1e-9;
  } else {
    job.n = mode == MODE_SPIN ? o->items : o->sleep_items;
    job.kind = mode == MODE_SPIN ? KERNEL_SPIN : KERNEL_SLEEP;
    double mean = mode == MODE_SPIN ? o->spin_mean_ns : o->sleep_mean_us * 1e3;
    base = malloc(sizeof *base * (size_t)job.n);
    calls = calloc((size_t)ncalls, sizeof *calls);
    if (!base || !calls) {
      fprintf(stderr, PROG ": out of memory\n");
      exit(1);
    }
    workload_shape(wl, job.n, o->seed, o->heavy_at, o->heavy_share, base);
    double ideal_sum = 0;
    for (int c = 0; c < ncalls; c++) {
      bool mirrored = o->change_at > 0 && c + 1 >= o->change_at;
      if (mode == MODE_SPIN)
        calls[c].iters = malloc(sizeof *calls[c].iters * (size_t)job.n);
      else
        calls[c].ns = malloc(sizeof *calls[c].ns * (size_t)job.n);
      if (!calls[c].iters && !calls[c].ns) {
        fprintf(stderr, PROG ": out of memory (--repeat %d x %lld items)\n", ncalls,
                (long long)job.n);
        exit(1);
      }
      double total = 0, max = 0;
      for (int64_t i = 0; i < job.n; i++) {
        double x = mean * base[mirrored ? job.n - 1 - i : i];
        if (o->drift > 0)
          x *= 1 + 0.5 * sin(2 * M_PI * (double)i / (double)job.n + (double)c * o->drift);
        total += x;
        if (x > max) max = x;
        if (calls[c].iters) calls[c].iters[i] = (uint64_t)llround(x * iters_per_ns);
        if (calls[c].ns) calls[c].ns[i] = (int64_t)llround(x);
      }
      calls[c].ideal_s = fmax(total / P, max) * 1e-9;
      calls[c].work_s = total * 1e-9;
      if (c >= 1 || ncalls == 1) ideal_sum += calls[c].ideal_s;
    }
    free(base);
    r->work_s = calls[ncalls - 1].work_s; /* bal_for's last call, which stats describe */
    r->ideal_s = ideal_sum / (ncalls > 1 ? ncalls - 1 : 1);
    int k = (int)o->change_at - 1;
    r->ideal_change_s = k >= 0 && k < ncalls ? calls[k].ideal_s : NAN;
    r->ideal_after_s = k >= 0 && k + 1 < ncalls ? calls[k + 1].ideal_s : NAN;
    job.spin_iters = calls[0].iters;
    job.sleep_ns = calls[0].ns;
  }
  job.chunk = o->chunk ? o->chunk : (job.n / (64 * P) > 0 ? job.n / (64 * P) : 1);
  r->n = job.n;
  r->chunk = job.chunk;

  int reps = (int)o->reps;
  static double times[S_COUNT][MAX_REPS], ratios[S_COUNT][MAX_REPS],
      ratios_learn[S_COUNT][MAX_REPS], change[S_COUNT][MAX_REPS], after[S_COUNT][MAX_REPS],
      learn_busy_bound[MAX_REPS];
  int avail[S_COUNT], na = 0;
  for (int s = 0; s < S_COUNT; s++)
    if (sched_avail[s]) avail[na++] = s;
  uint64_t order_state = o->seed ^ ((uint64_t)(mode * WL_COUNT + (int)wl) << 32);
  int k = (int)o->change_at - 1;
  /* Round -1 is an untimed warm-up (threads, arenas, page faults). */
  for (int round = -1; round < reps; round++) {
    if (progress)
      fprintf(stderr, "\r%s %-8s round %d/%d ", mode_names[mode], workload_name(wl), round + 1,
              reps);
    double t[S_COUNT], tc[MAX_REPEAT], busy[MAX_REPEAT];
    int order[S_COUNT];
    memcpy(order, avail, sizeof(int) * (size_t)na);
    if (round >= 0) shuffle(order, na, &order_state);
    for (int q = 0; q < na; q++) {
      int s = order[q];
      pause_ms(o->pause_ms);
      timed_run(s, &job, calls, ncalls, tc, busy);
      t[s] = steady(tc, ncalls);
      if (s == S_LEARN && round >= 0) {
        /* The bound of the work the items really took in these calls:
         * each call's bound scaled by its measured / requested work. */
        double bound[MAX_REPEAT];
        for (int c = 0; c < ncalls; c++)
          bound[c] = (calls ? calls[c].ideal_s / calls[c].work_s : r->ideal_s / r->work_s) * busy[c];
        learn_busy_bound[round] = steady(tc, ncalls) / steady(bound, ncalls);
      }
      if (round >= 0) {
        change[s][round] = k >= 0 && k < ncalls ? tc[k] : NAN;
        after[s][round] = k >= 0 && k + 1 < ncalls ? tc[k + 1] : NAN;
      }
      if (s == S_BAL && round == reps - 1) bal_for_last_stats(pool, -1, &r->stats);
    }
    if (round < 0) continue;
    for (int q = 0; q < na; q++) {
      int s = avail[q];
      times[s][round] = t[s];
      ratios[s][round] = t[S_BAL] / t[s];
      ratios_learn[s][round] = sched_avail[S_LEARN] ? t[S_LEARN] / t[s] : NAN;
    }
  }
  if (progress) fprintf(stderr, "\r%40s\r", "");
  if (o->trace) {
    /* One more, untimed, run of bal_for to draw: after the same pause. */
    pause_ms(o->pause_ms);
    if (!trace_run(pool, NULL, bal_grain, mode_names[mode], workload_name(wl), &job)) {
      trace_close(false);
      exit(1);
    }
    if (sched_avail[S_LEARN]) trace_learn(mode, wl, &job, calls, ncalls, o->pause_ms);
  }

  r->learn_vs_busy_bound = sched_avail[S_LEARN] ? bench_median(learn_busy_bound, reps) : NAN;
  /* Before the medians below: bench_median sorts its array in place, and
   * the held-out figure needs the rounds in their order (even / odd). */
  r->learn_vs_heldout =
      sched_avail[S_LEARN] ? learn_vs_heldout_best(ratios_learn, avail, na, reps) : NAN;
  r->best = r->best_learn = -1;
  for (int s = 0; s < S_COUNT; s++) {
    if (!sched_avail[s]) {
      r->median_s[s] = r->ratio[s] = r->ratio_learn[s] = r->eff[s] = NAN;
      r->change_s[s] = r->after_s[s] = NAN;
      continue;
    }
    r->median_s[s] = bench_median(times[s], reps);
    r->ratio[s] = bench_median(ratios[s], reps);
    r->ratio_learn[s] = sched_avail[S_LEARN] ? bench_median(ratios_learn[s], reps) : NAN;
    r->change_s[s] = isnan(change[s][0]) ? NAN : bench_median(change[s], reps);
    r->after_s[s] = isnan(after[s][0]) ? NAN : bench_median(after[s], reps);
    r->eff[s] = r->ideal_s / r->median_s[s];
    if (IS_BASELINE(s) && (r->best < 0 || r->ratio[s] > r->ratio[r->best])) r->best = s;
    if (IS_BASELINE(s) && sched_avail[S_LEARN] &&
        (r->best_learn < 0 || r->ratio_learn[s] > r->ratio_learn[r->best_learn]))
      r->best_learn = s;
  }
  if (mode == MODE_SLEEP) {
    r->target = 0.95;
    r->target_val = r->eff[S_BAL];
  } else if (wl == WL_UNIFORM) {
    r->target = 1.10;
    r->target_val = r->ratio[S_OMP_STATIC];
  } else {
    r->target = 1.05;
    r->target_val = r->best >= 0 ? r->ratio[r->best] : NAN;
  }
  for (int c = 0; calls && c < ncalls; c++) {
    free(calls[c].iters);
    free(calls[c].ns);
  }
  free(calls);
}
