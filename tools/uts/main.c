/* ballast-uts: the Unbalanced Tree Search benchmark [Olivier 2006] on the
 * steal module. Rank 0 adds the root as its one task; a task searches its
 * nodes depth first with a private stack and, whenever its rank has fewer
 * than two tasks waiting (bal_steal_queued()), spawns the bottom half of
 * that stack (the nodes nearest the root, the largest subtrees) as a new
 * task, which the rank's other workers or a thief take: splitting on demand
 * as in lazy binary splitting [Tzannes 2010], so that a busy machine pays
 * for almost no task it does not need. Counts are summed per rank and
 * reduced at the end (the tasks' results are empty, so nothing travels
 * back). Rank 0 first searches the tree sequentially with the same code (the
 * baseline of the efficiency figure). With --ranks P and outside mpirun it
 * relaunches itself under mpiexec.
 *
 * Built by smpicc with BALLAST_SMPI defined (uts-smpi, run by `ballast
 * simulate-uts`), the SHA-1 still shapes the tree but a node's work is a
 * simulated cost (--node-cost): a task sleeps, in simulated time, for the
 * nodes it searched at every check, with a check every --slice of
 * simulated work, and polls then. SimGrid does not count the CPU time of
 * the code between MPI calls, so the sequential rate is 1 / node cost by
 * construction; rank 0 still searches the tree sequentially to check the
 * parallel counts (and, by default, to size the node cost). */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/launch.h"
#include "tree.h"

#define PROG "ballast-uts"
/* Nodes between two looks at the queue (a relaxed atomic load), and
 * between two bal_steal_poll() calls (POLL mode: steal requests are served
 * then), about 20 us and 170 us of SHA-1 at 12 M nodes/s. */
#define CHECK_EVERY 256
#define POLL_EVERY 8 /* checks */

/* Under SMPI the time constants follow the node cost (main()); elsewhere
 * they are the library's defaults. */
#ifdef BALLAST_SMPI
#define POLL_INTERVAL_DEFAULT "(default: a tenth of --slice)"
#define BACKOFF_MAX_DEFAULT "(default: --slice)"
#else
#define POLL_INTERVAL_DEFAULT "(default 0.0001)"
#define BACKOFF_MAX_DEFAULT "(default 0.002)"
#endif

static const char *const type_names[] = {"binomial", "geometric", "hybrid", NULL};
static const char *const shape_names[] = {"linear", "expdec", "cyclic", "fixed", NULL};
static const char *const progress_names[] = {"poll", "thread", NULL};

typedef struct opts {
  uts_params prm;
  int64_t ranks, workers, max_nodes, baseline_nodes; /* baseline -1: the whole tree */
  const char *policy;
  double steal_fraction, poll_interval, backoff_max;
  int progress; /* index in progress_names */
  uint64_t seed;
  bool json;
  bool check_flags; /* SMPI build: check the flags, then exit */
  /* Simulated work (SMPI build only; 0 elsewhere): seconds per node, or 0
   * for work_per_rank x ranks / nodes; a check every `slice` seconds. */
  double node_cost, work_per_rank, slice;
} opts;

/* A name of `names` or its index (UTS's -t 1, -a 3). */
static bool parse_enum(const char *v, const char *const *names, int *out, char *err, size_t n) {
  for (int i = 0; names[i]; i++)
    if (!strcmp(v, names[i]) || (v[0] == (char)('0' + i) && v[1] == '\0')) {
      *out = i;
      return true;
    }
  int w = snprintf(err, n, "'%s' is not one of", v);
  for (int i = 0; names[i] && w > 0 && (size_t)w < n; i++)
    w += snprintf(err + w, n - (size_t)w, "%s %s (%d)", i ? "," : "", names[i], i);
  return false;
}

static bool parse_type(const char *v, void *d, char *err, size_t n) {
  int i;
  if (!parse_enum(v, type_names, &i, err, n)) return false;
  ((uts_params *)d)->type = (uts_type)i;
  return true;
}

