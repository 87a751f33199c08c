/* bal_sched_summarize(): hand-computed figures for three jobs and a
 * rejected one, a zero makespan, the NaN rules when no job ran, argument
 * checks, and agreement with bal_sched_run()'s own summary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include <ballast/ballast.h>

static bal_sched_job record(int64_t submit, int64_t runtime, int64_t nodes, double start,
                            double end, int64_t mates, int64_t times_mate) {
  bal_sched_job j;
  memset(&j, 0, sizeof j);
  j.submit = submit;
  j.runtime = runtime;
  j.nodes = nodes;
  j.start = start;
  j.end = end;
  j.reservation = -1;
  j.mates = mates;
  j.times_mate = times_mate;
  return j;
}

/* 4 nodes. A (2 nodes, 100 s) runs 0-100 and hosts B; B (1 node, 5 s,
 * submitted at 10) runs 20-30 as A's guest; C (4 nodes, 50 s, submitted at
 * 20) runs 100-150; D asks 8 nodes and is rejected, its times ignored.
 * Waits 0, 10, 80: 30. Responses 100, 20, 130: 250/3. Slowdowns 100/100,
 * 20/5, 130/50 = 1, 4, 2.6: 7.6/3. Bounded (runtimes at least 10 s):
 * 1, 20/10 = 2, 2.6: 5.6/3. Makespan 150 - 0. Work 2x100 + 1x5 + 4x50 =
 * 405 node-seconds over 4 x 150: 0.675. */
static void three_jobs_by_hand(void **state) {
  (void)state;
  bal_sched_job j[4] = {record(0, 100, 2, 0, 100, 0, 1), record(10, 5, 1, 20, 30, 1, 0),
                        record(20, 50, 4, 100, 150, 0, 0), record(30, 7, 8, -1, -1, 0, 0)};
  j[3].rejected = true;
  bal_sched_summary s;
  memset(&s, 0xff, sizeof s);
  assert_int_equal(bal_sched_summarize(j, 4, 4, &s), BAL_OK);
  assert_int_equal(s.jobs, 3);
  assert_int_equal(s.rejected_too_large, 1);
  assert_float_equal(s.makespan, 150, 1e-12);
  assert_float_equal(s.avg_wait, 30, 1e-12);
  assert_float_equal(s.avg_response, 250.0 / 3, 1e-12);
  assert_float_equal(s.avg_slowdown, 7.6 / 3, 1e-12);
  assert_float_equal(s.avg_bounded_slowdown, 5.6 / 3, 1e-12);
  assert_float_equal(s.utilization, 0.675, 1e-12);
  assert_int_equal(s.malleable_jobs, 1);
  assert_int_equal(s.mates, 1);
  assert_int_equal(s.mate_selections, 1);
  /* the simulator's own counts are not the records' */
  assert_int_equal(s.events, 0);
  assert_int_equal(s.max_queue, 0);
  assert_int_equal(s.invariant_violations, 0);
}

/* A single job of zero runtime starting at its submit time: makespan 0,
 * utilization 0 (not a division by zero), slowdown 0 / 1 s, bounded 1. */
static void zero_makespan(void **state) {
  (void)state;
  bal_sched_job j = record(5, 0, 1, 5, 5, 0, 0);
  bal_sched_summary s;
  assert_int_equal(bal_sched_summarize(&j, 1, 1, &s), BAL_OK);
  assert_int_equal(s.jobs, 1);
  assert_float_equal(s.makespan, 0, 0);
  assert_float_equal(s.utilization, 0, 0);
  assert_float_equal(s.avg_slowdown, 0, 0);
  assert_float_equal(s.avg_bounded_slowdown, 1, 0);
}

static void assert_no_figures(const bal_sched_summary *s) {
  assert_int_equal(s->jobs, 0);
  assert_true(isnan(s->makespan) && isnan(s->avg_wait) && isnan(s->avg_response));
  assert_true(isnan(s->avg_slowdown) && isnan(s->avg_bounded_slowdown));
  assert_true(isnan(s->utilization));
  assert_int_equal(s->malleable_jobs, 0);
  assert_int_equal(s->mates, 0);
  assert_int_equal(s->mate_selections, 0);
}

