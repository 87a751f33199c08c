/* sched's decision step (bal_sched_state_*): hand-made states where the
 * answer is known — EASY and SD-Policy on docs/sched.md's tiny.swf (SD must
 * co-schedule job 3 on the nodes of jobs 1 and 2, with the time-limit rule
 * of sched.h), a state rebuilt from events as a restarted scheduler would,
 * a mate ending before its guest, cancellation and id reuse — the
 * agreement of a caller-driven loop with bal_sched_run() on a generated
 * trace, and every argument check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/ballast.h>

static bal_sched_state *make(const char *policy, int64_t nodes, int64_t cores) {
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.policy = policy;
  cfg.nodes = nodes;
  cfg.cores_per_node = cores;
  bal_sched_state *st = NULL;
  assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_OK);
  return st;
}

static void submit(bal_sched_state *st, int64_t id, double at, int64_t procs, double req,
                   bool malleable) {
  bal_sched_request rq;
  bal_sched_request_init(&rq);
  rq.id = id;
  rq.submit = at;
  rq.procs = procs;
  rq.req_time = req;
  rq.malleable = malleable;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_OK);
}

static bal_sched_job_info info(const bal_sched_state *st, int64_t id) {
  bal_sched_job_info ji;
  assert_int_equal(bal_sched_state_job(st, id, &ji), BAL_OK);
  return ji;
}

/* tiny.swf's first instant: jobs 1 (4 procs = 1 node) and 2 (12 procs = 3
 * nodes) start at 0 on disjoint nodes covering the 4-node machine. */
static void tiny_first_instant(bal_sched_state *st) {
  submit(st, 1, 0, 4, 1000, true);
  submit(st, 2, 0, 12, 1000, true);
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 0, &d, &n), BAL_OK);
  assert_int_equal(n, 2);
  bool seen[4] = {false};
  for (int64_t i = 0; i < n; i++) {
    assert_int_equal(d[i].kind, BAL_SCHED_START_STATIC);
    assert_int_equal(d[i].id, i + 1);
    assert_int_equal(d[i].nnodes, i == 0 ? 1 : 3);
    assert_int_equal(d[i].nmates, 0);
    assert_float_equal(d[i].time_limit, 1000, 0);
    for (int64_t k = 0; k < d[i].nnodes; k++) {
      assert_in_range(d[i].nodes[k], 0, 3);
      assert_false(seen[d[i].nodes[k]]);
      seen[d[i].nodes[k]] = true;
    }
  }
  assert_int_equal(bal_sched_state_free_nodes(st), 0);
}

/* ... and job 3 (all 4 nodes, 100 s, malleable) queued at 10. */
static bal_sched_state *tiny_at_10(const char *policy) {
  bal_sched_state *st = make(policy, 4, 4);
  tiny_first_instant(st);
  submit(st, 3, 10, 16, 100, true);
  return st;
}

/* docs/sched.md's tiny.swf under sd: job 3 (16 procs, 100 s) arrives at 10
 * and starts at once as the guest of jobs 1 and 2 on all four nodes. Each
 * mate lends floor(0.5 x 4) = 2 cores per node of the 4 job 3 needs: its
 * limit is 100 / 0.5 = 200 s; each mate keeps 2 of its 4 cores, runs at 0.5
 * for those 200 s and gets 200 x (1 - 0.5) = 100 s more: predicted end
 * 1100, predicted slowdown 1.1. When job 3 ends at 210 both expand back. */
