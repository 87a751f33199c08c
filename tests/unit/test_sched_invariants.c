/* sched: invariants of every policy (no start before submit, node capacity
 * never exceeded, every job finishes exactly once, FCFS order, EASY never
 * starts the head after its reservation when requested times are upper
 * bounds, the simulator's own node accounting).
 *
 * Without arguments: on synthetic traces generated here from fixed seeds,
 * so the checks always run. With --logs: on prefixes of the real logs in
 * BALLAST_SWF_DIR; if a log is absent it exits 77, which CTest reports as
 * skipped (SKIP_RETURN_CODE), never as passed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "core/rng.h"

typedef struct logspec {
  const char *file;
  int64_t partition, nodes, cores, first;
} logspec;

static const logspec LOGS[] = {
    {"KTH-SP2-1996-2.1-cln.swf.gz", -1, 100, 1, 4000},
    {"CEA-Curie-2011-2.1-cln.swf.gz", 10, 5040, 16, 12000},
    {"LLNL-Thunder-2007-1.1-cln.swf.gz", -1, 1002, 4, 12000},
};

static bool log_path(const logspec *l, char *path, size_t n) {
  snprintf(path, n, "%s/%s", BALLAST_SWF_DIR, l->file);
  return access(path, R_OK) == 0;
}

static bal_swf_trace *load(const logspec *l) {
  char path[1024];
  assert_true(log_path(l, path, sizeof path)); /* main() checked */
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.partition = l->partition;
  opt.first = l->first;
  bal_swf_trace *t = NULL;
  assert_int_equal(bal_swf_read_file(path, &opt, &t, NULL), BAL_OK);
  assert_int_equal(t->njobs, l->first);
  return t;
}

/* core's SplitMix64: a fixed, portable stream for the synthetic traces. */
static uint64_t next_u64(uint64_t *x) { return bal__splitmix64(x); }

static int64_t below(uint64_t *x, int64_t n) { return (int64_t)(next_u64(x) % (uint64_t)n); }

/* A synthetic SWF log for a machine of `nodes` x `cores`, overloaded so a
 * queue forms: bursts of simultaneous arrivals, sizes from 1 core to more
 * than the machine (rejected), runtimes of 0 and above the requested time,
 * requested times -1 (taken from the runtime), sizes that repeat, so mates
 * of equal size compete, and jobs that leave cores of their nodes free. */
static bal_swf_trace *synthetic(uint64_t seed, int64_t njobs, int64_t nodes, int64_t cores) {
  size_t cap = (size_t)njobs * 128 + 64, len = 0;
  char *text = malloc(cap);
  assert_non_null(text);
  int64_t submit = 0;
  for (int64_t i = 1; i <= njobs; i++) {
    if (below(&seed, 4) != 0) submit += below(&seed, 120); /* else: same instant */
    int64_t procs;
    switch (below(&seed, 8)) {
    case 0: procs = 1 + below(&seed, cores); break;             /* part of one node */
    case 1: procs = nodes * cores + 1 + below(&seed, cores); break; /* too large */
    case 2: procs = nodes * cores; break;                       /* the whole machine */
    case 3: procs = 1 + below(&seed, cores / 2); break;         /* half a node at most */
    /* whole nodes, or a few cores short: a mate keeps a core per rank
     * (procs per node), so only jobs with spare cores can lend */
    default: procs = cores * (1 + below(&seed, nodes / 4)) - below(&seed, 2) * below(&seed, cores); break;
    }
    int64_t runtime = below(&seed, 16) == 0 ? 0 : 1 + below(&seed, 3000);
    int64_t req;
    switch (below(&seed, 6)) {
    case 0: req = -1; break;                                   /* unknown */
    case 1: req = runtime / 2; break;                          /* underestimated */
    default: req = runtime + below(&seed, 2000); break;
    }
    int w = snprintf(text + len, cap - len,
                     "%lld %lld -1 %lld %lld -1 -1 %lld %lld -1 1 1 1 -1 1 1 -1 -1\n",
                     (long long)i, (long long)submit, (long long)runtime, (long long)procs,
                     (long long)procs, (long long)req);
    assert_true(w > 0 && (size_t)w < cap - len);
    len += (size_t)w;
  }
  bal_swf_trace *t = NULL;
  assert_int_equal(bal_swf_read_mem(text, len, NULL, &t, NULL), BAL_OK);
  assert_int_equal(t->njobs, njobs);
  free(text);
  return t;
}

/* At one instant ends come before starts (kind 0, 1). Jobs that take no
 * time hold no nodes in this sweep (the simulator frees them within the
 * instant; its own node accounting is checked by check_invariants). */
typedef struct change {
  double t;
  int kind;
  int64_t delta;
} change;

static int cmp_change(const void *a, const void *b) {
  const change *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return (x->kind > y->kind) - (x->kind < y->kind);
}

