/* sched: invariants of every policy on prefixes of the real logs (no start
 * before submit, node capacity never exceeded, every job finishes exactly
 * once, FCFS order, EASY never starts the head after its reservation when
 * requested times are upper bounds). Skipped when the logs are absent. */
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

typedef struct logspec {
  const char *file;
  int64_t partition, nodes, cores, first;
} logspec;

static const logspec LOGS[] = {
    {"KTH-SP2-1996-2.1-cln.swf.gz", -1, 100, 1, 4000},
    {"CEA-Curie-2011-2.1-cln.swf.gz", 10, 5040, 16, 12000},
    {"LLNL-Thunder-2007-1.1-cln.swf.gz", -1, 1002, 4, 12000},
};

static bal_swf_trace *load(const logspec *l) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", BALLAST_SWF_DIR, l->file);
  if (access(path, R_OK) != 0) return NULL;
  bal_swf_options opt;
  bal_swf_options_init(&opt);
  opt.partition = l->partition;
  opt.first = l->first;
  bal_swf_trace *t = NULL;
  assert_int_equal(bal_swf_read_file(path, &opt, &t, NULL), BAL_OK);
  assert_int_equal((int64_t)t->njobs, l->first);
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

static void check_run(const bal_swf_trace *t, const bal_sched_config *cfg, bool clipped) {
  bal_sched_result *r = NULL;
  assert_int_equal(bal_sched_run(t, cfg, &r), BAL_OK);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  assert_int_equal(s->invariant_violations, 0);
  int64_t n;
  const bal_sched_job *jobs = bal_sched_result_jobs(r, &n);
  assert_int_equal(n, t->njobs);
  assert_int_equal(s->jobs + s->rejected_too_large, (int64_t)n);
  change *ch = malloc(2 * n * sizeof *ch);
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
  bal_sched_result_destroy(r);
}

static void run_all(const logspec *l, bool clip) {
  bal_swf_trace *t = load(l);
  if (!t) {
    fprintf(stderr, "%s not found in %s: skipped\n", l->file, BALLAST_SWF_DIR);
    skip();
  }
  if (clip) /* requested times become upper bounds: EASY's guarantee holds */
    for (int64_t i = 0; i < t->njobs; i++)
      if (t->jobs[i].runtime > t->jobs[i].req_time) t->jobs[i].runtime = t->jobs[i].req_time;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.nodes = l->nodes;
  cfg.cores_per_node = l->cores;
  cfg.check_invariants = true;
  static const char *const policies[] = {"fcfs", "easy", "sd"};
  for (int p = 0; p < 3; p++) {
    cfg.policy = policies[p];
    check_run(t, &cfg, clip);
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
  bal_swf_trace_destroy(t);
}

static void kth(void **state) {
  (void)state;
  run_all(&LOGS[0], false);
  run_all(&LOGS[0], true);
}

static void curie(void **state) {
  (void)state;
  run_all(&LOGS[1], false);
  run_all(&LOGS[1], true);
}

static void thunder(void **state) {
  (void)state;
  run_all(&LOGS[2], false);
  run_all(&LOGS[2], true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(kth),
      cmocka_unit_test(curie),
      cmocka_unit_test(thunder),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
