/* sched: hand-computed schedules on tiny traces (FCFS, EASY with the
 * extra-nodes rule, SD-Policy with two mates under both runtime models, the
 * MAX_SLOWDOWN cut-off, the mate cost setting), rejected jobs, the policy
 * registry and settings, the documented limits, and argument checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ballast/ballast.h>

/* id submit runtime procs req_time */
#define JOB(id, sub, run, procs, rt) \
  #id " " #sub " -1 " #run " " #procs " -1 -1 " #procs " " #rt " -1 1 1 1 -1 1 1 -1 -1\n"

static bal_sched_result *simulate(const char *text, const char *policy, int64_t nodes,
                                  int64_t cores, bal_sched_config *cfg_in) {
  bal_swf_trace *t;
  assert_int_equal(bal_swf_read_mem(text, strlen(text), NULL, &t, NULL), BAL_OK);
  bal_sched_config cfg;
  if (cfg_in) {
    cfg = *cfg_in;
  } else {
    bal_sched_config_init(&cfg);
    /* The hand-computed cases below take every processor as a rank (pure
     * MPI), so that the floor of the sharing rule is exercised; the default
     * of one rank per node has its own test. */
    cfg.ranks_per_node = 0;
  }
  cfg.policy = policy;
  cfg.nodes = nodes;
  cfg.cores_per_node = cores;
  cfg.check_invariants = true;
  bal_sched_result *r = NULL;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_OK);
  assert_int_equal(bal_sched_result_summary(r)->invariant_violations, 0);
  bal_swf_trace_destroy(t);
  return r;
}

static const bal_sched_job *job(const bal_sched_result *r, int64_t id) {
  int64_t n;
  const bal_sched_job *j = bal_sched_result_jobs(r, &n);
  for (int64_t i = 0; i < n; i++)
    if (j[i].id == id) return &j[i];
  fail_msg("job %lld not found", (long long)id);
  return NULL;
}

#define ASSERT_RUN(r, id, s, e)                          \
  do {                                                   \
    assert_float_equal(job(r, id)->start, (s), 1e-6);    \
    assert_float_equal(job(r, id)->end, (e), 1e-6);      \
  } while (0)

/* 10 nodes x 1 core. A holds 6 nodes until 100; B (8 nodes) is the blocked
 * head: shadow time 100, extra nodes 10 - 8 = 2. C (2 nodes, long) cannot end
 * before 100 but fits the 2 extra nodes: it starts at once. D (2 nodes,
 * long) comes next: 2 nodes are free but the extra ones are used up, so
 * it waits for B to end. E (2 nodes, 50 s) ends before the shadow time:
 * backfilled. */
static const char *const EASY_TRACE = JOB(1, 0, 100, 6, 100) JOB(2, 1, 100, 8, 100)
    JOB(3, 2, 500, 2, 500) JOB(4, 3, 500, 2, 500) JOB(5, 4, 50, 2, 50);

static void easy_extra_nodes_rule(void **state) {
  (void)state;
  bal_sched_result *r = simulate(EASY_TRACE, "easy", 10, 1, NULL);
  ASSERT_RUN(r, 1, 0, 100);
  ASSERT_RUN(r, 2, 100, 200);
  ASSERT_RUN(r, 3, 2, 502); /* extra nodes */
  ASSERT_RUN(r, 5, 4, 54);  /* ends before the shadow time */
  ASSERT_RUN(r, 4, 200, 700);
  assert_float_equal(job(r, 2)->reservation, 100, 1e-9);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  assert_int_equal(s->jobs, 5);
  assert_float_equal(s->makespan, 700, 1e-9);
  /* waits 0, 99, 0, 197, 0 */
  assert_float_equal(s->avg_wait, (99.0 + 197.0) / 5, 1e-9);
  /* responses 100, 199, 500, 697, 50 */
  assert_float_equal(s->avg_response, (100.0 + 199 + 500 + 697 + 50) / 5, 1e-9);
  assert_float_equal(s->avg_slowdown, (1 + 1.99 + 1 + 697.0 / 500 + 1) / 5, 1e-9);
  /* node-seconds 600 + 800 + 1000 + 1000 + 100 over 10 x 700 */
  assert_float_equal(s->utilization, 3500.0 / 7000.0, 1e-12);
  bal_sched_result_destroy(r);
}