static int64_t check_run(const bal_swf_trace *t, const bal_sched_config *cfg, bool clipped) {
  bal_sched_result *r = NULL;
  assert_int_equal(bal_sched_run(t, cfg, &r), BAL_OK);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  assert_int_equal(s->invariant_violations, 0);
  int64_t n;
  const bal_sched_job *jobs = bal_sched_result_jobs(r, &n);
  assert_int_equal(n, t->njobs);
  assert_int_equal(s->jobs + s->rejected_too_large, n);
  change *ch = malloc(2 * (size_t)n * sizeof *ch);
  assert_non_null(ch);
  size_t nch = 0;
  bool is_sd = !strcmp(cfg->policy, "sd");
  double last_start = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    const bal_sched_job *j = &jobs[i];
    if (j->rejected) {
      assert_true(j->nodes > cfg->nodes);
      continue;
    }
    assert_true(isfinite(j->start) && isfinite(j->end)); /* finished, once */
    assert_true(j->start >= (double)j->submit);
    double ran = j->end - j->start;
    if (is_sd) assert_true(ran >= (double)j->runtime - 1e-6); /* shrinking only slows */
    else assert_float_equal(ran, (double)j->runtime, 1e-9);
    if (!strcmp(cfg->policy, "fcfs")) {
      assert_true(j->start >= last_start);
      last_start = j->start;
    }
    if (clipped && !is_sd && j->reservation >= 0) assert_true(j->start <= j->reservation + 1e-9);
    if (j->mates == 0 && j->end > j->start) { /* guests run inside their mates' nodes */
      ch[nch++] = (change){j->start, 1, j->nodes};
      ch[nch++] = (change){j->end, 0, -j->nodes};
    }
  }
  qsort(ch, nch, sizeof *ch, cmp_change);
  int64_t used = 0;
  for (size_t i = 0; i < nch; i++) {
    used += ch[i].delta;
    if (used < 0 || used > cfg->nodes)
      fail_msg("%s: %lld nodes in use at %.3f", cfg->policy, (long long)used, ch[i].t);
  }
  assert_int_equal(used, 0);
  free(ch);
  int64_t selections = s->mate_selections;
  bal_sched_result_destroy(r);
  return selections;
}

/* Every registered policy, then sd under other settings. Returns the mate
 * selections of the default sd run (the caller checks sharing happened). */
static int64_t run_all(bal_swf_trace *t, int64_t nodes, int64_t cores, bool clip) {
  if (clip) /* requested times become upper bounds: EASY's guarantee holds */
    for (int64_t i = 0; i < t->njobs; i++)
      if (t->jobs[i].runtime > t->jobs[i].req_time) t->jobs[i].runtime = t->jobs[i].req_time;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.nodes = nodes;
  cfg.cores_per_node = cores;
  cfg.check_invariants = true;
  int64_t selections = -1;
  for (int p = 0; bal_sched_policy_name(p); p++) {
    cfg.policy = bal_sched_policy_name(p);
    int64_t sel = check_run(t, &cfg, clip);
    if (!strcmp(cfg.policy, "sd")) selections = sel;
  }
  cfg.policy = "sd";
  cfg.runtime_model = BAL_SCHED_WORST;
  cfg.dynamic_max_slowdown = true;
  check_run(t, &cfg, clip);
  cfg.runtime_model = BAL_SCHED_IDEAL;
  cfg.dynamic_max_slowdown = false;
  cfg.max_slowdown = INFINITY;
  cfg.max_mates = 3;
  cfg.malleable_fraction = 0.5;
  cfg.seed = 7;
  check_run(t, &cfg, clip);
  cfg.max_mates = BAL_SCHED_MAX_MATES;
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  assert_int_equal(bal_sched_config_set(&cfg, "sd.mate_cost", "sum"), BAL_OK);
  check_run(t, &cfg, clip);
  return selections;
}

/* Three seeds, each as logged and with requested times as upper bounds. SD
 * must actually share (dozens of mate selections), or the sd checks would
 * test nothing. The event heap grows past its first 64 events here. */
static void synthetic_traces(void **state) {
  (void)state;
  for (uint64_t seed = 1; seed <= 3; seed++) {
    for (int clip = 0; clip < 2; clip++) {
      bal_swf_trace *t = synthetic(seed, 3000, 64, 16);
      int64_t selections = run_all(t, 64, 16, clip);
      if (selections < 40)
        fail_msg("seed %llu: only %lld mate selections", (unsigned long long)seed,
                 (long long)selections);
      bal_swf_trace_destroy(t);
    }
  }
}

static void real_log(const logspec *l) {
  for (int clip = 0; clip < 2; clip++) {
    bal_swf_trace *t = load(l);
    run_all(t, l->nodes, l->cores, clip);
    bal_swf_trace_destroy(t);
  }
}

static void kth(void **state) {
  (void)state;
  real_log(&LOGS[0]);
}

static void curie(void **state) {
  (void)state;
  real_log(&LOGS[1]);
}

static void thunder(void **state) {
  (void)state;
  real_log(&LOGS[2]);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--logs")) {
    bool missing = false;
    for (size_t i = 0; i < sizeof LOGS / sizeof LOGS[0]; i++) {
      char path[1024];
      if (!log_path(&LOGS[i], path, sizeof path)) {
        fprintf(stderr, "%s: not readable\n", path);
        missing = true;
      }
    }
    if (missing) {
      fprintf(stderr, "real-log invariants skipped (set BALLAST_SWF_DIR at configure time)\n");
      return 77; /* CTest: SKIP_RETURN_CODE */
    }
    const struct CMUnitTest logs[] = {
        cmocka_unit_test(kth),
        cmocka_unit_test(curie),
        cmocka_unit_test(thunder),
    };
    return cmocka_run_group_tests(logs, NULL, NULL);
  }
  if (argc > 1) {
    fprintf(stderr, "usage: %s [--logs]\n", argv[0]);
    return 2;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(synthetic_traces),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
