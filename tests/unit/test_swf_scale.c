/* bal_swf_scale(): the window (by index, by job number, cut at the end),
 * the speedup's rounding (submit down, runtime and limits up), the minimum
 * runtime and the limits raised to it, the time unit, the machine scaling
 * (processors share, rounded up to whole nodes, capped), the header, and
 * every argument check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include <ballast/ballast.h>

/* id submit runtime procs req_time */
#define JOB(id, sub, run, procs, rt) \
  #id " " #sub " -1 " #run " " #procs " -1 -1 " #procs " " #rt " -1 1 1 1 -1 1 1 -1 -1\n"

/* 100 nodes x 4 cores = 400 processors */
static const char *const TRACE = "; MaxNodes: 100\n; MaxProcs: 400\n; UnixStartTime: 1000\n"
    JOB(10, 100, 95, 1, 200) JOB(11, 105, 5, 100, 10) JOB(12, 133, 0, 101, 3)
    JOB(13, 140, 1000, 400, 900) JOB(14, 150, 300, 500, 600) JOB(15, 170, 60, 4, 61);

static bal_swf_trace *load(void) {
  bal_swf_trace *t;
  assert_int_equal(bal_swf_read_mem(TRACE, strlen(TRACE), NULL, &t, NULL), BAL_OK);
  assert_int_equal(t->njobs, 6);
  return t;
}

static void window(void **unused) {
  (void)unused;
  bal_swf_trace *t = load(), *o;
  bal_swf_scaling sc;
  bal_swf_scaling_stats st;
  bal_swf_scaling_init(&sc);
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK); /* identity but for the origin */
  assert_int_equal(o->njobs, 6);
  assert_int_equal(o->jobs[0].submit, 0);
  assert_int_equal(o->jobs[5].submit, 70);
  assert_int_equal(o->jobs[3].runtime, 1000);
  assert_int_equal(o->jobs[3].procs, 400);
  assert_int_equal(o->jobs[3].req_time, 1000); /* raised to its runtime */
  assert_int_equal(st.req_raised, 1);          /* job 13 only */
  assert_int_equal(o->header.unix_start_time, 1100);
  bal_swf_trace_destroy(o);
  sc.from_index = 2;
  sc.count = 2;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK);
  assert_int_equal(o->njobs, 2);
  assert_int_equal(st.first_index, 2);
  assert_int_equal(o->jobs[0].id, 12);
  assert_int_equal(o->jobs[0].submit, 0);
  assert_int_equal(o->jobs[1].submit, 7);
  assert_int_equal(o->stats.jobs, 2);
  bal_swf_trace_destroy(o);
  sc.from_index = 0;
  sc.from_id = 14; /* wins over from_index */
  sc.count = 10;   /* cut at the end */
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK);
  assert_int_equal(o->njobs, 2);
  assert_int_equal(st.jobs, 2);
  assert_int_equal(o->jobs[0].id, 14);
  bal_swf_trace_destroy(o);
  o = NULL;
  sc.from_id = 99;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_ENOTFOUND);
  assert_null(o);
  sc.from_id = -1;
  sc.from_index = 6;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_EINVAL);
  bal_swf_trace_destroy(t);
  /* an empty trace gives an empty result */
  assert_int_equal(bal_swf_read_mem("", 0, NULL, &t, NULL), BAL_OK);
  bal_swf_scaling_init(&sc);
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK);
  assert_int_equal(o->njobs, 0);
  bal_swf_trace_destroy(o);
  bal_swf_trace_destroy(t);
}

/* Speedup 10, minimum runtime 15 s, time unit 60 s. */
static void time_rounding(void **unused) {
  (void)unused;
  bal_swf_trace *t = load(), *o;
  bal_swf_scaling sc;
  bal_swf_scaling_stats st;
  bal_swf_scaling_init(&sc);
  sc.speedup = 10;
  sc.min_runtime = 15;
  sc.time_unit = 60;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK);
  /* submit' = floor((submit - 100) / 10): 0, 0 (0.5), 3 (3.3), 4, 5, 7 */
  const int64_t sub[] = {0, 0, 3, 4, 5, 7};
  /* runtime' = max(15, ceil(runtime / 10)): 95 -> 10 -> 15, 5 -> 1 -> 15,
   * 0 -> 15, 1000 -> 100, 300 -> 30, 60 -> 6 -> 15 */
  const int64_t run[] = {15, 15, 15, 100, 30, 15};
  /* req' = max(ceil(req / 10), runtime') up to a multiple of 60: 20 -> 60,
   * 1 -> 15 -> 60, 1 -> 15 -> 60, 90 -> 100 -> 120, 60, 7 -> 15 -> 60 */
  const int64_t req[] = {60, 60, 60, 120, 60, 60};
  for (int i = 0; i < 6; i++) {
    assert_int_equal(o->jobs[i].submit, sub[i]);
    assert_int_equal(o->jobs[i].runtime, run[i]);
    assert_int_equal(o->jobs[i].req_time, req[i]);
    assert_false(o->jobs[i].runtime_over_req);
  }
  assert_int_equal(st.lengthened, 4);
  assert_int_equal(st.lengthened_s, (15 - 10) + (15 - 1) + 15 + (15 - 6));
  assert_int_equal(st.req_raised, 4); /* 11, 12, 13, 15 */
  assert_int_equal(st.span, 4 + 100);
  bal_swf_trace_destroy(o);
  bal_swf_trace_destroy(t);
}