static void fcfs_never_skips(void **state) {
  (void)state;
  bal_sched_result *r = simulate(EASY_TRACE, "fcfs", 10, 1, NULL);
  ASSERT_RUN(r, 1, 0, 100);
  ASSERT_RUN(r, 2, 100, 200);
  ASSERT_RUN(r, 3, 100, 600); /* next in order and fits beside B */
  ASSERT_RUN(r, 4, 200, 700);
  ASSERT_RUN(r, 5, 200, 250);
  bal_sched_result_destroy(r);
}

static void bounded_slowdown_and_zero_runtime(void **state) {
  (void)state;
  /* 1 node: A runs 5 s, B (runtime 0) waits 5 s, C waits 5 s and runs 20 */
  bal_sched_result *r =
      simulate(JOB(1, 0, 5, 1, 5) JOB(2, 0, 0, 1, 1) JOB(3, 0, 20, 1, 20), "fcfs", 1, 1, NULL);
  ASSERT_RUN(r, 2, 5, 5);
  ASSERT_RUN(r, 3, 5, 25);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  /* slowdowns: 5/5, 5/max(0,1), 25/20; bounded: 1, max(1, 5/10), 25/20 */
  assert_float_equal(s->avg_slowdown, (1 + 5 + 1.25) / 3, 1e-12);
  assert_float_equal(s->avg_bounded_slowdown, (1 + 1 + 1.25) / 3, 1e-12);
  bal_sched_result_destroy(r);
}

/* 4 nodes x 4 cores, SharingFactor 0.5: a mate lends at most 2 of the 4
 * cores of each node, and keeps at least one per rank it has there (its
 * procs per node), as ballast/node.h's rule does. M1 (1 node, 2 procs)
 * lends 2; M2 (3 nodes, 9 procs: 3 per node) lends 1. Both run 1000 s; G
 * (4 nodes, 16 procs, 100 s) arrives at 10. Mates are chosen on G's best
 * pace (2 of 4 cores: 200 s); their penalties are 1.0 (keeping a core per
 * rank, they lose nothing under core demand "procs"). G's worst-case pace
 * is its least-served node, 1 of 4 cores: 400 s, still inside both mates
 * (1000) and before its static start (1000, ending 1090 from now): it
 * starts at 10. Ideal model (Eq. 5): rate (1 x 2/4 + 3 x 1/4) / 4 =
 * 0.3125, 320 s: G ends at 330; the mates end at 1000. */
static const char *const SD_TRACE = JOB(1, 0, 1000, 2, 1000) JOB(2, 0, 1000, 9, 1000)
    JOB(3, 10, 100, 16, 100);

static void sd_two_mates(void **state) {
  (void)state;
  bal_sched_result *r = simulate(SD_TRACE, "sd", 4, 4, NULL);
  ASSERT_RUN(r, 3, 10, 330);
  ASSERT_RUN(r, 1, 0, 1000);
  ASSERT_RUN(r, 2, 0, 1000);
  assert_int_equal(job(r, 3)->mates, 2);
  assert_int_equal(job(r, 1)->times_mate, 1);
  assert_int_equal(job(r, 2)->times_mate, 1);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  assert_int_equal(s->malleable_jobs, 1);
  assert_int_equal(s->mates, 2);
  assert_int_equal(s->mate_selections, 2);
  bal_sched_result_destroy(r);
  /* the same trace under EASY: G waits for both */
  r = simulate(SD_TRACE, "easy", 4, 4, NULL);
  ASSERT_RUN(r, 3, 1000, 1100);
  bal_sched_result_destroy(r);
}

/* The floor: mates whose ranks fill their nodes (4 procs per 4-core node)
 * lend nothing, so G cannot start beside them and waits, as the node
 * manager refuses such an admission (BAL_EBUSY). */
/* The default model, one rank per node (hybrid codes, malleable through
 * their threads): mates that fill their nodes with processors still lend
 * floor(0.5 x 4) = 2 cores per node, so G (16 procs on 4 nodes, 100 s)
 * starts beside them at 10 at half pace; with every processor a rank
 * (ranks_per_node 0) the same mates lend nothing and G waits for them. */