static void sd_coschedules_tiny(void **unused) {
  (void)unused;
  bal_sched_state *st = tiny_at_10("sd");
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 10, &d, &n), BAL_OK);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].kind, BAL_SCHED_START_GUEST);
  assert_int_equal(d[0].id, 3);
  assert_float_equal(d[0].time_limit, 200, 1e-9);
  assert_int_equal(d[0].nmates, 2);
  assert_int_equal(d[0].nnodes, 4);
  int64_t mate_nodes = 0;
  for (int64_t i = 0; i < 2; i++) {
    const bal_sched_mate_decision *m = &d[0].mates[i];
    assert_true(m->id == 1 || m->id == 2);
    assert_int_equal(m->cores_lent, 2);
    assert_float_equal(m->extension, 100, 1e-9);
    assert_float_equal(m->slowdown, 1.1, 1e-9);
    mate_nodes += info(st, m->id).nodes;
  }
  assert_int_not_equal(d[0].mates[0].id, d[0].mates[1].id);
  assert_int_equal(mate_nodes, 4);
  /* the guest runs on exactly its mates' nodes */
  const int64_t *gn;
  int64_t ng;
  assert_int_equal(bal_sched_state_job_nodes(st, 3, &gn, &ng), BAL_OK);
  assert_int_equal(ng, 4);
  bal_sched_job_info g = info(st, 3), m1 = info(st, 1);
  assert_int_equal(g.status, BAL_SCHED_RUNNING);
  assert_int_equal(g.nmates, 2);
  assert_float_equal(g.predicted_end, 210, 1e-9);
  assert_float_equal(g.rate, 0.5, 1e-12); /* ideal model: every node at 2 of 4 cores */
  assert_int_equal(m1.guest, 3);
  assert_float_equal(m1.rate, 0.5, 1e-12);
  assert_float_equal(m1.time_limit, 1100, 1e-9);
  assert_float_equal(m1.predicted_end, 1100, 1e-9);
  /* the guest ends: mates expand back, keep the extension they were given */
  assert_int_equal(bal_sched_state_end(st, 3, 210), BAL_OK);
  m1 = info(st, 1);
  assert_int_equal(m1.guest, -1);
  assert_float_equal(m1.rate, 1, 0);
  assert_float_equal(m1.predicted_end, 1100, 1e-9);
  assert_int_equal(bal_sched_state_job(st, 3, &g), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_end(st, 1, 1100), BAL_OK);
  assert_int_equal(bal_sched_state_end(st, 2, 1100), BAL_OK);
  assert_int_equal(bal_sched_state_free_nodes(st), 4);
  assert_int_equal(bal_sched_state_decide(st, 1100, &d, &n), BAL_OK);
  assert_int_equal(n, 0);
  assert_null(d);
  bal_sched_state_destroy(st);
}

/* The same state under easy: job 3 waits (no decision) until both end. */
static void easy_waits_on_tiny(void **unused) {
  (void)unused;
  bal_sched_state *st = tiny_at_10("easy");
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 10, &d, &n), BAL_OK);
  assert_int_equal(n, 0);
  assert_int_equal(info(st, 3).status, BAL_SCHED_WAITING);
  assert_int_equal(bal_sched_state_end(st, 1, 1000), BAL_OK);
  assert_int_equal(bal_sched_state_decide(st, 1000, &d, &n), BAL_OK);
  assert_int_equal(n, 0);
  assert_int_equal(bal_sched_state_end(st, 2, 1000), BAL_OK);
  assert_int_equal(bal_sched_state_decide(st, 1000, &d, &n), BAL_OK);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].id, 3);
  assert_int_equal(d[0].nnodes, 4);
  assert_float_equal(d[0].time_limit, 100, 0);
  bal_sched_state_destroy(st);
}

/* tiny.swf's state at 10 under sd, rebuilt from events as a restarted
 * scheduler would: job 1 on node 3, job 2 on nodes 0-2, job 3 their guest. */
static bal_sched_state *rebuild_tiny(void) {
  bal_sched_state *st = make("sd", 4, 4);
  submit(st, 1, 0, 4, 1000, true);
  submit(st, 2, 0, 12, 1000, true);
  submit(st, 3, 10, 16, 100, true);
  const int64_t n1[] = {3}, n2[] = {0, 1, 2}, mates[] = {1, 2};
  assert_int_equal(bal_sched_state_start(st, 1, 0, n1, 1), BAL_OK);
  assert_int_equal(bal_sched_state_start(st, 2, 0, n2, 3), BAL_OK);
  assert_int_equal(bal_sched_state_start_guest(st, 3, 10, mates, 2), BAL_OK);
  return st;
}

/* A restarted scheduler rebuilds its state from events: the same starts as
 * decide() took, reported with bal_sched_state_start() and
 * bal_sched_state_start_guest(), give the same limits and predictions. */
