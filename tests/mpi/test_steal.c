/* MPI tests of the steal module. Usage: test_steal SCENARIO [thread|poll]
 * Every scenario checks, at each owner, that every task's result arrived
 * exactly once with the right content and status, and, globally, that the
 * number of executions equals the number of tasks. Any failure aborts the
 * whole job with a message naming the rank and the check. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include <ballast/ballast.h>
#include <ballast/steal.h>

#include "mpi_check.h"
#include "steal/steal_internal.h" /* the transport's test hook, the victim policies */

static int rank, nranks;
static bal_steal_progress mode = BAL_STEAL_PROGRESS_THREAD;
/* "poll-wait": POLL mode with bal_steal_config::idle_wait on (make()). */
static int idle_wait = 0;
/* bal_steal_config::lifelines of the balancers make() creates. */
static int lifelines = 0;

/* Task input: a header then payload bytes derived from (owner, idx). */
typedef struct hdr {
  int32_t owner;
  int32_t fail; /* non-zero: the task returns this */
  int64_t idx;
  uint64_t out_len; /* result length to produce */
  uint64_t delay_us;
} hdr;

static uint64_t checksum(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* The result: out_len bytes, byte i = (checksum + i) & 0xff; inputs shorter
 * than the header (0 bytes) produce 8 bytes of checksum. */
static int task_fn(const void *input, size_t in_len, void *output, size_t out_cap,
                   size_t *out_len, void *arg) {
  bal_steal *s = arg;
  uint64_t c = checksum(input, in_len);
  if (in_len < sizeof(hdr)) {
    if (out_cap < 8) return 99;
    memcpy(output, &c, 8);
    *out_len = 8;
    return 0;
  }
  hdr h;
  memcpy(&h, input, sizeof h);
  if (h.delay_us) {
    int64_t left = (int64_t)h.delay_us;
    while (left > 0) {
      int64_t step = left > 500 ? 500 : left;
      struct timespec ts = {0, (long)step * 1000};
      nanosleep(&ts, NULL);
      left -= step;
      if (mode == BAL_STEAL_PROGRESS_POLL) CHECK(bal_steal_poll(s) == BAL_OK);
    }
  }
  if (mode == BAL_STEAL_PROGRESS_THREAD) CHECK(bal_steal_poll(s) == BAL_ENOTSUP);
  CHECK(bal_steal_run(s, task_fn, 16, arg) == BAL_EBUSY || mode == BAL_STEAL_PROGRESS_THREAD);
  if (h.fail) return h.fail;
  size_t n = h.out_len < out_cap ? h.out_len : out_cap;
  unsigned char *o = output;
  for (size_t i = 0; i < n; i++) o[i] = (unsigned char)(c + i);
  *out_len = h.out_len; /* may exceed out_cap on purpose */
  return 0;
}

typedef struct spec {
  long long ntasks;   /* this rank's tasks */
  size_t in_min, in_max;
  size_t out_max;     /* declared max_out */
  int fail_every;     /* task idx % fail_every == fail_every - 1 fails */
  int oversize_every; /* task idx % k == 1 reports out_max + 1 bytes */
  uint64_t delay_max_us;
  int zero_every;     /* task idx % k == 0 has empty input */
} spec;

/* Build this rank's tasks, run, verify. Returns executions on this rank. */
static void run_case(bal_steal *s, const spec *sp, uint64_t seed) {
  unsigned char *buf = malloc(sp->in_max > sizeof(hdr) ? sp->in_max : sizeof(hdr));
  CHECK(buf);
  uint64_t *sum = calloc((size_t)(sp->ntasks ? sp->ntasks : 1), sizeof *sum);
  size_t *inl = calloc((size_t)(sp->ntasks ? sp->ntasks : 1), sizeof *inl);
  uint64_t *outl = calloc((size_t)(sp->ntasks ? sp->ntasks : 1), sizeof *outl);
  int *fail = calloc((size_t)(sp->ntasks ? sp->ntasks : 1), sizeof *fail);
  CHECK(sum && inl && outl && fail);
  for (long long i = 0; i < sp->ntasks; i++) {
    uint64_t r = mix(seed ^ mix((uint64_t)rank * 1000003u + (uint64_t)i));
    size_t len = sp->in_min + (size_t)(r % (sp->in_max - sp->in_min + 1));
    if (len < sizeof(hdr)) len = sizeof(hdr);
    if (sp->zero_every && i % sp->zero_every == 0) len = 0;
    hdr h = {rank, 0, i, (r >> 20) % (sp->out_max + 1), sp->delay_max_us ? (r >> 40) % (sp->delay_max_us + 1) : 0};
    if (sp->fail_every && i % sp->fail_every == sp->fail_every - 1) h.fail = 7;
    if (sp->oversize_every && i % sp->oversize_every == 1) h.out_len = sp->out_max + 1;
    if (len) {
      memcpy(buf, &h, sizeof h);
      for (size_t j = sizeof h; j < len; j++) buf[j] = (unsigned char)(mix(r + j) >> 7);
    }
    int64_t id = -1;
    CHECK(bal_steal_add_task(s, len ? buf : NULL, len, &id) == BAL_OK);
    CHECK(id == i);
    sum[i] = checksum(buf, len);
    inl[i] = len;
    outl[i] = len ? h.out_len : 8;
    fail[i] = len ? h.fail : 0;
  }
  CHECK(bal_steal_run(s, task_fn, sp->out_max, s) == BAL_OK);
  bal_steal_stats st;
  CHECK(bal_steal_stats_get(s, &st) == BAL_OK);
  long long failed = 0;
  for (long long i = 0; i < sp->ntasks; i++) {
    const void *d = NULL;
    size_t len = 0;
    int status = -100;
    CHECK(bal_steal_result(s, i, &d, &len, &status) == BAL_OK);
    if (fail[i]) {
      CHECK(status == fail[i]);
      CHECK(len == 0);
      failed++;
    } else if (outl[i] > sp->out_max) {
      CHECK(status == BAL_ERANGE);
      CHECK(len == 0);
      failed++;
    } else {
      CHECK(status == 0);
      CHECK(len == outl[i]);
      const unsigned char *o = d;
      if (inl[i] == 0) {
        uint64_t c;
        memcpy(&c, d, 8);
        CHECK(c == sum[i]);
      } else {
        for (size_t j = 0; j < len; j++) CHECK(o[j] == (unsigned char)(sum[i] + j));
      }
    }
  }
  CHECK(bal_steal_result(s, sp->ntasks, NULL, NULL, NULL) == BAL_EINVAL);
  CHECK(st.failed == failed);
  CHECK(st.tasks_own == sp->ntasks);
  int64_t mine[2] = {st.executed_own + st.executed_stolen, sp->ntasks}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all[0] == all[1]); /* every task executed exactly once */
  CHECK(st.executed_own <= sp->ntasks);
  free(buf);
  free(sum);
  free(inl);
  free(outl);
  free(fail);
}