static void sd_ranks_per_node_model(void **state) {
  (void)state;
  const char *text = JOB(1, 0, 1000, 4, 1000) JOB(2, 0, 1000, 12, 1000) JOB(3, 10, 100, 16, 100);
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  assert_int_equal(cfg.ranks_per_node, 1);
  bal_sched_result *r = simulate(text, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 10, 210);
  assert_int_equal(job(r, 3)->mates, 2);
  bal_sched_result_destroy(r);
  cfg.ranks_per_node = 0;
  r = simulate(text, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 1000, 1100);
  bal_sched_result_destroy(r);
  cfg.ranks_per_node = -1;
  bal_swf_trace *t;
  assert_int_equal(bal_swf_read_mem(text, strlen(text), NULL, &t, NULL), BAL_OK);
  cfg.policy = "sd";
  cfg.nodes = 4;
  cfg.cores_per_node = 4;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  bal_swf_trace_destroy(t);
}

static void sd_mates_keep_a_core_per_rank(void **state) {
  (void)state;
  bal_sched_result *r = simulate(JOB(1, 0, 1000, 4, 1000) JOB(2, 0, 1000, 12, 1000)
                                     JOB(3, 10, 100, 16, 100), "sd", 4, 4, NULL);
  ASSERT_RUN(r, 3, 1000, 1100);
  assert_int_equal(bal_sched_result_summary(r)->malleable_jobs, 0);
  bal_sched_result_destroy(r);
  /* One 12-core node, A with 8 ranks on it: it would lend floor(0.5 x 12)
   * = 6 but keeps 8, so it lends 12 - 8 = 4 (the node table's third row). */
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  r = simulate(JOB(1, 0, 1000, 8, 1000) JOB(2, 10, 100, 12, 100), "sd", 1, 12, &cfg);
  /* G needs 12 cores and gets 4: 300 s, inside A's 1000 */
  ASSERT_RUN(r, 2, 10, 310);
  /* A keeps 8 of 12 at 8/12 speed for 300 s: loses 100 s */
  ASSERT_RUN(r, 1, 0, 1100);
  bal_sched_result_destroy(r);
}

/* SF = 1, the top of ballast/share.h's range: a mate lends all its cores
 * but one per rank. One 4-core node, A (4 procs, one rank: the default
 * model) lends min(4, 4 - 1) = 3; G needs the node's 4 cores and gets 3:
 * 100 / 0.75 = 133.3 s, from 10. A keeps 1 core (0.25 of its pace) as long:
 * it loses 133.3 x 0.75 = 100 s and ends at 1100. At SF 0.5 the same A
 * lends 2 and G takes 200 s. On 1-core nodes even SF = 1 lends nothing
 * (the rank keeps the core): G waits for A. */
static void sd_sharing_factor_one(void **state) {
  (void)state;
  const char *text = JOB(1, 0, 1000, 4, 1000) JOB(2, 10, 100, 4, 100);
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  cfg.sharing_factor = 1.0;
  bal_sched_result *r = simulate(text, "sd", 1, 4, &cfg);
  ASSERT_RUN(r, 2, 10, 10 + 400.0 / 3.0);
  ASSERT_RUN(r, 1, 0, 1100);
  assert_int_equal(job(r, 2)->mates, 1);
  bal_sched_result_destroy(r);
  cfg.sharing_factor = 0.5;
  r = simulate(text, "sd", 1, 4, &cfg);
  ASSERT_RUN(r, 2, 10, 210);
  ASSERT_RUN(r, 1, 0, 1100);
  bal_sched_result_destroy(r);
  cfg.sharing_factor = 1.0;
  r = simulate(JOB(1, 0, 1000, 1, 1000) JOB(2, 10, 100, 1, 100), "sd", 1, 1, &cfg);
  ASSERT_RUN(r, 2, 1000, 1100);
  assert_int_equal(bal_sched_result_summary(r)->malleable_jobs, 0);
  bal_sched_result_destroy(r);
}

/* As above but M1 really runs only 50 s (requested 1000, so it is still a
 * mate): it ends at 50, unslowed. G has done 40 x 0.3125 = 12.5 s of its
 * 100 by then and gets M1's node whole. Ideal model (Eq. 5): rate (1 + 3 x
 * 0.25) / 4 = 0.4375, 87.5 s left take 200 s: G ends at 250. Worst model
 * (Eq. 6): G runs at its least-served node's 0.25 throughout: 400 s, ends
 * at 410. M2 loses nothing and ends at 1000 either way. */