static void rebuilt_state_matches(void **unused) {
  (void)unused;
  bal_sched_state *st = rebuild_tiny();
  bal_sched_job_info g = info(st, 3), m = info(st, 2);
  assert_float_equal(g.time_limit, 200, 1e-9);
  assert_float_equal(g.predicted_end, 210, 1e-9);
  assert_float_equal(m.time_limit, 1100, 1e-9);
  assert_int_equal(m.guest, 3);
  const int64_t *nodes;
  int64_t nn;
  assert_int_equal(bal_sched_state_job_nodes(st, 1, &nodes, &nn), BAL_OK);
  assert_int_equal(nn, 1);
  assert_int_equal(nodes[0], 3);
  /* nothing left to decide: every job runs */
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 10, &d, &n), BAL_OK);
  assert_int_equal(n, 0);
  bal_sched_state_destroy(st);
}

/* A mate that ends before its guest hands its nodes to it; the guest then
 * frees them when it ends, and the remaining mate expands back. */
static void mate_ends_first(void **unused) {
  (void)unused;
  bal_sched_state *st = rebuild_tiny();
  assert_int_equal(bal_sched_state_end(st, 1, 50), BAL_OK); /* earlier than requested */
  bal_sched_job_info g = info(st, 3);
  assert_int_equal(g.nmates, 1);
  assert_int_equal(g.mates[0], 2);
  assert_int_equal(g.full_nodes, 1);
  const int64_t *nodes;
  int64_t nn;
  assert_int_equal(bal_sched_state_job_nodes(st, 3, &nodes, &nn), BAL_OK);
  assert_int_equal(nn, 4);
  assert_int_equal(nodes[3], 3); /* the inherited node comes after its mates' */
  assert_int_equal(bal_sched_state_free_nodes(st), 0);
  assert_int_equal(bal_sched_state_end(st, 3, 150), BAL_OK);
  assert_int_equal(bal_sched_state_free_nodes(st), 1);
  assert_int_equal(info(st, 2).guest, -1);
  /* the freed node is the one the guest inherited */
  submit(st, 4, 150, 4, 10, false);
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 150, &d, &n), BAL_OK);
  assert_int_equal(n, 1);
  assert_int_equal(d[0].nodes[0], 3);
  bal_sched_state_destroy(st);
}

/* A waiting job that ends leaves the queue (cancelled); its id can return. */
static void cancel_and_reuse(void **unused) {
  (void)unused;
  bal_sched_state *st = make("easy", 2, 1);
  submit(st, 7, 0, 2, 100, false);
  submit(st, 8, 0, 1, 100, false);
  assert_int_equal(bal_sched_state_end(st, 7, 0), BAL_OK);
  submit(st, 7, 1, 1, 50, false);
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 1, &d, &n), BAL_OK);
  assert_int_equal(n, 2);
  assert_int_equal(d[0].id, 8);
  assert_int_equal(d[1].id, 7);
  assert_int_not_equal(d[0].nodes[0], d[1].nodes[0]);
  bal_sched_state_destroy(st);
}

/* A caller-driven loop over the public step (submit at arrival, end at the
 * predicted end, decide) reproduces bal_sched_run() job for job. With
 * requested time = runtime and the worst-case model the predictions are the
 * actual ends, so the caller needs no runtime of its own; times are
 * integers and rates 1 or 1/2, so every figure is exact. */
typedef struct gen_job {
  int64_t id, submit, runtime, procs;
} gen_job;

