/* `ballast malleable` (program ballast-malleable): a bal_for loop whose
 * rate follows the CPUs its process holds in a node registry
 * (ballast/node.h). Each iteration is one bal_for() over --items items of
 * --item-us each; the pool is attached to the registry through
 * bal_pool_config (ballast/for.h), so its active workers follow the mask a
 * node manager sets (`ballast node set`, or `ballast node run` admitting a
 * job next to it) — between calls and between chunks of a call.
 *
 * Work is real (`spin`: arithmetic calibrated at start-up to --item-us on
 * one CPU, so that a worker sharing its CPU is slower, as a real program
 * is) or emulated (`sleep`: the worker sleeps --item-us per item, so a
 * 2-core machine can host several 16-CPU "nodes" of virtual CPUs and the
 * rate still follows the workers: items/s = active workers / item time).
 *
 * Every item runs alone (grain 1), so an iteration of --items items is as
 * many chunks and a shrink takes effect within about one item's time. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ballast/ballast.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "core/clock.h"
#include "record.h"

#define PROG "ballast-malleable"

enum work_kind { WORK_SPIN, WORK_SLEEP };
static const char *const work_names[] = {"spin", "sleep", NULL};

typedef struct opts {
  const char *registry;
  const char *registry_src; /* "--registry", or the variable it came from */
  bool unattached;
  int64_t job, ranks;
  bal_node_mask cpus;
  const char *cpus_text;
  bool cpus_given;
  int64_t threads;
  int work;
  int64_t items;
  double item_us;
  int64_t iterations;
  bool iterations_given;
  double seconds;
  bool seconds_given;
  const char *csv;
  bool json;
} opts;

/* Per-worker item counts, one cache line each: each worker writes only
 * its own, so no atomics are needed and no line bounces. */
typedef struct {
  int64_t items;
  char pad[56];
} counter;

typedef struct body_ctx {
  enum work_kind work;
  int64_t item_ns;
  uint64_t spin_iters; /* of spin_kernel(), for one item */
  counter *count;
} body_ctx;

static volatile sig_atomic_t stop_signal;
static void on_signal(int sig) { stop_signal = sig; }