static bool parse_shape(const char *v, void *d, char *err, size_t n) {
  int i;
  if (!parse_enum(v, shape_names, &i, err, n)) return false;
  ((uts_params *)d)->shape = (uts_shape)i;
  return true;
}

static bool parse_policy(const char *v, void *d, char *err, size_t n) {
  for (int i = 0; bal_steal_policy_name(i); i++)
    if (!strcmp(v, bal_steal_policy_name(i))) {
      *(const char **)d = bal_steal_policy_name(i);
      return true;
    }
  int w = snprintf(err, n, "unknown policy '%s' (", v);
  for (int i = 0; bal_steal_policy_name(i) && w > 0 && (size_t)w < n; i++)
    w += snprintf(err + w, n - (size_t)w, "%s%s", i ? ", " : "", bal_steal_policy_name(i));
  if (w > 0 && (size_t)w < n) snprintf(err + w, n - (size_t)w, ")");
  return false;
}

static bool parse_baseline(const char *v, void *d, char *err, size_t n) {
  if (!strcmp(v, "all")) {
    *(int64_t *)d = -1;
    return true;
  }
  return cli_int_text(v, 0, INT64_MAX, d, err, n);
}

/* UTS's own one-letter flags, as aliases of the long ones. */
static const char *const short_flags[][2] = {
    {"-t", "--type"},          {"-a", "--shape"},    {"-d", "--depth"},
    {"-b", "--branching"},     {"-r", "--root-seed"}, {"-q", "--non-leaf-prob"},
    {"-m", "--non-leaf-children"}, {"-f", "--shift"}, {"-g", "--granularity"}};

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  uts_params_default(&o->prm);
  o->workers = 1;
  o->max_nodes = 100000000000LL;
  o->baseline_nodes = -1;
  o->policy = "smallworld";
  o->seed = 1;
  o->steal_fraction = 0.5;
  /* poll_interval and backoff_max 0: bal_steal_config_init()'s, or under
   * SMPI (with slice 0) from the node cost (main()). */
#ifdef BALLAST_SMPI
  o->work_per_rank = 1;
