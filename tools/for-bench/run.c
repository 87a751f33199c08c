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
#include "schedules.h"
#include "trace.h"

const char *const sched_names[S_COUNT] = {
    "bal_for", "omp_static", "omp_dynamic_1", "omp_dynamic_chunk", "omp_guided", "tbb_auto"};
bool sched_avail[S_COUNT] = {true, HAVE_OMP, HAVE_OMP, HAVE_OMP, HAVE_OMP, HAVE_TBB};
const char *const mode_names[MODE_COUNT] = {"spin", "sleep"};

bal_pool *pool;
int64_t bal_grain;
bool progress;

static void bal_body(int64_t lo, int64_t hi, void *arg) {
  const bench_job *job = arg;
  bench_run_range(job, lo, hi, &job->acc[bal_worker_id()]);
}

static void run_schedule(int s, const bench_job *job) {
  switch (s) {
  case S_BAL: bal_for(pool, 0, job->n, bal_grain, bal_body, (void *)job); break;
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

/* One timed run; checks that every item ran exactly once in total. */
static double timed_run(int s, const bench_job *job) {
  memset(job->acc, 0, sizeof(acc_slot) * (size_t)job->threads);
  double t0 = bal__now_s();
  run_schedule(s, job);
  double dt = bal__now_s() - t0;
  int64_t items = 0;
  for (int t = 0; t < job->threads; t++) items += job->acc[t].items;
  if (items != job->n) {
    fprintf(stderr, PROG ": internal error: %s ran %lld of %lld items\n", sched_names[s],
            (long long)items, (long long)job->n);
    exit(1);
  }
  return dt;
}

/* Build the job of (mode, workload), run the interleaved rounds, fill r. */
void bench_one(const options *o, int P, int mode, workload_id wl, double iters_per_ns,
                      double tiny_ns, acc_slot *acc, result *r) {
  bench_job job = {.threads = P, .acc = acc};
  uint64_t *iters = NULL;
  int64_t *ns = NULL;
  double *shape = NULL;
  double total_ns = 0, max_ns = 0;
  memset(r, 0, sizeof *r);
  r->mode = mode;
  r->wl = wl;
  if (wl == WL_UNIFORM) {
    job.kind = KERNEL_TINY;
    job.n = o->tiny_items;
    total_ns = tiny_ns * (double)job.n;
    max_ns = tiny_ns;
  } else {
    job.n = mode == MODE_SPIN ? o->items : o->sleep_items;
    double mean = mode == MODE_SPIN ? o->spin_mean_ns : o->sleep_mean_us * 1e3;
    shape = malloc(sizeof *shape * (size_t)job.n);
    if (mode == MODE_SPIN) {
      job.kind = KERNEL_SPIN;
      job.spin_iters = iters = malloc(sizeof *iters * (size_t)job.n);
    } else {
      job.kind = KERNEL_SLEEP;
      job.sleep_ns = ns = malloc(sizeof *ns * (size_t)job.n);
    }
    if (!shape || (!iters && !ns)) {
      fprintf(stderr, PROG ": out of memory\n");
      exit(1);
    }
    workload_shape(wl, job.n, o->seed, shape);
    for (int64_t i = 0; i < job.n; i++) {
      double c = mean * shape[i];
      total_ns += c;
      if (c > max_ns) max_ns = c;
      if (iters) iters[i] = (uint64_t)llround(c * iters_per_ns);
      if (ns) ns[i] = (int64_t)llround(c);
    }
    free(shape);
  }
  job.chunk = o->chunk ? o->chunk : (job.n / (64 * P) > 0 ? job.n / (64 * P) : 1);
  r->n = job.n;
  r->chunk = job.chunk;
  r->ideal_s = fmax(total_ns / P, max_ns) * 1e-9;

  int reps = (int)o->reps;
  static double times[S_COUNT][MAX_REPS], ratios[S_COUNT][MAX_REPS];
  int avail[S_COUNT], na = 0;
  for (int s = 0; s < S_COUNT; s++)
    if (sched_avail[s]) avail[na++] = s;
  uint64_t order_state = o->seed ^ ((uint64_t)(mode * WL_COUNT + (int)wl) << 32);
  /* Round -1 is an untimed warm-up (threads, arenas, page faults). */
  for (int round = -1; round < reps; round++) {
    if (progress)
      fprintf(stderr, "\r%s %-8s round %d/%d ", mode_names[mode], workload_name(wl), round + 1,
              reps);
    double t[S_COUNT];
    int order[S_COUNT];
    memcpy(order, avail, sizeof(int) * (size_t)na);
    if (round >= 0) shuffle(order, na, &order_state);
    for (int k = 0; k < na; k++) {
      int s = order[k];
      pause_ms(o->pause_ms);
      t[s] = timed_run(s, &job);
      if (s == S_BAL && round == reps - 1) bal_for_last_stats(pool, -1, &r->stats);
    }
    if (round < 0) continue;
    for (int k = 0; k < na; k++) {
      int s = avail[k];
      times[s][round] = t[s];
      ratios[s][round] = t[S_BAL] / t[s];
    }
  }
  if (progress) fprintf(stderr, "\r%40s\r", "");
  if (o->trace) {
    /* One more, untimed, run of bal_for to draw: after the same pause. */
    pause_ms(o->pause_ms);
    if (!trace_run(pool, bal_grain, mode_names[mode], workload_name(wl), &job)) {
      trace_close(false);
      exit(1);
    }
  }

  r->best = -1;
  for (int s = 0; s < S_COUNT; s++) {
    if (!sched_avail[s]) {
      r->median_s[s] = r->ratio[s] = r->eff[s] = NAN;
      continue;
    }
    r->median_s[s] = bench_median(times[s], reps);
    r->ratio[s] = bench_median(ratios[s], reps);
    r->eff[s] = r->ideal_s / r->median_s[s];
    if (s != S_BAL && (r->best < 0 || r->ratio[s] > r->ratio[r->best])) r->best = s;
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
  free(iters);
  free(ns);
}