/* Arithmetic the compiler cannot drop: a xorshift chain, n steps. */
static uint64_t spin_kernel(uint64_t n, uint64_t x) {
  for (uint64_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

static volatile uint64_t spin_sink;

static void body(int64_t begin, int64_t end, void *arg) {
  body_ctx *c = arg;
  int w = bal_worker_id();
  for (int64_t i = begin; i < end; i++) {
    if (c->work == WORK_SLEEP)
      bal__sleep_ns(c->item_ns);
    else
      spin_sink = spin_kernel(c->spin_iters, (uint64_t)i + 88172645463325252ull);
  }
  if (w >= 0) c->count[w].items += end - begin;
}

/* Steps of spin_kernel() per item: the median of a few timed runs on this
 * thread, scaled to --item-us. */
static uint64_t calibrate_spin(int64_t item_ns) {
  const uint64_t n = 200000;
  int64_t best = INT64_MAX;
  for (int r = 0; r < 5; r++) {
    int64_t t0 = bal__now_ns();
    spin_sink = spin_kernel(n, 88172645463325252ull + (uint64_t)r);
    int64_t dt = bal__now_ns() - t0;
    if (dt < best) best = dt; /* the least disturbed run */
  }
  if (best < 1) best = 1;
  double steps = (double)n * (double)item_ns / (double)best;
  return steps < 1 ? 1 : (uint64_t)steps;
}

static bool parse_cpus(const char *value, void *dest, char *err, size_t errlen) {
  opts *o = dest;
  if (bal_node_mask_parse(value, &o->cpus) != BAL_OK || bal_node_mask_count(&o->cpus) == 0) {
    snprintf(err, errlen, "'%s' is not a CPU list like 0-3,8 (ids below %d, not empty)", value,
             BAL_NODE_MAX_CPUS);
    return false;
  }
  o->cpus_text = value;
  o->cpus_given = true;
  return true;
}

static int parse(opts *o, int argc, char **argv) {
  const cli_flag flags[] = {
      CLI_SECTION("Node registry:"),
      CLI_STRING("--registry", "NAME",
                 &o->registry, "attach the pool to this registry (default:\n$" BAL_NODE_REGISTRY_ENV
                 ", which `ballast node run` sets; with\nneither, the pool is not attached)"),
      CLI_BOOL("--unattached", &o->unattached,
               "do not attach, even with a registry named (a baseline;\nBALLAST_NODE is ignored)"),
      CLI_INT("--job", "ID", &o->job, 0, INT64_MAX,
              "job id when attaching on its own (default: $SLURM_JOB_ID,\nelse the pid; "
              "under `ballast node run`, run's --job)"),
      CLI_INT("--ranks", "R", &o->ranks, 1, BAL_NODE_MAX_CPUS,
              "ranks of the job on this node (default 1)"),
      CLI_CUSTOM("--cpus", "CPULIST", o, parse_cpus,
                 "CPUs to claim when attaching on its own, all free\n(default: every free CPU)"),
      CLI_SECTION("Work:"),
      CLI_INT("--threads", "N", &o->threads, 0, BAL_POOL_MAX_THREADS,
              "pool capacity (default 0: the registry's CPU count when\nattached, else this "
              "process's CPUs)"),
      CLI_CHOICE("--work", "spin|sleep", &o->work, work_names,
                 "spin: real arithmetic; sleep: emulated, each item sleeps\n(default spin)"),
      CLI_INT("--items", "N", &o->items, 1, INT64_C(1) << 40,
              "items per iteration, one bal_for() (default 64)"),
      {.kind = CLI_KIND_DOUBLE, .name = "--item-us", .metavar = "U", .dest = &o->item_us,
       .dmin = 0, .dmax = 1e7, .open_min = true,
       .help = "cost of one item in microseconds (default 1000)"},
      {.kind = CLI_KIND_INT, .name = "--iterations", .metavar = "N", .dest = &o->iterations,
       .given = &o->iterations_given, .imin = 1, .imax = INT64_C(1) << 40,
       .help = "stop after N iterations (default 100 unless --seconds)"},
      {.kind = CLI_KIND_DOUBLE, .name = "--seconds", .metavar = "S", .dest = &o->seconds,
       .given = &o->seconds_given, .dmin = 0, .dmax = 1e6, .open_min = true,
       .help = "stop after the iteration that ends past S seconds\n(with --iterations: "
               "whichever comes first)"},
      CLI_SECTION("Output:"),
      CLI_PATH("--csv", "FILE", &o->csv,
               "write one row per iteration: iteration, t_s, time_s,\nactive, workers_used, "
               "items_per_s"),
      CLI_BOOL("--json", &o->json, "print one JSON object echoing every parameter, with\n"
                                    "every iteration (past 65,536 of them, in windows of\n"
                                    "2, 4, ... merged iterations: bounded memory)"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast malleable [--registry NAME] [--work spin|sleep] [--items N]\n"
               "                         [--item-us U] [--iterations N | --seconds S] [--json]",
      .description =
          "A bal_for loop whose rate follows the CPUs the process holds in a node\n"
          "registry (docs/node.md): run it under `ballast node run`, shrink it with\n"
          "`ballast node set`, and watch its active workers and items/s follow.\n"
          "Prints a line whenever the active workers change; SIGTERM, SIGINT and\n"
          "SIGHUP end it after the current iteration, with its report.",
      .flags = flags,
  };
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (o->unattached && (o->cpus_given || o->job >= 0 || o->ranks != 1 || o->registry))
    return cli_usage_error(PROG, "--unattached: --registry, --job, --ranks and --cpus are "
                                 "for attaching; give one or the other");
  if (o->csv && !out_check_dir(PROG, "--csv", o->csv)) return 1;
  return CLI_CONTINUE;
}

/* Open the registry as a manager would, to say precisely what is wrong
 * with it (attaching gives one code for a malformed name and a CPU list
 * outside the node); 0 or the exit status. */
static int check_registry(const opts *o) {
  bal_node_manager *m;
  int rc = bal_node_manager_open(o->registry, &m);
  switch (rc) {
  case BAL_OK: break;
  case BAL_EINVAL: {
    char q[4 * BAL_NODE_NAME_MAX + 8];
    return cli_usage_error(PROG,
                           "%s: '%s' is not a registry name (one word, an optional "
                           "leading '/', under %d bytes, no control characters)",
                           o->registry_src, cli_quote(o->registry, q, sizeof q),
                           BAL_NODE_NAME_MAX - 1);
  }
  case BAL_ENOTFOUND:
    fprintf(stderr, "%s: %s: no registry '%s' (create it with 'ballast node init')\n",
            PROG, o->registry_src, o->registry);
    return 1;
  default:
    fprintf(stderr, "%s: %s: '%s': %s\n", PROG, o->registry_src, o->registry, bal_strerror(rc));
    return 1;
  }
  int64_t ncpus = 0;
  bal_node_manager_info(m, &ncpus, NULL);
  bal_node_manager_close(m);
  for (int64_t c = ncpus; o->cpus_given && c < BAL_NODE_MAX_CPUS; c++)
    if (bal_node_mask_has(&o->cpus, c)) {
      fprintf(stderr, "%s: --cpus: CPU %" PRId64 " is outside registry '%s' (CPUs 0-%" PRId64
                      ")\n",
              PROG, c, o->registry, ncpus - 1);
      return 1;
    }
  return 0;
}

/* The library says why it refused through its log (ballast/log.h; it
 * never prints): the last error names what "invalid argument" alone does
 * not (BALLAST_NUM_THREADS, BALLAST_BIND, SLURM_JOB_ID), and warnings
 * (BALLAST_NODE ignored, this process removed from the registry, the
 * registry gone bad) are printed as they come, from any thread. */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char lib_error[512];

static void on_log(bal_log_level level, const char *module, const char *msg, void *user) {
  (void)module, (void)user;
  if ((int)level == BAL_LOG_ERROR) {
    pthread_mutex_lock(&log_lock);
    snprintf(lib_error, sizeof lib_error, "%s", msg);
    pthread_mutex_unlock(&log_lock);
  } else {
    fprintf(stderr, "%s: warning: %s\n", PROG, msg);
  }
}

/* Create the pool, attached when a registry is named; 0 or exit status. */
static int make_pool(opts *o, bal_pool **pool) {
  bal_pool_config pc;
  bal_pool_config_init(&pc);
  pc.nthreads = (int)o->threads;
  bal_node_attach_config ac;
  bal_node_attach_config_init(&ac);
  o->registry_src = "--registry";
  if (!o->registry && !o->unattached && (o->registry = getenv(BAL_NODE_REGISTRY_ENV)))
    o->registry_src = "$" BAL_NODE_REGISTRY_ENV;
  if (o->registry && !*o->registry) o->registry = NULL;
  if (o->unattached) {
    unsetenv("BALLAST_NODE"); /* a baseline: not attached by the environment either */
  } else if (o->registry) {
    ac.registry = o->registry;
    ac.job = o->job;
    ac.ranks = o->ranks;
    ac.cpus = o->cpus_given ? &o->cpus : NULL;
    pc.node = &ac;
  } else if (o->cpus_given || o->job >= 0 || o->ranks != 1) {
    return cli_usage_error(PROG, "--job, --ranks and --cpus need a registry (--registry or $"
                                 BAL_NODE_REGISTRY_ENV ")");
  }
  if (pc.node) {
    int code = check_registry(o);
    if (code) return code;
  }
  bal_log_set_callback(on_log, BAL_LOG_WARN, NULL);
  int rc = bal_pool_create_with(&pc, pool);
  if (rc == BAL_OK) return 0;
  if (rc == BAL_EBUSY)
    fprintf(stderr,
            "%s: %s: cannot attach to '%s': %s (no free CPU%s, or this process or "
            "the registry is full)\n",
            PROG, o->registry_src, o->registry, bal_strerror(rc), o->cpus_given ? " among --cpus" : "");
  else if (pc.node)
    fprintf(stderr, "%s: %s: cannot attach to '%s': %s\n", PROG, o->registry_src, o->registry,
            lib_error[0] ? lib_error : bal_strerror(rc));
  else
    fprintf(stderr, "%s: cannot create the pool: %s\n", PROG,
            lib_error[0] ? lib_error : bal_strerror(rc));
  return 1;
}

static void print_json(const opts *o, int capacity, double start_s, const record *r,
                       const char *stopped_by) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "tool", "malleable");
  json_string(&j, "registry", o->registry);
  json_bool(&j, "unattached", o->unattached);
  if (o->job >= 0)
    json_int(&j, "job", o->job);
  else
    json_string(&j, "job", NULL);
  json_int(&j, "ranks", o->ranks);
  json_string(&j, "cpus", o->cpus_given ? o->cpus_text : NULL);
  json_int(&j, "threads", o->threads);
  json_string(&j, "work", work_names[o->work]);
  json_int(&j, "items", o->items);
  json_double(&j, "item_us", o->item_us);
  if (o->iterations_given || !o->seconds_given)
    json_int(&j, "iterations", o->iterations);
  else
    json_string(&j, "iterations", NULL);
  json_double(&j, "seconds", o->seconds_given ? o->seconds : NAN);
  json_string(&j, "csv", o->csv);
  json_bool(&j, "attached", o->registry != NULL);
  json_int(&j, "pid", (int64_t)getpid());
  json_int(&j, "capacity", capacity);
  json_double(&j, "start_clock_s", start_s);
  json_string(&j, "stopped_by", stopped_by);
  json_int(&j, "iterations_run", r->n);
  json_double(&j, "elapsed_s", r->last_t_s);
  json_int(&j, "per_iteration_window", r->window);
  json_array_begin(&j, "per_iteration");
  for (int64_t i = 0; i < r->ne; i++) {
    const rec_entry *e = &r->e[i];
    json_object_begin(&j, NULL);
    json_int(&j, "iteration", e->first);
    json_int(&j, "iterations", e->count);
    json_double(&j, "t_s", e->t_s);
    json_double(&j, "time_s", e->time_s / (double)e->count);
    json_int(&j, "active", e->active);
    json_int(&j, "workers_used", e->used);
    json_double(&j, "items_per_s", (double)o->items * (double)e->count / e->time_s);
    json_object_end(&j);
  }
  json_array_end(&j);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

int main(int argc, char **argv) {
  opts o = {.job = -1, .ranks = 1, .work = WORK_SPIN, .items = 64, .item_us = 1000,
            .iterations = 100};
  int rc = parse(&o, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  bal_pool *pool;
  rc = make_pool(&o, &pool);
  if (rc) return rc;
  int cap = bal_pool_size(pool);
  body_ctx ctx = {.work = (enum work_kind)o.work, .item_ns = (int64_t)llround(o.item_us * 1e3)};
  if (ctx.item_ns < 1) ctx.item_ns = 1;
  ctx.count = calloc((size_t)cap, sizeof *ctx.count);
  if (!ctx.count) {
    fprintf(stderr, "%s: out of memory\n", PROG);
    bal_pool_destroy(pool);
    return 1;
  }
  record rec;
  if (!rec_init(&rec, PROG, o.items, o.csv, o.json)) {
    free(ctx.count);
    bal_pool_destroy(pool);
    return 1;
  }
  if (ctx.work == WORK_SPIN) ctx.spin_iters = calibrate_spin(ctx.item_ns);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  if (!o.json) {
    if (o.registry)
      printf("%s: pid %ld attached to registry '%s', %d workers at most\n", PROG,
             (long)getpid(), o.registry, cap);
    else
      printf("%s: pid %ld not attached, %d workers\n", PROG, (long)getpid(), cap);
    fflush(stdout);
  }
  int64_t start = bal__now_ns();
  const char *stopped_by = "iterations";
  for (;;) {
    if (o.iterations_given || !o.seconds_given) {
      if (rec.n >= o.iterations) break;
    }
    if (stop_signal) {
      stopped_by = "signal";
      break;
    }
    for (int w = 0; w < cap; w++) ctx.count[w].items = 0;
    int64_t t0 = bal__now_ns();
    rc = bal_for(pool, 0, o.items, 1, body, &ctx);
    int64_t t1 = bal__now_ns();
    if (rc != BAL_OK) {
      fprintf(stderr, "%s: bal_for: %s\n", PROG, bal_strerror(rc));
      break;
    }
    double t_s = (double)(t1 - start) * 1e-9, time_s = (double)(t1 - t0) * 1e-9;
    int active = bal_pool_active(pool), used = 0, before = rec.last_active;
    for (int w = 0; w < cap; w++) used += ctx.count[w].items > 0;
    double before_rate = 0;
    bool ok;
    bool changed = rec_add(&rec, t_s, time_s, active, used, &before_rate, &ok);
    if (!ok) {
      rc = BAL_ENOMEM;
      break;
    }
    if (!o.json && changed) {
      if (rec.n == 1)
        printf("t=%.3f s  iteration 0: %d workers active\n", t_s, active);
      else
        printf("t=%.3f s  iteration %" PRId64 ": %d workers active (before: %d, %.0f items/s)\n",
               t_s, rec.n - 1, active, before, before_rate);
      fflush(stdout);
    }
    if (o.seconds_given && t_s >= o.seconds) {
      stopped_by = "seconds";
      break;
    }
  }
  bal_pool_destroy(pool); /* detaches: the CPUs go back by the rule */
  int code = rc == BAL_OK ? 0 : 1;
  if (!rec_finish_csv(&rec, code == 0)) code = 1;
  if (code == 0) {
    if (o.json) {
      print_json(&o, cap, (double)start * 1e-9, &rec, stopped_by);
    } else {
      int64_t n = rec.n;
      double items = (double)o.items * (double)n, el = rec.last_t_s;
      if (n > 0)
        printf("t=%.3f s  end: %d workers active (%.0f items/s)\n", el, rec.last_active,
               rec_phase_rate(&rec));
      printf("%s: %" PRId64 " iterations in %.3f s (%s), %.0f items/s on average\n", PROG, n, el,
             stopped_by, el > 0 ? items / el : 0.0);
    }
  }
  rec_free(&rec);
  free(ctx.count);
  return code;
}