#endif
  int64_t depth = o->prm.depth, root_seed = o->prm.root_seed, m = o->prm.m, gran = o->prm.gran;
  const cli_flag flags[] = {
      CLI_SECTION("Tree (UTS's flags; the one-letter forms are accepted too):"),
      CLI_CUSTOM("--type", "T", &o->prm, parse_type,
                 "-t: binomial (0, default), geometric (1), hybrid (2)"),
      CLI_CUSTOM("--shape", "A", &o->prm, parse_shape,
                 "-a: geometric shape: linear (0, default), expdec (1),\n"
                 "cyclic (2), fixed (3)"),
      CLI_INT("--depth", "D", &depth, 1, INT32_MAX / 8, "-d: depth of geometric trees (default 6)"),
      CLI_DOUBLE("--branching", "B", &o->prm.b0, 0, 1e6,
                 "-b: branching factor of the root (default 4)"),
      CLI_INT("--root-seed", "R", &root_seed, 0, INT32_MAX, "-r: seed of the root (default 0)"),
      CLI_DOUBLE("--non-leaf-prob", "Q", &o->prm.q, 0, 1,
                 "-q: binomial: probability that a node has children\n(default 0.234375)"),
      CLI_INT("--non-leaf-children", "M", &m, 0, UTS_MAX_CHILDREN,
              "-m: binomial: children of a non-leaf (default 4)"),
      CLI_DOUBLE("--shift", "F", &o->prm.shift, 0, 1,
                 "-f: hybrid: geometric above F * depth, binomial below\n(default 0.5)"),
      CLI_INT("--granularity", "G", &gran, 1, 1000000,
              "-g: SHA-1 evaluations per child (default 1)"),
      CLI_INT("--max-nodes", "N", &o->max_nodes, 1, INT64_MAX,
              "stop with an error once a rank has counted more than N\n"
              "nodes (binomial trees with q*m >= 1 may be infinite)\n"
              "(default 100000000000)"),
      CLI_SECTION("Run:"),
      CLI_INT("--ranks", "P", &o->ranks, 1, 1 << 20,
              "number of MPI ranks to launch (oversubscribed)"),
      CLI_INT("--workers", "W", &o->workers, 1, BAL_STEAL_MAX_WORKERS,
              "task-executing threads per rank (default 1)"),
      CLI_CUSTOM("--policy", "P", &o->policy, parse_policy,
                 "victim policy: smallworld (default), biased, random,\n"
                 "none, sharing"),
      CLI_CHOICE("--progress", "M", &o->progress, progress_names,
                 "poll (default: tasks serve MPI between nodes) or thread\n"
                 "(a progress thread per rank besides the workers)"),
      CLI_DOUBLE("--steal-fraction", "F", &o->steal_fraction, 1e-9, 1,
                 "share of a victim's waiting tasks taken per theft\n(default 0.5)"),
      CLI_DOUBLE("--poll-interval", "S", &o->poll_interval, 1e-9, 1,
                 "first sleep of an idle rank's loop, and a thief's wait\n"
                 "for its answer " POLL_INTERVAL_DEFAULT),
      CLI_DOUBLE("--backoff-max", "S", &o->backoff_max, 1e-9, 60,
                 "longest back-off of an unlucky thief, and sleep of an\n"
                 "idle POLL loop " BACKOFF_MAX_DEFAULT),
      CLI_UINT("--seed", "S", &o->seed, "victim-choice seed (default 1)"),
      CLI_CUSTOM("--baseline-nodes", "N", &o->baseline_nodes, parse_baseline,
                 "rank 0 first searches N nodes sequentially to measure the\n"
                 "sequential rate: all (default: the whole tree), 0 (none:\n"
                 "efficiency n/a)"),
      CLI_BOOL("--json", &o->json, "print one JSON object"),
#ifdef BALLAST_SMPI
      CLI_SECTION("Simulated work (SimGrid SMPI):"),
      CLI_DOUBLE("--node-cost", "S", &o->node_cost, 0, 1,
                 "simulated seconds of work per node (default 0: from\n"
                 "--work-per-rank and the tree's size)"),
      CLI_DOUBLE("--work-per-rank", "S", &o->work_per_rank, 1e-9, 1e6,
                 "with --node-cost 0: the node cost that gives each rank S\n"
                 "seconds of work on average (default 1)"),
      CLI_DOUBLE("--slice", "S", &o->slice, 1e-9, 10,
                 "simulated seconds of work between two checks (split,\n"
                 "poll) of a task (default: 3 node costs, at least 0.0001)"),
      CLI_BOOL("--check-flags", &o->check_flags,
               "check every flag, then exit (`ballast simulate-uts` does,\n"
               "on one rank, before the simulation)"),
#endif
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = PROG " [options]            (under mpirun/mpiexec)\n"
                    "       ballast uts --ranks P [options]  (launches mpiexec itself)",
      .description =
          "Unbalanced Tree Search: counts the nodes of a UTS tree with tasks that spawn\n"
          "tasks, balanced by Ballast's work stealing. T1: -t 1 -a 3 -d 10 -b 4 -r 19;\n"
          "T3: -t 0 -b 2000 -q 0.124875 -m 8 -r 42 (see docs/steal.md).",
      .flags = flags};
  /* The one-letter forms become the long ones before the one parser. */
  char **args = malloc((size_t)(argc + 1) * sizeof *args);
  if (!args) return 1;
  for (int i = 0; i <= argc; i++) {
    args[i] = argv[i];
    for (size_t k = 0; i > 0 && i < argc && k < sizeof short_flags / sizeof short_flags[0]; k++)
      if (!strcmp(argv[i], short_flags[k][0])) args[i] = (char *)short_flags[k][1];
  }
  int rc = cli_parse(&prog, argc, args);
  free(args);
  if (rc != CLI_CONTINUE) return rc;
  o->prm.depth = (int)depth;
  o->prm.root_seed = (int)root_seed;
  o->prm.m = (int)m;
  o->prm.gran = (int)gran;