/* Trace events by kind (the callback may run on two threads). */
static long long trace_count[4];
static pthread_mutex_t trace_mu = PTHREAD_MUTEX_INITIALIZER;
static void on_trace(void *arg, bal_steal_event ev, double t0, double t1, int peer) {
  (void)arg;
  CHECK(ev >= BAL_STEAL_EV_WORK && ev <= BAL_STEAL_EV_IDLE && t1 >= t0 && t0 >= 0);
  CHECK(peer >= -1 && peer < nranks);
  pthread_mutex_lock(&trace_mu);
  trace_count[ev]++;
  pthread_mutex_unlock(&trace_mu);
}

static bal_steal *make(const char *pol, uint64_t seed) {
  bal_steal_config c;
  CHECK(bal_steal_config_init(&c) == BAL_OK);
  c.trace = on_trace;
  c.policy = pol;
  c.progress = mode;
  c.seed = seed;
  c.sharing_group_size = 3; /* several sharing groups from 4 ranks on */
  c.idle_wait = idle_wait;
  c.lifelines = lifelines;
  bal_steal *s = NULL;
  CHECK(bal_steal_create(MPI_COMM_WORLD, &c, &s) == BAL_OK);
  return s;
}

/* Tasks per rank under a named distribution of `total` tasks. */
static long long share(const char *dist, long long total) {
  if (!strcmp(dist, "uniform")) return total / nranks + (rank < total % nranks);
  if (!strcmp(dist, "single")) return rank == 0 ? total : 0;
  if (!strcmp(dist, "gaussian")) {
    double x = 10.0 * (rank + 0.5) / nranks;
    return (long long)llround(total * 0.4 * exp(-0.5 * (x - 5) * (x - 5) / 0.25));
  }
  return (long long)(mix((uint64_t)rank * 7919u) % (uint64_t)(2 * total / nranks + 1));
}

/* Every registered victim policy, in registry order. */
static int policies(const char *names[], int cap) {
  int n = 0;
  for (const char *name; n < cap && (name = bal_steal_policy_name(n)) != NULL;) names[n++] = name;
  CHECK(n < cap);
  return n;
}