static void driven_loop_matches_simulator(void **unused) {
  (void)unused;
  enum { N = 400 };
  static gen_job jobs[N];
  static char text[N * 80];
  uint64_t x = 12345;
  size_t len = 0;
  int64_t t = 0;
  for (int i = 0; i < N; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t r = x >> 33;
    t += (int64_t)(r % 40);
    jobs[i] = (gen_job){i + 1, t, 10 + (int64_t)((r >> 6) % 900), 1 + (int64_t)((r >> 16) % 32)};
    len += (size_t)snprintf(text + len, sizeof text - len,
                            "%lld %lld -1 %lld %lld -1 -1 %lld %lld -1 1 1 1 -1 1 1 -1 -1\n",
                            (long long)jobs[i].id, (long long)jobs[i].submit,
                            (long long)jobs[i].runtime, (long long)jobs[i].procs,
                            (long long)jobs[i].procs, (long long)jobs[i].runtime);
  }
  for (int p = 0; p < 2; p++) {
    const char *policy = p ? "sd" : "easy";
    bal_sched_config cfg;
    bal_sched_config_init(&cfg);
    cfg.policy = policy;
    cfg.nodes = 8;
    cfg.cores_per_node = 4;
    cfg.runtime_model = BAL_SCHED_WORST;
    cfg.core_demand = BAL_SCHED_DEMAND_NODE;
    bal_swf_trace *tr;
    assert_int_equal(bal_swf_read_mem(text, len, NULL, &tr, NULL), BAL_OK);
    bal_sched_result *res;
    assert_int_equal(bal_sched_run(tr, &cfg, &res), BAL_OK);
    const bal_sched_job *sim = bal_sched_result_jobs(res, NULL);
    bal_sched_state *st;
    assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_OK);
    static double start[N + 1], end[N + 1];
    static bool running[N + 1];
    memset(running, 0, sizeof running);
    int next = 0, done = 0, guests = 0;
    while (done < N) {
      double now = INFINITY;
      if (next < N) now = (double)jobs[next].submit;
      for (int i = 1; i <= N; i++)
        if (running[i]) now = fmin(now, info(st, i).predicted_end);
      for (int i = 1; i <= N; i++)
        if (running[i] && info(st, i).predicted_end <= now) {
          assert_int_equal(bal_sched_state_end(st, i, now), BAL_OK);
          running[i] = false;
          end[i] = now;
          done++;
        }
      for (; next < N && jobs[next].submit <= now; next++)
        submit(st, jobs[next].id, (double)jobs[next].submit, jobs[next].procs,
               (double)jobs[next].runtime, true);
      const bal_sched_decision *d;
      int64_t n;
      assert_int_equal(bal_sched_state_decide(st, now, &d, &n), BAL_OK);
      for (int64_t k = 0; k < n; k++) {
        running[d[k].id] = true;
        start[d[k].id] = now;
        guests += d[k].kind == BAL_SCHED_START_GUEST;
      }
    }
    for (int i = 0; i < N; i++) {
      assert_int_equal(sim[i].id, i + 1);
      assert_float_equal(start[i + 1], sim[i].start, 1e-6);
      assert_float_equal(end[i + 1], sim[i].end, 1e-6);
    }
    if (p) assert_true(guests > 0); /* the trace does exercise SD-Policy */
    assert_int_equal(guests, bal_sched_result_summary(res)->malleable_jobs);
    bal_sched_state_destroy(st);
    bal_sched_result_destroy(res);
    bal_swf_trace_destroy(tr);
  }
}