#ifdef BALLAST_SMPI
  /* One thread per simulated rank: SMPI lets only it call MPI. */
  if (o->workers != 1) return cli_usage_error(PROG, "--workers: only 1 runs under SMPI");
  if (o->progress != 0) return cli_usage_error(PROG, "--progress: only poll runs under SMPI");
  if (o->node_cost == 0 && o->baseline_nodes >= 0)
    return cli_usage_error(PROG, "--node-cost: required unless --baseline-nodes is all");
#endif
  return CLI_CONTINUE;
}

/* ---- the parallel search ---- */

typedef struct run_ctx {
  const opts *o;
  bal_steal *s;
  pthread_mutex_t mu;
  uts_counts total; /* this rank's, summed at the end of each task */
  atomic_int_least64_t counted; /* nodes counted here, updated at checks */
  atomic_bool stop;             /* --max-nodes passed on this rank */
  atomic_bool oom;              /* a task ran out of memory: its nodes are lost */
  int64_t splits;
  int64_t every, poll_every; /* nodes between checks, checks between polls */
  double node_cost;          /* simulated seconds per node (SMPI), else 0 */
  double last_end;           /* MPI_Wtime() at the end of this rank's last task */
} run_ctx;

typedef struct task_state {
  run_ctx *c;
  int64_t last_nodes; /* nodes already added to c->counted (and whose cost has passed) */
  int checks;
  int64_t splits;
} task_state;

/* Simulated work: the cost of n nodes passes (a simulated sleep under
 * SMPI, whose nanosleep is SimGrid's). */
static void spend(const run_ctx *c, int64_t n) {
  double s = c->node_cost * (double)n;
  if (s <= 0) return;
  struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
  nanosleep(&ts, NULL);
}

static bool on_check(void *arg, uts_stack *st, const uts_counts *cnt) {
  task_state *t = arg;
  run_ctx *c = t->c;
  spend(c, cnt->nodes - t->last_nodes);
  int64_t now = atomic_fetch_add_explicit(&c->counted, cnt->nodes - t->last_nodes,
                                          memory_order_relaxed) +
                (cnt->nodes - t->last_nodes);
  t->last_nodes = cnt->nodes;
  if (now > c->o->max_nodes) atomic_store(&c->stop, true);
  if (atomic_load_explicit(&c->stop, memory_order_relaxed)) return false;
  if (st->n >= 2 && bal_steal_queued(c->s) < 2) {
    int64_t h = st->n / 2;
    if (bal_steal_spawn(c->s, st->v, (size_t)h * sizeof *st->v) == BAL_OK) {
      memmove(st->v, st->v + h, (size_t)(st->n - h) * sizeof *st->v);
      st->n -= h;
      t->splits++;
    }
  }
  /* After the split, so that a waiting thief finds the queue refilled. */
  if (++t->checks % c->poll_every == 0) bal_steal_poll(c->s); /* BAL_ENOTSUP off POLL's thread */
  return true;
}

static int uts_task(const void *in, size_t in_len, void *out, size_t out_cap, size_t *out_len,
                    void *arg) {
  (void)out;
  (void)out_cap;
  (void)out_len;
  run_ctx *c = arg;
  if (in_len % sizeof(uts_node) != 0) return 1;
  int64_t k = (int64_t)(in_len / sizeof(uts_node));
  uts_stack stack = {NULL, 0, 0}, *st = &stack;
  for (int64_t i = 0; i < k; i++) {
    uts_node n;
    memcpy(&n, (const unsigned char *)in + (size_t)i * sizeof n, sizeof n);
    if (!uts_push(st, &n)) {
      free(stack.v);
      atomic_store(&c->oom, true); /* a spawned task's status reaches no one */
      return BAL_ENOMEM;
    }
  }
  uts_counts cnt = {0, 0, 0};
  task_state t = {c, 0, 0, 0};
  int rc = atomic_load(&c->stop) ? 1 : uts_search(&c->o->prm, st, &cnt, c->every, on_check, &t);
  spend(c, cnt.nodes - t.last_nodes);
  atomic_fetch_add_explicit(&c->counted, cnt.nodes - t.last_nodes, memory_order_relaxed);
  pthread_mutex_lock(&c->mu);
  c->total.nodes += cnt.nodes;
  c->total.leaves += cnt.leaves;
  if (cnt.max_depth > c->total.max_depth) c->total.max_depth = cnt.max_depth;
  c->splits += t.splits;
  c->last_end = MPI_Wtime();
  pthread_mutex_unlock(&c->mu);
  free(stack.v);
  if (rc < 0) atomic_store(&c->oom, true);
  return rc < 0 ? BAL_ENOMEM : 0; /* a stopped search is reported by the stop flag */
}