static const char *const SD_EARLY = JOB(1, 0, 50, 2, 1000) JOB(2, 0, 1000, 9, 1000)
    JOB(3, 10, 100, 16, 100);

static void sd_runtime_models(void **state) {
  (void)state;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  bal_sched_result *r = simulate(SD_EARLY, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 1, 0, 50);
  ASSERT_RUN(r, 3, 10, 250);
  ASSERT_RUN(r, 2, 0, 1000);
  bal_sched_result_destroy(r);
  cfg.runtime_model = BAL_SCHED_WORST;
  r = simulate(SD_EARLY, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 1, 0, 50);
  ASSERT_RUN(r, 3, 10, 410);
  ASSERT_RUN(r, 2, 0, 1000);
  bal_sched_result_destroy(r);
}

/* Core demand "procs": a mate keeping a core per rank loses nothing (SD_TRACE
 * above). "node" (jobs use whole nodes): M1 keeps 2 of 4 cores (rate 0.5),
 * M2 3 of 4 (0.75) while G runs, 320 s: M1 does 10 + 160 = 170 s by 330 and
 * ends at 1160; M2 does 10 + 240 = 250 s and ends at 1080. */
static void sd_core_demand(void **state) {
  (void)state;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  bal_sched_result *r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 10, 330);
  ASSERT_RUN(r, 1, 0, 1160);
  ASSERT_RUN(r, 2, 0, 1080);
  bal_sched_result_destroy(r);
}

static void sd_cutoffs_and_limits(void **state) {
  (void)state;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  /* penalties 1.0 are not < 1.0: no mates, G waits as under EASY */
  cfg.max_slowdown = 1.0;
  bal_sched_result *r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 1000, 1100);
  assert_int_equal(bal_sched_result_summary(r)->malleable_jobs, 0);
  bal_sched_result_destroy(r);
  cfg.max_slowdown = INFINITY;
  r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 10, 330);
  bal_sched_result_destroy(r);
  /* dynamic: mean predicted slowdown of the running jobs is 1.0 (not < 1.0) */
  cfg.dynamic_max_slowdown = true;
  r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 1000, 1100);
  bal_sched_result_destroy(r);
  /* one mate only: no single running job has 4 nodes */
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.max_mates = 1;
  r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 1000, 1100);
  bal_sched_result_destroy(r);
  /* no malleable job at all */
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.malleable_fraction = 0;
  r = simulate(SD_TRACE, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 3, 1000, 1100);
  bal_sched_result_destroy(r);
  /* a guest that would outlive its mates is refused: G asks 600 s, 1200
   * even at its best pace */
  r = simulate(JOB(1, 0, 1000, 2, 1000) JOB(2, 0, 1000, 9, 1000) JOB(3, 10, 600, 16, 600),
               "sd", 4, 4, NULL);
  ASSERT_RUN(r, 3, 1000, 1600);
  bal_sched_result_destroy(r);
  /* G asks 300 s: 600 at its best pace fits inside the mates, but M2 lends
   * only 1 core per node: 1200 s does not; refused */
  r = simulate(JOB(1, 0, 1000, 2, 1000) JOB(2, 0, 1000, 9, 1000) JOB(3, 10, 300, 16, 300),
               "sd", 4, 4, NULL);
  ASSERT_RUN(r, 3, 1000, 1300);
  bal_sched_result_destroy(r);
  /* G asks 200 s: 800 at the least-served node's pace fits; accepted */
  r = simulate(JOB(1, 0, 1000, 2, 1000) JOB(2, 0, 1000, 9, 1000) JOB(3, 10, 200, 16, 200),
               "sd", 4, 4, NULL);
  assert_float_equal(job(r, 3)->start, 10, 1e-9);
  bal_sched_result_destroy(r);
}

/* Minimal Σ p x nodes: three 2-node candidates (6 procs: 3 per node, each
 * lends 1 core) for a 4-node guest; under core demand "node" a mate keeping
 * 3 of 4 cores runs at 0.75, so its penalty is 1 + 50 / its requested time
 * (on G's best pace, 200 s): the two with the longest requested times are
 * chosen. G gets 1 of 4 cores on each node: 400 s. */
