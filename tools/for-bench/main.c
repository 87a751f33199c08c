/* ballast-for-bench: bal_for (and, over repeated calls, bal_for_learn)
 * against OpenMP (static, dynamic,1, dynamic,chunk, guided), TBB
 * parallel_for (auto partitioner) and the factoring family (FAC2, WF,
 * AWF-B, AF; factoring.h) on uniform
 * tiny bodies and seven skewed cost profiles, with spinning (CPU-bound) and
 * sleeping (CPU-contention-immune) bodies. See parse_args() and
 * docs/BENCHMARKS.md. */
#include <ballast/version.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bench.h"
#include "common/cli.h"
#include "schedules.h"
#include "trace.h"


static bool parse_mode(const char *v, void *dest, char *err, size_t n) {
  options *o = dest;
  bool spin = !strcmp(v, "spin"), sleep = !strcmp(v, "sleep"), both = !strcmp(v, "both");
  if (!spin && !sleep && !both) {
    snprintf(err, n, "'%s' is not spin, sleep or both", v);
    return false;
  }
  o->modes[MODE_SPIN] = spin || both;
  o->modes[MODE_SLEEP] = sleep || both;
  return true;
}

static bool parse_workload(const char *v, void *dest, char *err, size_t n) {
  options *o = dest;
  workload_id w;
  if (!strcmp(v, "all"))
    o->workload = -1;
  else if (workload_parse(v, &w))
    o->workload = (int)w;
  else {
    snprintf(err, n, "'%s' is not uniform, ramp, bump, exp, heavy, mid, block, lognorm or all", v);
    return false;
  }
  return true;
}