/* ---- the sequential baseline (rank 0) ---- */

typedef struct seq_out {
  uts_counts cnt;
  double time_s;
  bool complete, too_big;
} seq_out;

typedef struct seq_state {
  int64_t limit, max_nodes;
  bool too_big;
} seq_state;

static bool seq_check(void *arg, uts_stack *st, const uts_counts *cnt) {
  (void)st;
  seq_state *q = arg;
  if (cnt->nodes > q->max_nodes) q->too_big = true;
  return !q->too_big && (q->limit < 0 || cnt->nodes < q->limit);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int sequential(const opts *o, seq_out *r) {
  uts_stack st = {NULL, 0, 0};
  uts_node root;
  uts_root(&o->prm, &root);
  if (!uts_push(&st, &root)) return -1;
  seq_state q = {o->baseline_nodes, o->max_nodes, false};
  memset(r, 0, sizeof *r);
  double a = now_s();
  /* The same search and the same check interval as the tasks'. */
  int rc = uts_search(&o->prm, &st, &r->cnt, CHECK_EVERY, seq_check, &q);
  r->time_s = now_s() - a;
  free(st.v);
  r->complete = rc == 0;
  r->too_big = q.too_big;
  return rc < 0 ? -1 : 0;
}

/* Wait at a barrier without spinning: a rank waiting for rank 0's baseline
 * must leave the cores alone (Open MPI's blocking barrier busy-polls).
 * Under SMPI a blocking barrier is a simulated wait and costs nothing. */
static void quiet_barrier(void) {
#ifdef BALLAST_SMPI
  MPI_Barrier(MPI_COMM_WORLD);
#else
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  for (int done = 0;;) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
#endif
}

/* ---- output ---- */

typedef struct sums {
  int64_t nodes, leaves, spawned, attempts, thefts, given, routed, messages, executed_stolen,
      waves, splits, stopped;
  int64_t max_depth;
  double time_s, work_s, idle_s;
  double last_task_s; /* from the start to the end of the last task anywhere */
  double node_cost; /* simulated seconds per node (SMPI), else 0 */
  int64_t every;    /* nodes between checks */
} sums;

static void print_json(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                       double eff) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "type", type_names[o->prm.type]);
  json_string(&j, "shape", shape_names[o->prm.shape]);
  json_int(&j, "depth", o->prm.depth);
  json_double(&j, "branching", o->prm.b0);
  json_int(&j, "root_seed", o->prm.root_seed);
  json_double(&j, "non_leaf_prob", o->prm.q);
  json_int(&j, "non_leaf_children", o->prm.m);
  json_double(&j, "shift", o->prm.shift);
  json_int(&j, "granularity", o->prm.gran);
  json_int(&j, "max_nodes", o->max_nodes);
  json_int(&j, "check_every", t->every);
#ifdef BALLAST_SMPI
  /* Times are simulated seconds; the sequential rate is 1 / node_cost_s. */
  json_bool(&j, "simulated", true);
  json_double(&j, "node_cost_s", t->node_cost);
  json_double(&j, "slice_s", o->slice);
  json_double(&j, "work_per_rank_s", t->node_cost * (double)t->nodes / p);
#else
  json_bool(&j, "simulated", false);