/* 100 x 4 (400 procs) to 4 x 8: n' = min(4, ceil(p x 4 / 400)) whole
 * nodes: p = 1 -> 1, 100 -> 1, 101 -> 2, 400 -> 4, 500 -> capped at 4. */
static void machine_scaling(void **unused) {
  (void)unused;
  bal_swf_trace *t = load(), *o;
  bal_swf_scaling sc;
  bal_swf_scaling_stats st;
  bal_swf_scaling_init(&sc);
  sc.nodes = 4;
  sc.cores_per_node = 8;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_EINVAL); /* no trace machine */
  sc.trace_nodes = 100;
  sc.trace_cores = 4;
  assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_OK);
  const int64_t procs[] = {8, 8, 16, 32, 32, 8};
  for (int i = 0; i < 6; i++) assert_int_equal(o->jobs[i].procs, procs[i]);
  assert_int_equal(st.capped, 1);
  assert_int_equal(o->header.max_nodes, 4);
  assert_int_equal(o->header.max_procs, 32);
  int64_t n, c;
  assert_int_equal(bal_swf_machine(o, 0, 0, &n, &c), BAL_OK);
  assert_int_equal(n, 4);
  assert_int_equal(c, 8);
  bal_swf_trace_destroy(o);
  bal_swf_trace_destroy(t);
}

static void arguments_are_checked(void **unused) {
  (void)unused;
  bal_swf_trace *t = load(), *o = NULL;
  bal_swf_scaling sc;
  assert_int_equal(bal_swf_scaling_init(NULL), BAL_EINVAL);
  bal_swf_scaling_init(&sc);
  assert_int_equal(bal_swf_scale(NULL, &sc, &o, NULL), BAL_EINVAL);
  assert_int_equal(bal_swf_scale(t, NULL, &o, NULL), BAL_EINVAL);
  assert_int_equal(bal_swf_scale(t, &sc, NULL, NULL), BAL_EINVAL);
  const struct {
    int64_t from_id, from_index, count, nodes, cpn, tn, tc, minrt, unit;
    double speedup;
  } bad[] = {
      {-2, 0, 0, 0, 0, 0, 0, 0, 1, 1},  {-1, -1, 0, 0, 0, 0, 0, 0, 1, 1},
      {-1, 0, -1, 0, 0, 0, 0, 0, 1, 1}, {-1, 0, 0, 0, 0, 0, 0, 0, 1, 0.5},
      {-1, 0, 0, 0, 0, 0, 0, 0, 1, NAN}, {-1, 0, 0, 0, 0, 0, 0, 0, 1, INFINITY},
      {-1, 0, 0, 0, 0, 0, 0, -1, 1, 1}, {-1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
      {-1, 0, 0, -1, 0, 0, 0, 0, 1, 1}, {-1, 0, 0, 4, 0, 100, 4, 0, 1, 1},
      {-1, 0, 0, 4, 8, 0, 4, 0, 1, 1},  {-1, 0, 0, 4, 8, 100, 0, 0, 1, 1},
      {-1, 0, 0, INT64_MAX / 2, 8, 100, 4, 0, 1, 1}, /* nodes x cpn overflows */
      {-1, 0, 0, 4, 8, INT64_MAX / 2, 4, 0, 1, 1},   /* trace procs overflow */
      {-1, 0, 0, INT64_MAX / 64, 1, 100, 4, 0, 1, 1}, /* p x nodes overflows */
      {-1, 0, 0, 0, 0, 0, 0, 0, INT64_MAX, 1},        /* limit rounding overflows */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bal_swf_scaling_init(&sc);
    sc.from_id = bad[i].from_id;
    sc.from_index = bad[i].from_index;
    sc.count = bad[i].count;
    sc.nodes = bad[i].nodes;
    sc.cores_per_node = bad[i].cpn;
    sc.trace_nodes = bad[i].tn;
    sc.trace_cores = bad[i].tc;
    sc.min_runtime = bad[i].minrt;
    sc.time_unit = bad[i].unit;
    sc.speedup = bad[i].speedup;
    bal_swf_scaling_stats st = {.jobs = -7};
    assert_int_equal(bal_swf_scale(t, &sc, &o, &st), BAL_EINVAL);
    assert_null(o);
    assert_int_equal(st.jobs, -7); /* untouched on error */
  }
  bal_swf_trace_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(window),
      cmocka_unit_test(time_rounding),
      cmocka_unit_test(machine_scaling),
      cmocka_unit_test(arguments_are_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