static void sd_picks_lowest_penalties(void **state) {
  (void)state;
  const char *text = JOB(1, 0, 400, 6, 400) JOB(2, 0, 2000, 6, 2000) JOB(3, 0, 3000, 6, 3000)
      JOB(4, 10, 100, 16, 100);
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  bal_sched_result *r = simulate(text, "sd", 6, 4, &cfg);
  assert_int_equal(job(r, 4)->mates, 2);
  assert_int_equal(job(r, 1)->times_mate, 0);
  assert_int_equal(job(r, 2)->times_mate, 1);
  assert_int_equal(job(r, 3)->times_mate, 1);
  ASSERT_RUN(r, 4, 10, 410);
  bal_sched_result_destroy(r);
}

static void rejects_jobs_larger_than_machine(void **state) {
  (void)state;
  bal_sched_result *r = simulate(JOB(1, 0, 10, 4, 10) JOB(2, 0, 10, 40, 10), "easy", 4, 1, NULL);
  const bal_sched_summary *s = bal_sched_result_summary(r);
  assert_int_equal(s->jobs, 1);
  assert_int_equal(s->rejected_too_large, 1);
  assert_int_equal(job(r, 2)->rejected, 1);
  assert_float_equal(job(r, 2)->start, -1, 0);
  bal_sched_result_destroy(r);
  /* ceil(procs / cores): 5 procs on 4-core nodes take 2 nodes */
  r = simulate(JOB(1, 0, 10, 5, 10), "easy", 2, 4, NULL);
  assert_int_equal(job(r, 1)->nodes, 2);
  bal_sched_result_destroy(r);
}

static void arguments_are_checked(void **state) {
  (void)state;
  bal_swf_trace *t;
  const char *text = JOB(1, 0, 10, 4, 10);
  assert_int_equal(bal_swf_read_mem(text, strlen(text), NULL, &t, NULL), BAL_OK);
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  bal_sched_result *r = NULL;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL); /* no machine */
  cfg.nodes = 4;
  cfg.cores_per_node = 1;
  cfg.policy = "lottery";
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  cfg.policy = "sd";
  cfg.sharing_factor = 1.5;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  cfg.sharing_factor = 0.0;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  cfg.sharing_factor = NAN;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  cfg.sharing_factor = 0.5;
  cfg.max_mates = 0;
  assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_EINVAL);
  assert_null(r);
  assert_int_equal(bal_sched_run(NULL, &cfg, &r), BAL_EINVAL);
  assert_int_equal(bal_sched_config_init(NULL), BAL_EINVAL);
  assert_null(bal_sched_result_summary(NULL));
  bal_sched_result_destroy(NULL);
  bal_swf_trace_destroy(t);
}

/* sd.mate_cost: a 2-node guest G (job 4, 8 procs, best pace 2 of 4 cores:
 * 200 s) on a full 4-node machine, jobs using whole nodes (core demand
 * "node"). Candidates: A (job 1, 2 nodes, 6 procs, 450 s) lends 1 core per
 * node and runs at 0.75: p = 1 + 50 / 450 = 1.11; B and C (1 node, 2 procs,
 * 1000 s) lend 2 and run at 0.5: p = 1 + 100 / 1000 = 1.1. Σ p × nodes:
 * 2.22 for A, 2.2 for B + C; Σ p (Eq. 1 as printed): 1.11 for A, 2.2 for
 * B + C. On B + C G runs at 0.5 (ends at 210); on A at 0.25 (410, inside
 * A's 450). */