static void scenario_exactly(void) {
  const char *dists[] = {"uniform", "single", "gaussian", "random"};
  const char *pols[16];
  int np = policies(pols, 16);
  long long total = nranks >= 16 ? 320 : 60 * nranks;
  int64_t waits = 0, dormant = 0;
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 4; d++) {
      /* Half the cases: a thief goes dormant after its first empty reply. */
      lifelines = (p + d) % 2;
      bal_steal *s = make(pols[p], (uint64_t)(p * 10 + d));
      spec sp = {share(dists[d], total), 0, 200, 48, 0, 0, 0, 5};
      run_case(s, &sp, (uint64_t)(100 * p + d));
      bal_steal_stats st;
      CHECK(bal_steal_stats_get(s, &st) == BAL_OK);
      if (!strcmp(pols[p], "none")) CHECK(st.steal_attempts == 0 && st.executed_stolen == 0);
      if (strcmp(pols[p], "random") != 0) CHECK(st.peers_contacted <= st.overlay_degree);
      if (!strcmp(pols[p], "sharing")) CHECK(st.steal_attempts == 0);
      waits += s->tp.waits;
      dormant += s->ll_dormancies;
      CHECK(lifelines || s->ll_dormancies == 0);
      bal_steal_destroy(s);
    }
  lifelines = 0;
  /* poll-wait: some thief did block in its receive (a test of the waiting
   * path, not only of the headers) */
  int64_t all_waits = 0;
  MPI_Allreduce(&waits, &all_waits, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(!idle_wait || nranks < 2 || all_waits > 0);
  CHECK(idle_wait || all_waits == 0);
  /* lifelines: some thief did go dormant (with one empty reply enough,
   * the "single" distribution's thieves do) */
  int64_t all_dormant = 0;
  MPI_Allreduce(&dormant, &all_dormant, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(nranks < 2 || all_dormant > 0);
}

/* Runs back to back on one balancer with nothing collective between them:
 * a rank released from one run's final barrier starts the next while
 * others are still in that barrier, and its first messages (a wave report,
 * a steal request) reach them there. Every task of every run runs once. */
static void scenario_back_to_back(void) {
  lifelines = 1; /* registrations must not outlive a run either */
  bal_steal *s = make("smallworld", 13);
  lifelines = 0;
  s->tp.delay_max_ns = 50000; /* desynchronise the ranks */
  s->tp.delay_rng = 77 ^ (uint64_t)rank;
  int64_t done = 0, added = 0;
  for (int run = 0; run < 8; run++) {
    int n = rank == run % nranks ? 40 : (int)(mix((uint64_t)(rank * 8 + run)) % 3);
    for (int i = 0; i < n; i++) CHECK(bal_steal_add_task(s, NULL, 0, NULL) == BAL_OK);
    added += n;
    CHECK(bal_steal_run(s, task_fn, 8, s) == BAL_OK);
    bal_steal_stats st;
    CHECK(bal_steal_stats_get(s, &st) == BAL_OK);
    done += st.executed_own + st.executed_stolen;
  }
  int64_t mine[2] = {added, done}, all[2];
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all[0] == all[1]);
  bal_steal_destroy(s);
}

static void scenario_big(void) {
  bal_steal *s = make("smallworld", 3);
  /* rank 0: 1 MiB inputs, results up to 1 MiB; others: empty inputs */
  spec sp = rank == 0 ? (spec){6, 1 << 20, 1 << 20, 1 << 20, 0, 0, 2000, 0}
                      : (spec){4, 0, 0, 1 << 20, 0, 0, 0, 1};
  run_case(s, &sp, 11);
  bal_steal_destroy(s);
}

static void scenario_few(void) {
  for (int p = 0; p < 2; p++) {
    bal_steal *s = make(p ? "random" : "smallworld", 5);
    spec sp = {rank == 0 ? 3 : 0, 0, 64, 16, 0, 0, 20000, 0};
    run_case(s, &sp, 12);
    bal_steal_destroy(s);
  }
}

static void scenario_phases(void) {
  /* Several runs on one balancer; sharing also checks that no token or
   * group outlives its run. */
  for (int p = 0; p < 2; p++) {
    bal_steal *s = make(p ? "sharing" : "smallworld", 6);
    for (int ph = 0; ph < 4; ph++) {
      long long n = ph == 2 ? 0 : (long long)(mix((uint64_t)(rank + 31 * ph)) % 40);
      if (ph == 3 && rank == 0) n = 150;
      spec sp = {n, 0, 128, 32 + 8 * ph, 0, 0, 300, 7};
      run_case(s, &sp, (uint64_t)(40 + ph));
    }
    /* run again without adding: an empty phase */
    CHECK(bal_steal_run(s, task_fn, 8, s) == BAL_OK);
    CHECK(bal_steal_result(s, 0, NULL, NULL, NULL) == BAL_EINVAL);
    bal_steal_destroy(s);
  }
}