static int parse_args(int argc, char **argv, options *o) {
  const cli_flag flags[] = {
      CLI_INT("--threads", "P", &o->threads, 1, BAL_POOL_MAX_THREADS,
              "threads for every schedule (default: bal_pool_create(0):\n"
              "BALLAST_NUM_THREADS or the CPUs)"),
      CLI_CUSTOM("--mode", "M", o, parse_mode,
                 "spin, sleep or both (default both: spin on all eight\n"
                 "workloads, sleep on the seven skewed ones)"),
      CLI_CUSTOM("--workload", "W", o, parse_workload,
                 "uniform, ramp, bump, exp, heavy, mid, block, lognorm or\n"
                 "all (default all)"),
      CLI_INT("--items", "N", &o->items, WORKLOAD_MIN_ITEMS, INT64_C(1) << 31,
              "items of the skewed spin workloads (default 100000)"),
      CLI_DOUBLE("--spin-mean-ns", "X", &o->spin_mean_ns, 1, 1e7,
                 "mean item cost in spin mode (default 1000)"),
      CLI_INT("--tiny-items", "N", &o->tiny_items, 1, INT64_C(1) << 40,
              "items of the uniform workload (default 33554432)"),
      CLI_INT("--sleep-items", "N", &o->sleep_items, WORKLOAD_MIN_ITEMS, 1000000,
              "items of the sleep workloads (default 150)"),
      CLI_DOUBLE("--sleep-mean-us", "X", &o->sleep_mean_us, 1000, 1e6,
                 "mean item cost in sleep mode, >= 1000 so that every\n"
                 "item sleeps >= 200 us (default 4000, see Modes)"),
      CLI_INT("--chunk", "C", &o->chunk, 1, INT64_C(1) << 40,
              "OpenMP dynamic,C chunk (default items / (64 P), >= 1)"),
      CLI_INT("--grain", "G", &o->grain, 0, INT64_C(1) << 40, "bal_for grain (default 0: adaptive)"),
      CLI_INT("--reps", "R", &o->reps, 1, MAX_REPS, "interleaved rounds per workload (default 9)"),
      CLI_INT("--pause-ms", "T", &o->pause_ms, 0, 10000,
              "pause before each timed run (default 30)"),
      CLI_INT("--repeat", "N", &o->repeat, 1, MAX_REPEAT,
              "calls in a row per timed run, as a time-stepping loop\n"
              "makes (default 1); with N >= 2 bal_for_learn joins the\n"
              "schedules and times are per call over calls 2..N"),
      CLI_DOUBLE("--drift", "F", &o->drift, 0, 1,
                 "between calls, item i's cost at call c is its cost\n"
                 "x (1 + 0.5 sin(2 pi i/n + c F)): <= F relative change\n"
                 "per call (default 0; skewed workloads only)"),
      CLI_INT("--change-at", "K", &o->change_at, 2, MAX_REPEAT,
              "abrupt change: from call K on the costs are mirrored\n"
              "(item i costs what item n-1-i did); calls K and K+1 are\n"
              "reported alone (needs --repeat >= K)"),
      CLI_DOUBLE("--heavy-at", "X", &o->heavy_at, 0, 0.999999,
                 "where mid's heavy item (a quarter of the work) lies, as\n"
                 "a fraction of the range (default 0.4)"),
      CLI_DOUBLE("--heavy-share", "S", &o->heavy_share, 0.01, 0.9,
                 "share of the work in mid's heavy item (default 0.25)"),
      CLI_UINT("--seed", "S", &o->seed,
               "seed of the exp workload and of the run order (default 1)"),
      CLI_BOOL("--json", &o->json, "print one JSON object (parameters and results)"),
      CLI_PATH("--trace", "FILE", &o->trace,
               "after each workload's rounds, run bal_for once more and\n"
               "write every body call (worker, start, end, indices) to\n"
               "FILE; with --repeat N also the last of N more\n"
               "bal_for_learn calls; bench/for/trace.gp draws it"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = PROG " [OPTIONS]",
      .description = "Compare bal_for with OpenMP schedule(static), (dynamic,1), (dynamic,C), (guided)\n"
          "(libgomp), TBB parallel_for (auto_partitioner, in a task_arena of P threads) and\n"
          "the factoring schedules FAC2, WF, AWF-B and AF (on bal_for's pool threads; WF's\n"
          "weights are 1 on these identical threads, so it deals as FAC2). With --repeat N\n"
          "every schedule runs each workload N times in a row and bal_for_learn (one\n"
          "bal_loop per sequence) joins them.\n"
          "Every schedule runs the same inlined per-item kernel and the same thread count.\n"
          "\n"
          "Workloads (item costs, deterministic from --seed; skewed ones have mean cost M\n"
          "and no item below 0.2 M):\n"
          "  uniform  tiny bodies: one dependent multiply-xor (~1-2 ns), spin mode only\n"
          "  ramp     cost rises linearly from 0.2 M to 1.8 M\n"
          "  bump     gaussian bump: the central 10% of items carry 70% of the cost\n"
          "  exp      0.2 M + 0.8 M x exponential(1) random costs\n"
          "  heavy    item 0 holds half of the total work, the others share the rest\n"
          "  mid      the item at 40% (--heavy-at) of the range holds a quarter\n"
          "           (--heavy-share) of the work\n"
          "  block    the 2% of the items from 60% of the range cost 80 x the others\n"
          "  lognorm  0.2 M + 0.8 M x log-normal(sigma 2) random costs (heavy tail)\n"
          "\n"
          "Modes:\n"
          "  spin   CPU-bound bodies: a dependent integer loop calibrated at start\n"
          "         (iterations per ns, best of 41 short trials). The 2 shared cores of the\n"
          "         reference machine vary in speed from run to run, so each round runs\n"
          "         every schedule once, in a random order (from --seed), and the\n"
          "         figure reported is the median over rounds of t(bal_for)/t(schedule).\n"
          "  sleep  bodies that sleep (clock_nanosleep) for their cost: immune to CPU\n"
          "         contention, so efficiency measures the balancer. Timer slack is\n"
          "         set to 1 ns (prctl) before any thread starts; items >= 200 us.\n"
          "         A sleep on this VM still overshoots by ~50-100 us when the CPU\n"
          "         was idle (wake-up latency), so an item sleeps until 150 us\n"
          "         before its end and reads the clock for the rest: it lasts what\n"
          "         it asks (the median overshoot of 1 ms items is measured at\n"
          "         start and printed as 'sleep overshoot').\n"
          "\n"
          "Reported per workload and schedule: median time over the rounds, ratio =\n"
          "t(bal_for)/t(schedule) (> 1: bal_for slower), efficiency = ideal / median\n"
          "time with ideal = max(total cost / P, largest item) from the requested\n"
          "costs; and bal_for against the best (fastest) baseline. Before each run the\n"
          "program pauses (--pause-ms) so that every runtime starts from idle workers:\n"
          "libgomp spins 7-11 ms after a region here (GOMP_SPINCOUNT is left at its\n"
          "default; libgomp reads it when it loads), TBB up to ~4 ms.",
      .flags = flags,
      .epilog = "Targets (2-core machine): spin, skewed: bal_for <= 1.05 x best baseline;\n"
          "sleep, skewed: bal_for efficiency >= 0.95; uniform: bal_for <= 1.10 x\n"
          "omp_static. Progress goes to stderr when it is a terminal."};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (o->workload == WL_UNIFORM && !o->modes[MODE_SPIN])
    return cli_usage_error(PROG, "--workload uniform runs in spin mode only");
  if (o->change_at > o->repeat)
    return cli_usage_error(PROG, "--change-at K needs --repeat N with N >= K");
  return CLI_CONTINUE;
}

int main(int argc, char **argv) {
  options o = {.items = 100000,
               .sleep_items = 150,
               .tiny_items = INT64_C(1) << 25,
               .spin_mean_ns = 1000,
               .sleep_mean_us = 4000,
               .reps = 9,
               .repeat = 1,
               .heavy_at = WORKLOAD_MID_AT,
               .heavy_share = WORKLOAD_MID_SHARE,
               .pause_ms = 30,
               .modes = {true, true},
               .workload = -1,
               .seed = 1};
  int prc = parse_args(argc, argv, &o);
  if (prc != CLI_CONTINUE) return prc;

  /* Before any thread exists, so that pool, OpenMP and TBB threads inherit
   * it: a 200 us nanosleep overshoots ~80 us with the default 50 us slack,
   * ~9 us with 1 ns. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

  int rc = bal_pool_create((int)o.threads, &pool);
  if (rc != BAL_OK) {
    fprintf(stderr, PROG ": cannot create the thread pool: %s\n", bal_strerror(rc));
    return 1;
  }
  int P = bal_pool_size(pool);
  bal_grain = o.grain;
  sched_avail[S_LEARN] = o.repeat >= 2;
#ifdef BENCH_HAVE_TBB
  if (tbb_setup(P) != 0) sched_avail[S_TBB] = false;
#endif
  progress = isatty(STDERR_FILENO);
  if (o.trace && !trace_open(o.trace, P)) {
    trace_close(false);
    return 1;
  }

  acc_slot *acc = aligned_alloc(64, sizeof(acc_slot) * (size_t)P);
  if (!acc) {
    fprintf(stderr, PROG ": out of memory\n");
    return 1;
  }
  double ipn = kernel_calibrate_spin_sustained(pool, kernel_calibrate_spin());
  double tiny_ns = kernel_calibrate_tiny();
  double overshoot_us = o.modes[MODE_SLEEP] ? kernel_sleep_overshoot_ns(1000000) * 1e-3 : NAN;

  result res[MODE_COUNT * WL_COUNT];
  int nres = 0;
  for (int mode = 0; mode < MODE_COUNT; mode++) {
    if (!o.modes[mode]) continue;
    for (int w = 0; w < WL_COUNT; w++) {
      if (o.workload >= 0 && o.workload != w) continue;
      if (w == WL_UNIFORM && mode != MODE_SPIN) continue;
      bench_one(&o, P, mode, (workload_id)w, ipn, tiny_ns, acc, &res[nres++]);
    }
  }

  if (o.json)
    print_json(&o, P, ipn, tiny_ns, overshoot_us, res, nres);
  else
    print_table(&o, P, ipn, tiny_ns, overshoot_us, res, nres);
  int status = o.trace && !trace_close(true) ? 1 : 0;

#ifdef BENCH_HAVE_TBB
  tbb_teardown();
#endif
  free(acc);
  bal_pool_destroy(pool);
  return status;
}