static void sd_mate_cost_setting(void **state) {
  (void)state;
  const char *text = JOB(1, 0, 450, 6, 450) JOB(2, 0, 1000, 2, 1000) JOB(3, 0, 1000, 2, 1000)
      JOB(4, 10, 100, 8, 100);
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.ranks_per_node = 0; /* pure MPI: the floor binds */
  cfg.core_demand = BAL_SCHED_DEMAND_NODE;
  bal_sched_result *r = simulate(text, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 4, 10, 210);
  assert_int_equal(job(r, 4)->mates, 2);
  assert_int_equal(job(r, 1)->times_mate, 0);
  bal_sched_result_destroy(r);
  assert_int_equal(bal_sched_config_set(&cfg, "sd.mate_cost", "sum"), BAL_OK);
  r = simulate(text, "sd", 4, 4, &cfg);
  ASSERT_RUN(r, 4, 10, 410);
  assert_int_equal(job(r, 4)->mates, 1);
  assert_int_equal(job(r, 1)->times_mate, 1);
  bal_sched_result_destroy(r);
  /* "nodes" is the default, spelled out */
  assert_int_equal(bal_sched_config_set(&cfg, "sd.mate_cost", "nodes"), BAL_OK);
  assert_int_equal(cfg.nsettings, 1); /* replaced, not added */
  r = simulate(text, "sd", 4, 4, &cfg);
  assert_int_equal(job(r, 4)->mates, 2);
  bal_sched_result_destroy(r);
}

static bal_swf_trace *tiny_trace(void) {
  bal_swf_trace *t;
  const char *text = JOB(1, 0, 10, 4, 10) JOB(2, 5, 10, 2, 20);
  assert_int_equal(bal_swf_read_mem(text, strlen(text), NULL, &t, NULL), BAL_OK);
  return t;
}

/* Every registered policy runs and keeps its node accounting; the names are
 * distinct and the list ends with NULL. */
static void policy_registry(void **state) {
  (void)state;
  bal_swf_trace *t = tiny_trace();
  int n = 0;
  for (; bal_sched_policy_name(n); n++) {
    for (int k = 0; k < n; k++)
      assert_string_not_equal(bal_sched_policy_name(k), bal_sched_policy_name(n));
    bal_sched_config cfg;
    bal_sched_config_init(&cfg);
    cfg.policy = bal_sched_policy_name(n);
    cfg.nodes = 4;
    cfg.cores_per_node = 1;
    cfg.check_invariants = true;
    bal_sched_result *r = NULL;
    assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_OK);
    assert_int_equal(bal_sched_result_summary(r)->jobs, 2);
    assert_int_equal(bal_sched_result_summary(r)->invariant_violations, 0);
    bal_sched_result_destroy(r);
  }
  assert_true(n >= 3); /* fcfs, easy, sd at least */
  /* sharing is a property of the policy, not of its name */
  assert_true(bal_sched_policy_shares("sd"));
  assert_false(bal_sched_policy_shares("easy"));
  assert_false(bal_sched_policy_shares("fcfs"));
  assert_false(bal_sched_policy_shares("sdx"));
  assert_false(bal_sched_policy_shares(""));
  assert_false(bal_sched_policy_shares(NULL));
  assert_null(bal_sched_policy_name(n));
  assert_null(bal_sched_policy_name(-1));
  bal_swf_trace_destroy(t);
}

/* bal_sched_run()'s code; a result is released, and on error out must be
 * untouched. */
static int run_rc(const bal_swf_trace *t, const bal_sched_config *cfg) {
  bal_sched_result *r = NULL;
  int rc = bal_sched_run(t, cfg, &r);
  if (rc == BAL_OK) assert_non_null(r);
  else assert_null(r);
  bal_sched_result_destroy(r);
  return rc;
}

static void small_machine(bal_sched_config *cfg, const char *policy) {
  bal_sched_config_init(cfg);
  cfg->policy = policy;
  cfg->nodes = 4;
  cfg->cores_per_node = 1;
}