static void scenario_delays(void) {
  const char *pols[] = {"smallworld", "biased", "random", "sharing"};
  for (int p = 0; p < 4; p++) {
    bal_steal *s = make(pols[p], 7 + (uint64_t)p);
    spec sp = {share("gaussian", 40LL * nranks), 16, 64, 24, 0, 0, 3000, 0};
    /* Sharing groups formed from skewed estimates, not the task counts. */
    if (!strcmp(pols[p], "sharing"))
      CHECK(bal_steal_set_estimate(s, (double)sp.ntasks * (1 + rank % 3)) == BAL_OK);
    memset(trace_count, 0, sizeof trace_count);
    run_case(s, &sp, (uint64_t)(60 + p));
    bal_steal_stats st;
    CHECK(bal_steal_stats_get(s, &st) == BAL_OK);
    CHECK(trace_count[BAL_STEAL_EV_WORK] == st.executed_own + st.executed_stolen);
    CHECK(trace_count[BAL_STEAL_EV_STEAL] == st.steal_attempts);
    CHECK(trace_count[BAL_STEAL_EV_ROUTE] == st.route_messages);
    CHECK(st.results_routed >= st.route_messages);
    CHECK(st.messages_sent >= st.steal_attempts + st.route_messages);
    int64_t stolen = 0;
    MPI_Allreduce(&st.executed_stolen, &stolen, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(nranks == 1 || stolen > 0); /* ~100 ms of work on a few ranks: others must steal */
    if (strcmp(pols[p], "random") != 0) CHECK(st.peers_contacted <= st.overlay_degree);
    bal_steal_destroy(s);
  }
}

static void scenario_failing(void) {
  const char *pols[16];
  int np = policies(pols, 16);
  for (int p = 0; p < np; p++) {
    bal_steal *s = make(pols[p], 9);
    spec sp = {share("single", 80) + 10, 0, 100, 32, 5, 7, 200, 0};
    run_case(s, &sp, (uint64_t)(70 + p));
    bal_steal_destroy(s);
  }
}

static void scenario_invalid(void) {
  bal_steal_config c;
  bal_steal *s = (bal_steal *)&c; /* must stay untouched */
  CHECK(bal_steal_config_init(NULL) == BAL_EINVAL);
  CHECK(bal_steal_create(MPI_COMM_WORLD, NULL, NULL) == BAL_EINVAL);
  CHECK(bal_steal_create(MPI_COMM_NULL, NULL, &s) == BAL_EINVAL);
#define BAD(field, value)                                             \
  do {                                                                \
    CHECK(bal_steal_config_init(&c) == BAL_OK);                       \
    c.field = value;                                                  \
    CHECK(bal_steal_create(MPI_COMM_WORLD, &c, &s) == BAL_EINVAL);    \
    CHECK(s == (bal_steal *)&c);                                      \
  } while (0)
  BAD(policy, "bogus");
  BAD(policy, "");
  BAD(policy, NULL);
  BAD(latency_bias, -1.0);
  BAD(latency_bias, NAN);
  BAD(sharing_group_size, -1);
  BAD(progress, (bal_steal_progress)-1);
  BAD(overlay_degree, 1);
  BAD(overlay_degree, -3);
  BAD(overlay_exponent, NAN);
  BAD(steal_fraction, 0.0);
  BAD(steal_fraction, 1.5);
  BAD(steal_fraction, NAN);
  BAD(route_buffer_bytes, 0);
  BAD(route_flush_s, -1.0);
  BAD(route_flush_s, INFINITY);
  BAD(poll_interval_s, -0.1);
  BAD(poll_interval_s, 2.0);
  BAD(backoff_max_s, NAN);
  BAD(workers, 0);
  BAD(workers, -1);
  BAD(workers, BAL_STEAL_MAX_WORKERS + 1);
  BAD(idle_wait, 2);
  BAD(idle_wait, -1);
  BAD(lifelines, -1);
  /* valid, but not the same on every rank: refused on every rank */
  CHECK(bal_steal_config_init(&c) == BAL_OK);
  c.idle_wait = rank % 2;
  CHECK(bal_steal_create(MPI_COMM_WORLD, &c, &s) == (nranks > 1 ? BAL_EINVAL : BAL_OK));
  if (nranks == 1) bal_steal_destroy(s);
  s = (bal_steal *)&c;
  /* a valid balancer: bad arguments */
  s = make("smallworld", 1);
  int64_t id = 42;
  CHECK(bal_steal_add_task(NULL, "x", 1, &id) == BAL_EINVAL);
  CHECK(bal_steal_add_task(s, NULL, 3, &id) == BAL_EINVAL && id == 42);
  CHECK(bal_steal_add_task(s, NULL, 0, &id) == BAL_OK && id == 0);
  CHECK(bal_steal_run(NULL, task_fn, 8, NULL) == BAL_EINVAL);
  CHECK(bal_steal_run(s, NULL, 8, NULL) == BAL_EINVAL);
  CHECK(bal_steal_run(s, task_fn, (size_t)1 << 40, NULL) == BAL_EINVAL);
  CHECK(bal_steal_result(s, 0, NULL, NULL, NULL) == BAL_EINVAL); /* not run yet */
  CHECK(bal_steal_poll(NULL) == BAL_EINVAL);
  CHECK(bal_steal_poll(s) == BAL_ENOTSUP);
  CHECK(bal_steal_stats_get(s, NULL) == BAL_EINVAL);
  CHECK(bal_steal_set_estimate(NULL, 1.0) == BAL_EINVAL);
  CHECK(bal_steal_set_estimate(s, NAN) == BAL_EINVAL);
  CHECK(bal_steal_set_estimate(s, -1.0) == BAL_EINVAL);
  /* the registry: distinct names, NULL outside, each one accepted */
  const char *pols[16];
  int np = policies(pols, 16);
  CHECK(np >= 5 && bal_steal_policy_name(-1) == NULL);
  const char *want[] = {"none", "sharing", "random", "smallworld", "biased"};
  for (int w = 0; w < 5; w++) {
    int found = 0;
    for (int p = 0; p < np; p++) found += !strcmp(pols[p], want[w]);
    CHECK(found == 1);
  }
  for (int p = 0; p < np; p++) {
    for (int q = 0; q < p; q++) CHECK(strcmp(pols[p], pols[q]) != 0);
    char copy[64]; /* the balancer must not keep the caller's string */
    snprintf(copy, sizeof copy, "%s", pols[p]);
    bal_steal_config c2;
    CHECK(bal_steal_config_init(&c2) == BAL_OK);
    c2.policy = copy;
    bal_steal *s2 = NULL;
    CHECK(bal_steal_create(MPI_COMM_WORLD, &c2, &s2) == BAL_OK);
    memset(copy, 0, sizeof copy);
    CHECK(bal_steal_run(s2, task_fn, 8, s2) == BAL_OK);
    bal_steal_destroy(s2);
  }
  /* after the refusals, the balancer still works */
  CHECK(bal_steal_run(s, task_fn, 8, s) == BAL_OK);
  const void *d;
  size_t len;
  int st;
  CHECK(bal_steal_result(s, 0, &d, &len, &st) == BAL_OK && st == 0 && len == 8);
  /* a refused task does not start a new phase: the results stay */
  CHECK(bal_steal_add_task(s, NULL, 5, &id) == BAL_EINVAL);
  CHECK(bal_steal_result(s, 0, &d, &len, &st) == BAL_OK && st == 0 && len == 8);
  bal_steal_destroy(s);
  bal_steal_destroy(NULL);
}

/* MPI errors come back as BAL_EMPI, on one rank (nothing to wait for). */
static void scenario_mpi_errors(void) {
  CHECK(nranks == 1);
  /* The balancer's communicator returns errors: a real MPI failure (a send
   * to a rank that does not exist) is a code, not an abort. */
  bal_steal *s = make("smallworld", 1);
  MPI_Errhandler eh;
  CHECK(MPI_Comm_get_errhandler(s->comm, &eh) == MPI_SUCCESS);
  CHECK(eh == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  CHECK(bal__tp_send_msg(&s->tp, nranks + 5, BAL__STEAL_TAG_REQ, NULL, 0, 0) == BAL_EMPI);
  bal_steal_destroy(s);
  /* The test hook fails the k-th MPI call of the transport: every policy's
   * run returns BAL_EMPI (sharing's first call is its collective) and the
   * balancer can be destroyed; k past the run's last call changes nothing. */
  const char *pols[16];
  int np = policies(pols, 16);
  for (int p = 0; p < np; p++)
    for (int64_t k = 1; k <= 4; k++) {
      s = make(pols[p], 2);
      for (int i = 0; i < 20; i++) CHECK(bal_steal_add_task(s, "abc", 3, NULL) == BAL_OK);
      s->tp.fail_countdown = k;
      CHECK(bal_steal_run(s, task_fn, 16, s) == BAL_EMPI);
      bal_steal_destroy(s);
    }
  s = make("sharing", 3);
  s->tp.fail_countdown = 1000000;
  spec sp = {20, 0, 64, 16, 0, 0, 0, 0};
  run_case(s, &sp, 5);
  CHECK(s->tp.fail_countdown > 0);
  bal_steal_destroy(s);
}

/* "biased" prefers the neighbours with the lowest measured round trips. */
static void scenario_biased(void) {
  bal_steal *s = make("biased", 4);
  const int64_t *nb;
  int deg;
  CHECK(bal_overlay_neighbors(s->ov, rank, &nb, &deg) == BAL_OK && deg >= 2);
  int *hits = calloc((size_t)deg, sizeof *hits);
  CHECK(hits);
  /* Nothing measured yet: every neighbour counts the same, all are asked. */
  for (int i = 0; i < 400 * deg; i++) {
    int v = s->policy->pick(s);
    for (int j = 0; j < deg; j++) hits[j] += nb[j] == v;
  }
  for (int j = 0; j < deg; j++) CHECK(hits[j] > 0);
  /* Neighbour 0 answers in 10 us, the others in 10 ms: with bias 1 it is
   * 1000 times likelier than each of them. Unmeasured neighbours count as
   * the lowest latency, so measure them all. */
  s->policy->replied(s, (int)nb[0], 0, 10000);
  for (int j = 1; j < deg; j++) s->policy->replied(s, (int)nb[j], 0, 10000000);
  int n0 = 0, n = 4000;
  for (int i = 0; i < n; i++) n0 += s->policy->pick(s) == nb[0];
  CHECK(n0 > n * 9 / 10);
  /* Bias 0 is uniform whatever the latencies. */
  s->cfg.latency_bias = 0;
  n0 = 0;
  for (int i = 0; i < n; i++) n0 += s->policy->pick(s) == nb[0];
  CHECK(n0 > n / (2 * deg) && n0 < 2 * n / deg);
  free(hits);
  /* And the policy runs: every result home exactly once. */
  spec sp = {share("gaussian", 30LL * nranks), 16, 64, 24, 0, 0, 2000, 0};
  s->cfg.latency_bias = 1;
  run_case(s, &sp, 90);
  bal_steal_destroy(s);
}

/* ---- spawning and termination with dynamic work ----
 * A random tree of tasks: each rank adds a few roots, every task spawns 0-3
 * children up to a depth limit, and each child's result (by a kind drawn
 * from its id) is empty, a failure, a 16-byte record, or too large. Every
 * run checks that each task ran exactly once (count and hash of the ids,
 * against the tree recomputed on every rank) and that the spawning rank got
 * each non-empty result exactly once, so a false termination, a lost or a
 * duplicated task or result fails the run. Delays are injected into the
 * handling of every received message (the transport's test hook) and into
 * some tasks. */
enum { KIND_EMPTY = 0, KIND_FAIL = 1, KIND_RECORD = 2, KIND_OVERSIZE = 3 };
#define SPAWN_OUT 16 /* max_out of the spawning runs */

typedef struct node {
  uint64_t id, seed;
  int32_t depth, spawner;
  int32_t max_depth, pad;
} node;

static int node_kind(uint64_t id) { return (int)(mix(id ^ 0x5bd1e995u) % 4); }
static int node_children(const node *n) {
  return n->depth >= n->max_depth ? 0 : (int)(mix(n->id ^ n->seed) % 4);
}
static uint64_t child_id(uint64_t id, int i) { return mix(id * 8 + (uint64_t)i + 1); }
static size_t node_pad(uint64_t id) {
  uint64_t h = mix(id + 77);
  return h % 50 == 0 ? (size_t)(h >> 8) % 65536 : (size_t)(h >> 8) % 100;
}

/* This rank's spawned children: id -> kind, and how often each came back. */
typedef struct spawn_ctx {
  bal_steal *s;
  pthread_mutex_t mu;
  uint64_t *ids;
  int *delivered, *kinds;
  size_t cap, n;
  int64_t executed, fails, oversize, unexpected;
  uint64_t exec_hash;
} spawn_ctx;

static size_t slot_of(spawn_ctx *c, uint64_t id) {
  size_t i = (size_t)(mix(id) % c->cap);
  while (c->ids[i] && c->ids[i] != id) i = (i + 1) % c->cap;
  return i;
}

static void ctx_add(spawn_ctx *c, uint64_t id, int kind) {
  pthread_mutex_lock(&c->mu);
  if (2 * (c->n + 1) > c->cap) { /* grow: rehash */
    size_t oc = c->cap;
    uint64_t *oi = c->ids;
    int *ok = c->kinds, *od = c->delivered;
    c->cap = oc ? 2 * oc : 1024;
    c->ids = calloc(c->cap, sizeof *c->ids);
    c->kinds = calloc(c->cap, sizeof *c->kinds);
    c->delivered = calloc(c->cap, sizeof *c->delivered);
    CHECK(c->ids && c->kinds && c->delivered);
    for (size_t i = 0; i < oc; i++)
      if (oi[i]) {
        size_t j = slot_of(c, oi[i]);
        c->ids[j] = oi[i];
        c->kinds[j] = ok[i];
        c->delivered[j] = od[i];
      }
    free(oi);
    free(ok);
    free(od);
  }
  size_t j = slot_of(c, id);
  CHECK(c->ids[j] == 0); /* ids are unique */
  c->ids[j] = id;
  c->kinds[j] = kind;
  c->n++;
  pthread_mutex_unlock(&c->mu);
}

static void fill_node(unsigned char *buf, const node *n) {
  memcpy(buf, n, sizeof *n);
  for (int32_t j = 0; j < n->pad; j++) buf[sizeof *n + (size_t)j] = (unsigned char)(n->id >> (j % 8) * 8) ^ (unsigned char)j;
}

/* Set while a task runs on this thread: a result callback must never run
 * inside a task (not even in a task's bal_steal_poll()). */
static _Thread_local int in_spawn_task;

static int spawn_task_body(const void *input, size_t in_len, void *output, size_t out_cap,
                           size_t *out_len, void *arg);

static int spawn_task(const void *input, size_t in_len, void *output, size_t out_cap,
                      size_t *out_len, void *arg) {
  in_spawn_task = 1;
  int rc = spawn_task_body(input, in_len, output, out_cap, out_len, arg);
  in_spawn_task = 0;
  return rc;
}

static int spawn_task_body(const void *input, size_t in_len, void *output, size_t out_cap,
                           size_t *out_len, void *arg) {
  spawn_ctx *c = arg;
  node n;
  CHECK(in_len >= sizeof n);
  memcpy(&n, input, sizeof n);
  CHECK(in_len == sizeof n + (size_t)n.pad);
  const unsigned char *p = (const unsigned char *)input + sizeof n;
  for (int32_t j = 0; j < n.pad; j++) CHECK(p[j] == ((unsigned char)(n.id >> (j % 8) * 8) ^ (unsigned char)j));
  if (mix(n.id + 5) % 8 == 0) { /* some tasks take a while: thieves get a chance */
    struct timespec ts = {0, (long)(mix(n.id + 6) % 150000)};
    nanosleep(&ts, NULL);
    /* POLL mode: the calling thread's task serves messages (results come
     * home meanwhile, their callbacks wait); the other workers' may not. */
    int prc = bal_steal_poll(c->s);
    CHECK(prc == BAL_ENOTSUP || (prc == BAL_OK && mode == BAL_STEAL_PROGRESS_POLL));
    nanosleep(&ts, NULL);
  }
  int nc = node_children(&n);
  unsigned char *buf = malloc(sizeof n + 65536);
  CHECK(buf);
  for (int i = 0; i < nc; i++) {
    node ch = {child_id(n.id, i), n.seed, n.depth + 1, rank, n.max_depth, 0};
    ch.pad = (int32_t)node_pad(ch.id);
    fill_node(buf, &ch);
    ctx_add(c, ch.id, node_kind(ch.id));
    CHECK(bal_steal_spawn(c->s, buf, sizeof ch + (size_t)ch.pad) == BAL_OK);
  }
  free(buf);
  CHECK(bal_steal_spawn(c->s, NULL, 3) == BAL_EINVAL);
  CHECK(bal_steal_queued(c->s) >= 0);
  pthread_mutex_lock(&c->mu);
  c->executed++;
  c->exec_hash += mix(n.id ^ 0xabcdefu);
  pthread_mutex_unlock(&c->mu);
  if (n.depth == 0) { /* a root (own task): its id, stored at its owner */
    memcpy(output, &n.id, 8);
    *out_len = 8;
    return 0;
  }
  switch (node_kind(n.id)) {
  case KIND_FAIL: return 7;
  case KIND_RECORD: {
    uint64_t rec[2] = {n.id, (uint64_t)n.spawner};
    CHECK(out_cap >= sizeof rec);
    memcpy(output, rec, sizeof rec);
    *out_len = sizeof rec;
    return 0;
  }
  case KIND_OVERSIZE: *out_len = out_cap + 1; return 0;
  default: return 0; /* KIND_EMPTY: not delivered */
  }
}

static void spawn_result(const void *result, size_t len, int status, void *arg) {
  spawn_ctx *c = arg;
  CHECK(!in_spawn_task);
  pthread_mutex_lock(&c->mu);
  if (status == 7 && len == 0) {
    c->fails++;
  } else if (status == BAL_ERANGE && len == 0) {
    c->oversize++;
  } else if (status == 0 && len == 16 && result) {
    uint64_t rec[2];
    memcpy(rec, result, sizeof rec);
    size_t j = c->cap ? slot_of(c, rec[0]) : 0;
    if (c->cap && c->ids[j] == rec[0] && rec[1] == (uint64_t)rank && c->kinds[j] == KIND_RECORD)
      c->delivered[j]++;
    else
      c->unexpected++;
  } else {
    c->unexpected++;
  }
  pthread_mutex_unlock(&c->mu);
}

/* Roots of rank r in run `seed`: how many, and the i-th id. */
static int roots_of(uint64_t seed, int r) {
  uint64_t h = mix(seed * 131 + (uint64_t)r);
  return h % 5 == 0 ? 0 : (int)(h >> 8) % 6 + (r == 0 ? 4 : 0);
}
static uint64_t root_id(uint64_t seed, int r, int i) {
  return mix(seed * 1000003u + (uint64_t)r * 4099u + (uint64_t)i) | 1;
}

/* The whole tree, as every rank can recompute it: tasks and id hash. */
static void tree_count(const node *n, int64_t *count, uint64_t *hash) {
  (*count)++;
  *hash += mix(n->id ^ 0xabcdefu);
  for (int i = 0; i < node_children(n); i++) {
    node ch = {child_id(n->id, i), n->seed, n->depth + 1, 0, n->max_depth, 0};
    tree_count(&ch, count, hash);
  }
}

static void spawn_run(uint64_t seed) {
  const char *pols[16];
  int np = policies(pols, 16);
  bal_steal_config cfg;
  CHECK(bal_steal_config_init(&cfg) == BAL_OK);
  cfg.policy = pols[seed % (uint64_t)np];
  cfg.progress = mode;
  cfg.seed = seed;
  cfg.workers = 1 + (int)(mix(seed + 1) % 3);
  cfg.sharing_group_size = 1 + (int)(mix(seed + 2) % 4);
  /* A quarter of the runs: thieves take the victim's whole queue. */
  if (mix(seed + 5) % 4 == 0) cfg.steal_fraction = 1.0;
  cfg.on_result = spawn_result;
  /* Half the POLL runs: a thief waits for its reply inside MPI (it does
   * with one worker and a policy without timers). */
  cfg.idle_wait = mode == BAL_STEAL_PROGRESS_POLL && mix(seed + 6) % 2;
  /* Three runs in four: lifelines after 1-3 empty replies; in a third of
   * those the count differs between ranks (allowed: every rank answers
   * registrations). */
  int ll = (int)(mix(seed + 7) % 4);
  if (ll && mix(seed + 8) % 3 == 0) ll = 1 + (int)((uint64_t)(ll + rank) % 3);
  cfg.lifelines = ll;
  spawn_ctx c;
  memset(&c, 0, sizeof c);
  pthread_mutex_init(&c.mu, NULL);
  CHECK(bal_steal_create(MPI_COMM_WORLD, &cfg, &c.s) == BAL_OK);
  /* up to 200 us of delay before each received message is handled */
  c.s->tp.delay_max_ns = (int64_t)(mix(seed + 3) % 200001);
  c.s->tp.delay_rng = seed ^ (uint64_t)rank;
  int max_depth = 3 + (int)(mix(seed + 4) % 4);
  int nroots = roots_of(seed, rank);
  unsigned char *buf = malloc(sizeof(node) + 65536);
  CHECK(buf);
  for (int i = 0; i < nroots; i++) {
    node n = {root_id(seed, rank, i), seed, 0, -1, max_depth, 0};
    n.pad = (int32_t)node_pad(n.id);
    fill_node(buf, &n);
    CHECK(bal_steal_add_task(c.s, buf, sizeof n + (size_t)n.pad, NULL) == BAL_OK);
  }
  free(buf);
  CHECK(bal_steal_run(c.s, spawn_task, SPAWN_OUT, &c) == BAL_OK);
  CHECK(bal_steal_spawn(c.s, "x", 1) == BAL_EINVAL); /* outside a task */
  /* Own roots: each result home, its id. */
  for (int i = 0; i < nroots; i++) {
    const void *d;
    size_t len;
    int st;
    uint64_t id;
    CHECK(bal_steal_result(c.s, i, &d, &len, &st) == BAL_OK && st == 0 && len == 8);
    memcpy(&id, d, 8);
    CHECK(id == root_id(seed, rank, i));
  }
  /* Spawned children of this rank: each result exactly once, by kind. */
  int64_t want_fail = 0, want_over = 0, want_deliv = 0;
  for (size_t j = 0; j < c.cap; j++) {
    if (!c.ids[j]) continue;
    want_fail += c.kinds[j] == KIND_FAIL;
    want_over += c.kinds[j] == KIND_OVERSIZE;
    want_deliv += c.kinds[j] != KIND_EMPTY;
    CHECK(c.delivered[j] == (c.kinds[j] == KIND_RECORD ? 1 : 0));
  }
  CHECK(c.unexpected == 0 && c.fails == want_fail && c.oversize == want_over);
  bal_steal_stats st;
  CHECK(bal_steal_stats_get(c.s, &st) == BAL_OK);
  CHECK(st.spawned == (int64_t)c.n && st.results_delivered == want_deliv);
  CHECK(st.term_waves >= 1);
  /* Every task of the tree ran exactly once, somewhere. */
  int64_t want_n = 0;
  uint64_t want_h = 0;
  for (int r = 0; r < nranks; r++)
    for (int i = 0; i < roots_of(seed, r); i++) {
      node n = {root_id(seed, r, i), seed, 0, -1, max_depth, 0};
      tree_count(&n, &want_n, &want_h);
    }
  int64_t mine[2] = {c.executed, st.executed_own + st.executed_stolen}, all[2];
  uint64_t h = 0;
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&c.exec_hash, &h, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(all[0] == want_n && all[1] == want_n && h == want_h);
  bal_steal_destroy(c.s);
  free(c.ids);
  free(c.kinds);
  free(c.delivered);
  pthread_mutex_destroy(&c.mu);
}

/* test_steal spawn MODE RUNS FIRST_SEED: RUNS seeded runs. */
static void scenario_spawn(int argc, char **argv) {
  CHECK(argc > 4);
  long runs = atol(argv[3]), first = atol(argv[4]);
  CHECK(runs > 0 && first >= 0);
  for (long i = 0; i < runs; i++) spawn_run((uint64_t)(first + i));
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: test_steal SCENARIO [thread|poll]\n");
    MPI_Finalize();
    return 2;
  }
  if (argc > 2 && !strcmp(argv[2], "poll")) mode = BAL_STEAL_PROGRESS_POLL;
  if (argc > 2 && !strcmp(argv[2], "poll-wait")) {
    mode = BAL_STEAL_PROGRESS_POLL;
    idle_wait = 1;
  }
  if (mode == BAL_STEAL_PROGRESS_THREAD) CHECK(provided >= MPI_THREAD_FUNNELED);
  const char *sc = argv[1];
  if (!strcmp(sc, "invalid"))
    scenario_invalid();
  else if (!strcmp(sc, "exactly"))
    scenario_exactly();
  else if (!strcmp(sc, "back-to-back"))
    scenario_back_to_back();
  else if (!strcmp(sc, "big"))
    scenario_big();
  else if (!strcmp(sc, "few"))
    scenario_few();
  else if (!strcmp(sc, "phases"))
    scenario_phases();
  else if (!strcmp(sc, "delays"))
    scenario_delays();
  else if (!strcmp(sc, "failing"))
    scenario_failing();
  else if (!strcmp(sc, "mpi-errors"))
    scenario_mpi_errors();
  else if (!strcmp(sc, "biased"))
    scenario_biased();
  else if (!strcmp(sc, "spawn"))
    scenario_spawn(argc, argv);
  else
    CHECK(!"unknown scenario");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_steal %s (%s, %d ranks): ok\n", sc,
           idle_wait ? "poll-wait" : mode == BAL_STEAL_PROGRESS_POLL ? "poll" : "thread", nranks);
  MPI_Finalize();
  return 0;
}