/* No job ran: BAL_OK, counts 0, the averages NaN. */
static void no_job_gives_nan(void **state) {
  (void)state;
  bal_sched_summary s;
  assert_int_equal(bal_sched_summarize(NULL, 0, 4, &s), BAL_OK);
  assert_no_figures(&s);
  assert_int_equal(s.rejected_too_large, 0);
  bal_sched_job j = record(0, 10, 8, -1, -1, 0, 0);
  j.rejected = true;
  assert_int_equal(bal_sched_summarize(&j, 1, 4, &s), BAL_OK);
  assert_no_figures(&s);
  assert_int_equal(s.rejected_too_large, 1);
}

/* Bad arguments: BAL_EINVAL and the output untouched. */
static void arguments_are_checked(void **state) {
  (void)state;
  bal_sched_job j = record(0, 10, 1, 0, 10, 0, 0);
  bal_sched_summary s, before;
  memset(&s, 0x5a, sizeof s);
  before = s;
  assert_int_equal(bal_sched_summarize(&j, 1, 1, NULL), BAL_EINVAL);
  assert_int_equal(bal_sched_summarize(&j, -1, 1, &s), BAL_EINVAL);
  assert_int_equal(bal_sched_summarize(NULL, 1, 1, &s), BAL_EINVAL);
  assert_int_equal(bal_sched_summarize(&j, 1, 0, &s), BAL_EINVAL);
  assert_int_equal(bal_sched_summarize(&j, 1, -4, &s), BAL_EINVAL);
  assert_int_equal(bal_sched_summarize(&j, 1, BAL_SCHED_MAX_NODES + 1, &s), BAL_EINVAL);
  assert_memory_equal(&s, &before, sizeof s);
  assert_int_equal(bal_sched_summarize(&j, 1, BAL_SCHED_MAX_NODES, &s), BAL_OK);
}

/* id submit runtime procs req_time */
#define JOB(id, sub, run, procs, rt) \
  #id " " #sub " -1 " #run " " #procs " -1 -1 " #procs " " #rt " -1 1 1 1 -1 1 1 -1 -1\n"

/* bal_sched_run()'s summary is bal_sched_summarize() over its records,
 * bit for bit, with mates (sd: a guest on two mates) and a rejected job. */
static void simulator_summary_is_the_records(void **state) {
  (void)state;
  const char *text = JOB(1, 0, 1000, 2, 1000) JOB(2, 0, 1000, 9, 1000) JOB(3, 10, 100, 16, 100)
      JOB(4, 20, 30, 40, 30) JOB(5, 25, 50, 4, 60);
  bal_swf_trace *t;
  assert_int_equal(bal_swf_read_mem(text, strlen(text), NULL, &t, NULL), BAL_OK);
  for (int i = 0; bal_sched_policy_name(i); i++) {
    bal_sched_config cfg;
    bal_sched_config_init(&cfg);
    cfg.policy = bal_sched_policy_name(i);
    cfg.nodes = 4;
    cfg.cores_per_node = 4;
    cfg.ranks_per_node = 0;
    bal_sched_result *r = NULL;
    assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_OK);
    int64_t n;
    const bal_sched_job *jobs = bal_sched_result_jobs(r, &n);
    bal_sched_summary mine, sim = *bal_sched_result_summary(r);
    assert_int_equal(bal_sched_summarize(jobs, n, cfg.nodes, &mine), BAL_OK);
    assert_int_equal(sim.rejected_too_large, 1);
    if (!strcmp(cfg.policy, "sd")) assert_true(sim.mates == 2 && sim.mate_selections >= 2);
    mine.events = sim.events;
    mine.max_queue = sim.max_queue;
    mine.invariant_violations = sim.invariant_violations;
    assert_memory_equal(&mine, &sim, sizeof mine);
    bal_sched_result_destroy(r);
  }
  bal_swf_trace_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(three_jobs_by_hand),
      cmocka_unit_test(zero_makespan),
      cmocka_unit_test(no_job_gives_nan),
      cmocka_unit_test(arguments_are_checked),
      cmocka_unit_test(simulator_summary_is_the_records),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