static void policy_settings(void **state) {
  (void)state;
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  assert_int_equal(cfg.nsettings, 0);
  assert_null(bal_sched_config_get(&cfg, "sd.mate_cost"));
  /* the form is checked at set time */
  assert_int_equal(bal_sched_config_set(NULL, "sd.x", "1"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, NULL, "1"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "sd.x", NULL), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "mate_cost", "sum"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, ".mate_cost", "sum"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "sd.", "sum"), BAL_EINVAL);
  char longer[BAL_SCHED_SETTING_LEN + 1];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  longer[1] = '.';
  assert_int_equal(bal_sched_config_set(&cfg, longer, "1"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "sd.x", longer), BAL_EINVAL);
  longer[BAL_SCHED_SETTING_LEN - 1] = '\0'; /* 31 bytes + NUL: fits */
  assert_int_equal(bal_sched_config_set(&cfg, "sd.x", longer), BAL_OK);
  assert_string_equal(bal_sched_config_get(&cfg, "sd.x"), longer);
  /* at most BAL_SCHED_MAX_SETTINGS keys; a full table still replaces */
  char key[16];
  for (int i = 1; i < BAL_SCHED_MAX_SETTINGS; i++) {
    snprintf(key, sizeof key, "easy.k%d", i);
    assert_int_equal(bal_sched_config_set(&cfg, key, "v"), BAL_OK);
  }
  assert_int_equal(cfg.nsettings, BAL_SCHED_MAX_SETTINGS);
  assert_int_equal(bal_sched_config_set(&cfg, "easy.one_more", "v"), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "easy.k1", "w"), BAL_OK);
  assert_string_equal(bal_sched_config_get(&cfg, "easy.k1"), "w");
  assert_int_equal(cfg.nsettings, BAL_SCHED_MAX_SETTINGS);

  /* at run time the running policy judges its own settings */
  bal_swf_trace *t = tiny_trace();
  small_machine(&cfg, "sd");
  assert_int_equal(bal_sched_config_set(&cfg, "sd.mate_cost", "bogus"), BAL_OK);
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  assert_int_equal(bal_sched_config_set(&cfg, "sd.mate_cost", "sum"), BAL_OK);
  assert_int_equal(bal_sched_config_set(&cfg, "easy.anything", "1"), BAL_OK);
  assert_int_equal(run_rc(t, &cfg), BAL_OK); /* another policy's: ignored */
  cfg.policy = "easy"; /* easy takes no settings */
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  small_machine(&cfg, "sd");
  assert_int_equal(bal_sched_config_set(&cfg, "sd.no_such_setting", "1"), BAL_OK);
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  small_machine(&cfg, "easy");
  assert_int_equal(bal_sched_config_set(&cfg, "lottery.x", "1"), BAL_OK);
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL); /* names no policy */
  bal_swf_trace_destroy(t);

  /* checked before a run, with what a setting takes */
  const char *accepted = "unset";
  assert_int_equal(bal_sched_setting_check("sd.mate_cost", "sum", &accepted), BAL_OK);
  assert_string_equal(accepted, "nodes, sum");
  assert_int_equal(bal_sched_setting_check("sd.mate_cost", "nodes", NULL), BAL_OK);
  assert_int_equal(bal_sched_setting_check("sd.mate_cost", "bogus", &accepted), BAL_EINVAL);
  assert_string_equal(accepted, "nodes, sum");
  assert_int_equal(bal_sched_setting_check("sd.mate_cost", "", &accepted), BAL_EINVAL);
  assert_int_equal(bal_sched_setting_check("sd.no_such", "1", &accepted), BAL_ENOTFOUND);
  assert_null(accepted);
  assert_int_equal(bal_sched_setting_check("easy.anything", "1", &accepted), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_setting_check("lottery.x", "1", &accepted), BAL_ENOTFOUND);
  assert_int_equal(bal_sched_setting_check("nodot", "1", &accepted), BAL_EINVAL);
  assert_null(accepted);
  assert_int_equal(bal_sched_setting_check(NULL, "1", &accepted), BAL_EINVAL);
  assert_int_equal(bal_sched_setting_check("sd.mate_cost", NULL, &accepted), BAL_EINVAL);
  assert_string_equal(bal_sched_setting_name("sd", 0), "mate_cost");
  assert_null(bal_sched_setting_name("sd", 1));
  assert_null(bal_sched_setting_name("sd", -1));
  assert_null(bal_sched_setting_name("easy", 0));
  assert_null(bal_sched_setting_name("lottery", 0));
  assert_null(bal_sched_setting_name(NULL, 0));
}

/* Each limit sched.h states is enforced with BAL_EINVAL, and the limit
 * itself is accepted. */