static void arguments_are_checked(void **unused) {
  (void)unused;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  bal_sched_state *st = NULL;
  assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_EINVAL); /* no machine */
  cfg.nodes = 4;
  cfg.cores_per_node = 4;
  cfg.policy = "nope";
  assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_EINVAL);
  cfg.policy = "sd";
  assert_int_equal(bal_sched_config_set(&cfg, "sd.nope", "1"), BAL_OK);
  assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_EINVAL); /* its policy rejects it */
  bal_sched_config_init(&cfg);
  cfg.nodes = 4;
  cfg.cores_per_node = 4;
  cfg.policy = "sd";
  assert_int_equal(bal_sched_state_create(NULL, &st), BAL_EINVAL);
  assert_int_equal(bal_sched_state_create(&cfg, NULL), BAL_EINVAL);
  assert_null(st);
  assert_int_equal(bal_sched_state_create(&cfg, &st), BAL_OK);
  bal_sched_request rq;
  assert_int_equal(bal_sched_request_init(NULL), BAL_EINVAL);
  bal_sched_request_init(&rq);
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL); /* id -1 */
  rq.id = 1;
  rq.procs = 0;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL);
  rq.procs = 17;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_ERANGE); /* 5 nodes of 4 */
  rq.nodes = 2;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL); /* 17 procs on 2 x 4 */
  rq.procs = 2;
  rq.req_time = NAN;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL);
  rq.req_time = -1;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL);
  rq.req_time = 100;
  rq.submit = INFINITY;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL);
  rq.submit = 0;
  assert_int_equal(bal_sched_state_submit(NULL, &rq), BAL_EINVAL);
  assert_int_equal(bal_sched_state_submit(st, NULL), BAL_EINVAL);
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_OK); /* 2 procs on 2 nodes */
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_EINVAL); /* id taken */
  assert_int_equal(info(st, 1).nodes, 2);
  rq.id = 2;
  rq.nodes = 0;
  rq.procs = 4;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_OK); /* not malleable */
  /* start: counts, ranges, repeats, busy nodes, unknown jobs, time order */
  const int64_t two[] = {0, 1}, same[] = {0, 0}, out[] = {0, 4}, neg[] = {-1, 0};
  assert_int_equal(bal_sched_state_start(st, 1, 5, two, 1), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 1, 5, same, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 1, 5, out, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 1, 5, neg, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 1, 5, NULL, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 9, 5, two, 2), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_start(st, 1, NAN, two, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(NULL, 1, 5, two, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_free_nodes(st), 4); /* nothing taken by the failures */
  assert_int_equal(bal_sched_state_start(st, 1, 5, two, 2), BAL_OK);
  assert_int_equal(bal_sched_state_start(st, 1, 5, two, 2), BAL_EINVAL); /* running */
  const int64_t busy[] = {1};
  assert_int_equal(bal_sched_state_start(st, 2, 5, busy, 1), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start(st, 2, 4, (const int64_t[]){2}, 1), BAL_EINVAL); /* past */
  /* start_guest: not malleable, not running mates, counts */
  const int64_t m1[] = {1}, m11[] = {1, 1}, m9[] = {9};
  assert_int_equal(bal_sched_state_start_guest(st, 2, 5, m1, 1), BAL_EINVAL); /* 2 not malleable */
  rq.id = 3;
  rq.procs = 8;
  rq.malleable = true;
  assert_int_equal(bal_sched_state_submit(st, &rq), BAL_OK);
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, m1, 1), BAL_EINVAL); /* 1 not malleable */
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, m11, 2), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, m9, 1), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, m1, 0), BAL_EINVAL);
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, m1, 3), BAL_EINVAL); /* > max_mates */
  assert_int_equal(bal_sched_state_start_guest(st, 3, 5, NULL, 1), BAL_EINVAL);
  /* end, decide, lookups */
  assert_int_equal(bal_sched_state_end(st, 9, 5), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_end(st, 1, 4), BAL_EINVAL);
  assert_int_equal(bal_sched_state_end(NULL, 1, 5), BAL_EINVAL);
  const bal_sched_decision *d;
  int64_t n;
  assert_int_equal(bal_sched_state_decide(st, 4, &d, &n), BAL_EINVAL);
  assert_int_equal(bal_sched_state_decide(st, INFINITY, &d, &n), BAL_EINVAL);
  assert_int_equal(bal_sched_state_decide(st, 5, NULL, &n), BAL_EINVAL);
  assert_int_equal(bal_sched_state_decide(st, 5, &d, NULL), BAL_EINVAL);
  assert_int_equal(bal_sched_state_decide(NULL, 5, &d, &n), BAL_EINVAL);
  bal_sched_job_info ji;
  assert_int_equal(bal_sched_state_job(st, 9, &ji), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_job(NULL, 1, &ji), BAL_EINVAL);
  assert_int_equal(bal_sched_state_job(st, 1, NULL), BAL_EINVAL);
  const int64_t *nodes;
  assert_int_equal(bal_sched_state_job_nodes(st, 9, &nodes, &n), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_state_job_nodes(st, 1, NULL, &n), BAL_EINVAL);
  assert_int_equal(bal_sched_state_free_nodes(NULL), BAL_EINVAL);
  bal_sched_state_destroy(st);
  bal_sched_state_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sd_coschedules_tiny),
      cmocka_unit_test(easy_waits_on_tiny),
      cmocka_unit_test(rebuilt_state_matches),
      cmocka_unit_test(mate_ends_first),
      cmocka_unit_test(cancel_and_reuse),
      cmocka_unit_test(driven_loop_matches_simulator),
      cmocka_unit_test(arguments_are_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