#endif
  json_int(&j, "ranks", p);
  json_int(&j, "workers", o->workers);
  json_int(&j, "processors", (int64_t)p * o->workers);
  json_string(&j, "policy", o->policy);
  json_string(&j, "progress", progress_names[o->progress]);
  json_double(&j, "steal_fraction", o->steal_fraction);
  json_double(&j, "poll_interval_s", o->poll_interval);
  json_double(&j, "backoff_max_s", o->backoff_max);
  json_uint(&j, "seed", o->seed);
  if (o->baseline_nodes < 0)
    json_string(&j, "baseline_nodes", "all");
  else
    json_int(&j, "baseline_nodes", o->baseline_nodes);
  json_int(&j, "nodes", t->nodes);
  json_int(&j, "leaves", t->leaves);
  json_int(&j, "max_depth", t->max_depth);
  json_double(&j, "time_s", t->time_s);
  json_double(&j, "nodes_per_s", (double)t->nodes / t->time_s);
  json_double(&j, "efficiency", eff);
  if (have_seq) {
    json_object_begin(&j, "sequential");
    json_int(&j, "nodes", seq->cnt.nodes);
    json_int(&j, "leaves", seq->cnt.leaves);
    json_int(&j, "max_depth", seq->cnt.max_depth);
    json_bool(&j, "complete", seq->complete);
    json_double(&j, "time_s", seq->time_s);
    json_double(&j, "nodes_per_s", (double)seq->cnt.nodes / seq->time_s);
    json_object_end(&j);
  } else {
    json_string(&j, "sequential", NULL);
  }
  json_object_begin(&j, "steal");
  json_int(&j, "tasks_spawned", t->spawned);
  json_int(&j, "splits", t->splits);
  json_int(&j, "steal_attempts", t->attempts);
  json_int(&j, "thefts", t->thefts);
  json_int(&j, "tasks_moved", t->given);
  json_int(&j, "tasks_run_stolen", t->executed_stolen);
  json_int(&j, "results_routed", t->routed);
  json_int(&j, "messages", t->messages);
  json_int(&j, "termination_waves", t->waves);
  json_double(&j, "work_s", t->work_s);
  json_double(&j, "idle_s", t->idle_s);
  /* The time from the last task's end to the run's end: termination. */
  json_double(&j, "last_task_end_s", t->last_task_s);
  json_object_end(&j);
  json_object_end(&j);
  json_finish(&j);
}

static void print_table(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                        double eff) {
  printf("UTS %s tree: ", type_names[o->prm.type]);
  if (o->prm.type != UTS_BIN)
    printf("shape %s, depth %d, ", shape_names[o->prm.shape], o->prm.depth);
  printf("b0 %g, root seed %d", o->prm.b0, o->prm.root_seed);
  if (o->prm.type != UTS_GEO) printf(", q %g, m %d", o->prm.q, o->prm.m);
  if (o->prm.type == UTS_HYBRID) printf(", shift %g", o->prm.shift);
  printf(", granularity %d\n", o->prm.gran);
  if (t->node_cost > 0)
    printf("simulated:  %.3g s per node (%.3g s of work per rank), a check every %" PRId64
           " nodes; times are simulated\n",
           t->node_cost, t->node_cost * (double)t->nodes / p, t->every);
  printf("nodes %" PRId64 ", leaves %" PRId64 ", max depth %" PRId64 "\n", t->nodes, t->leaves,
         t->max_depth);
  printf("parallel:   %d rank%s x %lld worker%s (%s, %s progress): %.3f s, %.3f M nodes/s\n", p,
         p > 1 ? "s" : "", (long long)o->workers, o->workers > 1 ? "s" : "", o->policy,
         progress_names[o->progress], t->time_s, (double)t->nodes / t->time_s * 1e-6);
  if (have_seq)
    printf("sequential: %" PRId64 " nodes%s in %.3f s, %.3f M nodes/s\n", seq->cnt.nodes,
           seq->complete ? "" : " (part of the tree)", seq->time_s,
           (double)seq->cnt.nodes / seq->time_s * 1e-6);
  if (isnan(eff))
    printf("efficiency: n/a (no sequential baseline)\n");
  else
    printf("efficiency: %.3f (parallel rate / (%lld processors x sequential rate))\n", eff,
           (long long)p * o->workers);
  printf("stealing:   %" PRId64 " tasks spawned, %" PRId64 " steal requests, %" PRId64
         " thefts, %" PRId64 " tasks moved, %" PRId64 " messages, %" PRId64
         " termination waves\n",
         t->spawned, t->attempts, t->thefts, t->given, t->messages, t->waves);
}