static void documented_limits(void **state) {
  (void)state;
  bal_swf_trace *t = tiny_trace();
  bal_sched_config cfg;
  bal_sched_config_init(&cfg);
  cfg.policy = "easy"; /* allocates nothing per node: the largest machine runs */
  cfg.nodes = BAL_SCHED_MAX_NODES;
  cfg.cores_per_node = BAL_SCHED_MAX_NODES;
  assert_int_equal(run_rc(t, &cfg), BAL_OK);
  cfg.nodes = BAL_SCHED_MAX_NODES + 1;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.nodes = 4;
  cfg.cores_per_node = BAL_SCHED_MAX_NODES + 1;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.cores_per_node = 1;
  cfg.nodes = -1;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.nodes = 4;
  cfg.policy = "sd";
  cfg.max_mates = BAL_SCHED_MAX_MATES;
  assert_int_equal(run_rc(t, &cfg), BAL_OK);
  cfg.max_mates = BAL_SCHED_MAX_MATES + 1;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.max_mates = 2;
  cfg.runtime_model = (bal_sched_runtime_model)7;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.runtime_model = BAL_SCHED_IDEAL;
  cfg.core_demand = (bal_sched_core_demand)-1;
  assert_int_equal(run_rc(t, &cfg), BAL_EINVAL);
  cfg.core_demand = BAL_SCHED_DEMAND_PROCS;
  /* jobs: at most BAL_SCHED_MAX_JOBS (the bound on the event heap follows
   * from it); checked before any job is read, so a fake array will do */
  bal_swf_trace big = *t;
  big.njobs = BAL_SCHED_MAX_JOBS + 1;
  assert_int_equal(run_rc(&big, &cfg), BAL_EINVAL);
  big.njobs = -1;
  assert_int_equal(run_rc(&big, &cfg), BAL_EINVAL);
  bal_swf_trace_destroy(t);
}

/* No job ran: BAL_OK, counts 0, every average NaN (undefined, not 0). */
static void no_jobs_gives_nan_averages(void **state) {
  (void)state;
  bal_swf_trace *t;
  assert_int_equal(bal_swf_read_mem("; MaxNodes: 4\n", 14, NULL, &t, NULL), BAL_OK);
  assert_int_equal(t->njobs, 0);
  for (int i = 0; bal_sched_policy_name(i); i++) {
    bal_sched_config cfg;
    bal_sched_config_init(&cfg);
    cfg.policy = bal_sched_policy_name(i);
    cfg.nodes = 4;
    cfg.cores_per_node = 1;
    bal_sched_result *r = NULL;
    assert_int_equal(bal_sched_run(t, &cfg, &r), BAL_OK);
    const bal_sched_summary *s = bal_sched_result_summary(r);
    assert_int_equal(s->jobs, 0);
    assert_int_equal(s->events, 0);
    assert_true(isnan(s->makespan) && isnan(s->avg_wait) && isnan(s->avg_response));
    assert_true(isnan(s->avg_slowdown) && isnan(s->avg_bounded_slowdown));
    assert_true(isnan(s->utilization));
    int64_t n = -1;
    bal_sched_result_jobs(r, &n);
    assert_int_equal(n, 0);
    bal_sched_result_destroy(r);
  }
  bal_swf_trace_destroy(t);
  /* every job rejected: none ran either */
  bal_sched_result *r = simulate(JOB(1, 0, 10, 40, 10), "easy", 4, 1, NULL);
  assert_int_equal(bal_sched_result_summary(r)->rejected_too_large, 1);
  assert_true(isnan(bal_sched_result_summary(r)->avg_slowdown));
  bal_sched_result_destroy(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(easy_extra_nodes_rule),
      cmocka_unit_test(fcfs_never_skips),
      cmocka_unit_test(bounded_slowdown_and_zero_runtime),
      cmocka_unit_test(sd_two_mates),
      cmocka_unit_test(sd_mates_keep_a_core_per_rank),
      cmocka_unit_test(sd_sharing_factor_one),
      cmocka_unit_test(sd_ranks_per_node_model),
      cmocka_unit_test(sd_runtime_models),
      cmocka_unit_test(sd_core_demand),
      cmocka_unit_test(sd_cutoffs_and_limits),
      cmocka_unit_test(sd_picks_lowest_penalties),
      cmocka_unit_test(rejects_jobs_larger_than_machine),
      cmocka_unit_test(arguments_are_checked),
      cmocka_unit_test(sd_mate_cost_setting),
      cmocka_unit_test(policy_registry),
      cmocka_unit_test(policy_settings),
      cmocka_unit_test(documented_limits),
      cmocka_unit_test(no_jobs_gives_nan_averages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