int main(int argc, char **argv) {
  opts o;
  int prc = parse(argc, argv, &o);
  if (prc != CLI_CONTINUE || o.check_flags) return prc == CLI_CONTINUE ? 0 : prc;
#ifdef BALLAST_SMPI
  bool relaunch = false; /* smpirun starts this program; `ballast simulate-uts` launches it */
#else
  bool relaunch = o.ranks > 0 && !launch_under_mpirun();
#endif
  if (relaunch) {
    /* Open MPI binds each rank to one core by default when there are few
     * ranks, which would put all of a rank's workers on that core. */
    if (o.workers > 1) setenv("OMPI_MCA_hwloc_base_binding_policy", "none", 0);
    return launch_mpiexec(PROG, BALLAST_MPIEXEC, BALLAST_MPIEXEC_OVERSUBSCRIBE, argc, argv, o.ranks);
  }

  int provided, rank, p;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (o.ranks > 0 && o.ranks != p) {
    if (rank == 0) fprintf(stderr, PROG ": --ranks %lld but running on %d ranks\n", (long long)o.ranks, p);
    MPI_Finalize();
    return 2;
  }
  int status = 0;
  seq_out seq;
  memset(&seq, 0, sizeof seq);
  bool have_seq = o.baseline_nodes != 0;
  if (rank == 0 && have_seq && sequential(&o, &seq) != 0) status = 1;
  quiet_barrier(); /* the other ranks sleep through the baseline */
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int too_big = seq.too_big;
  MPI_Bcast(&too_big, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (status == 0 && too_big) {
    if (rank == 0)
      fprintf(stderr, PROG ": the tree has more than %lld nodes (--max-nodes %lld): stopped\n",
              (long long)o.max_nodes, (long long)o.max_nodes);
    MPI_Finalize();
    return 1;
  }
  if (status != 0) {
    if (rank == 0) fprintf(stderr, PROG ": out of memory in the sequential search\n");
    MPI_Finalize();
    return 1;
  }
  run_ctx c = {.o = &o, .every = CHECK_EVERY, .poll_every = POLL_EVERY};
#ifdef BALLAST_SMPI
  /* The node cost (rank 0 knows the tree's size), a check every slice of
   * simulated work and a poll at every check; the sequential search ran
   * in no simulated time, so its time is what its nodes cost. */
  c.node_cost = o.node_cost > 0 ? o.node_cost
                                : o.work_per_rank * (double)p / (double)(seq.cnt.nodes ? seq.cnt.nodes : 1);
  MPI_Bcast(&c.node_cost, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  /* Time constants not given follow the node cost. A check every 3 nodes,
   * but no more often than every 0.1 ms of work: each check is a simulated
   * sleep and a poll, the simulation's main cost. A stolen subtree of a
   * binomial tree is a few dozen nodes, so what a theft waits for counts
   * many times over: a thief polls for its answer ten times per slice and
   * retries within a slice (T3L on 448 ranks: 0.78 efficiency with the
   * poll at one slice and the back-off at 2.5, 0.91 with these;
   * docs/BENCHMARKS.md). */
  if (o.slice == 0) o.slice = fmax(3 * c.node_cost, 1e-4);
  if (o.poll_interval == 0) o.poll_interval = o.slice / 10;
  if (o.backoff_max == 0) o.backoff_max = o.slice;
  c.every = llround(o.slice / c.node_cost);
  if (c.every < 1) c.every = 1;
  c.poll_every = 1;
  seq.time_s = c.node_cost * (double)seq.cnt.nodes;
#endif

  bal_steal_config cfg;
  bal_steal_config_init(&cfg);
  cfg.policy = o.policy;
  cfg.progress = o.progress == 0 ? BAL_STEAL_PROGRESS_POLL : BAL_STEAL_PROGRESS_THREAD;
  cfg.workers = (int)o.workers;
  cfg.seed = o.seed;
  cfg.steal_fraction = o.steal_fraction;
  if (o.poll_interval > 0) cfg.poll_interval_s = o.poll_interval;
  if (o.backoff_max > 0) cfg.backoff_max_s = o.backoff_max;
  o.poll_interval = cfg.poll_interval_s; /* as reported by --json */
  o.backoff_max = cfg.backoff_max_s;
  pthread_mutex_init(&c.mu, NULL);
  int rc = bal_steal_create(MPI_COMM_WORLD, &cfg, &c.s);
  if (rc != BAL_OK) {
    if (rank == 0) fprintf(stderr, PROG ": bal_steal_create: %s\n", bal_strerror(rc));
    MPI_Finalize();
    return 1;
  }
  uts_node root;
  uts_root(&o.prm, &root);
  if (rank == 0 && (rc = bal_steal_add_task(c.s, &root, sizeof root, NULL)) != BAL_OK) {
    fprintf(stderr, PROG ": bal_steal_add_task: %s\n", bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  quiet_barrier();
  double a = MPI_Wtime();
  rc = bal_steal_run(c.s, uts_task, 0, &c);
  double b = MPI_Wtime();
  if (rc != BAL_OK) {
    fprintf(stderr, PROG ": rank %d: bal_steal_run: %s\n", rank, bal_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int st0 = 0;
  const void *d;
  size_t len;
  if (rank == 0 && bal_steal_result(c.s, 0, &d, &len, &st0) == BAL_OK && st0 != 0) status = 1;
  bal_steal_stats ss;
  bal_steal_stats_get(c.s, &ss);
  int64_t mine[13] = {c.total.nodes, c.total.leaves, ss.spawned, ss.steal_attempts, ss.thefts,
                      ss.tasks_given, ss.results_routed, ss.messages_sent, ss.executed_stolen,
                      ss.term_waves, c.splits, atomic_load(&c.stop) ? 1 : 0,
                      atomic_load(&c.oom) ? 1 : 0};
  int64_t sum[13];
  MPI_Reduce(mine, sum, 13, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  int64_t depth = c.total.max_depth, maxd = 0;
  MPI_Reduce(&depth, &maxd, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  double tm = b - a, tmax = 0, ws[2] = {ss.work_s, ss.idle_s}, wsum[2];
  MPI_Reduce(&tm, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  double last = c.last_end > 0 ? c.last_end - a : 0, lastmax = 0;
  MPI_Reduce(&last, &lastmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(ws, wsum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  bal_steal_destroy(c.s);
  if (rank == 0) {
    sums t = {sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9],
              sum[10], sum[11], maxd, tmax, wsum[0], wsum[1], lastmax, c.node_cost, c.every};
    if (t.stopped) {
      fprintf(stderr, PROG ": the tree has more than %lld nodes (--max-nodes %lld): stopped\n",
              (long long)o.max_nodes, (long long)o.max_nodes);
      status = 1;
    } else if (status || sum[12]) {
      fprintf(stderr, PROG ": a task ran out of memory\n");
      status = 1;
    } else if (have_seq && seq.complete &&
               (seq.cnt.nodes != t.nodes || seq.cnt.leaves != t.leaves ||
                seq.cnt.max_depth != t.max_depth)) {
      fprintf(stderr, PROG ": the parallel count differs from the sequential one\n");
      status = 1;
    } else {
      double eff = NAN;
      if (have_seq && seq.cnt.nodes > 0 && seq.time_s > 0)
        eff = ((double)t.nodes / t.time_s) /
              ((double)p * (double)o.workers * ((double)seq.cnt.nodes / seq.time_s));
      if (o.json)
        print_json(&o, p, &seq, have_seq, &t, eff);
      else
        print_table(&o, p, &seq, have_seq, &t, eff);
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  pthread_mutex_destroy(&c.mu);
  MPI_Finalize();
  return status;
}
