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
  for (int p = 0; p < np; p++)
    for (int d = 0; d < 4; d++) {
      bal_steal *s = make(pols[p], (uint64_t)(p * 10 + d));
      spec sp = {share(dists[d], total), 0, 200, 48, 0, 0, 0, 5};
      run_case(s, &sp, (uint64_t)(100 * p + d));
      bal_steal_stats st;
      CHECK(bal_steal_stats_get(s, &st) == BAL_OK);
      if (!strcmp(pols[p], "none")) CHECK(st.steal_attempts == 0 && st.executed_stolen == 0);
      if (strcmp(pols[p], "random") != 0) CHECK(st.peers_contacted <= st.overlay_degree);
      if (!strcmp(pols[p], "sharing")) CHECK(st.steal_attempts == 0);
      bal_steal_destroy(s);
    }
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
    int v = s->victim->pick(s);
    for (int j = 0; j < deg; j++) hits[j] += nb[j] == v;
  }
  for (int j = 0; j < deg; j++) CHECK(hits[j] > 0);
  /* Neighbour 0 answers in 10 us, the others in 10 ms: with bias 1 it is
   * 1000 times likelier than each of them. Unmeasured neighbours count as
   * the lowest latency, so measure them all. */
  s->victim->replied(s, (int)nb[0], 0, 10000);
  for (int j = 1; j < deg; j++) s->victim->replied(s, (int)nb[j], 0, 10000000);
  int n0 = 0, n = 4000;
  for (int i = 0; i < n; i++) n0 += s->victim->pick(s) == nb[0];
  CHECK(n0 > n * 9 / 10);
  /* Bias 0 is uniform whatever the latencies. */
  s->cfg.latency_bias = 0;
  n0 = 0;
  for (int i = 0; i < n; i++) n0 += s->victim->pick(s) == nb[0];
  CHECK(n0 > n / (2 * deg) && n0 < 2 * n / deg);
  free(hits);
  /* And the policy runs: every result home exactly once. */
  spec sp = {share("gaussian", 30LL * nranks), 16, 64, 24, 0, 0, 2000, 0};
  s->cfg.latency_bias = 1;
  run_case(s, &sp, 90);
  bal_steal_destroy(s);
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
  if (mode == BAL_STEAL_PROGRESS_THREAD) CHECK(provided >= MPI_THREAD_FUNNELED);
  const char *sc = argv[1];
  if (!strcmp(sc, "invalid"))
    scenario_invalid();
  else if (!strcmp(sc, "exactly"))
    scenario_exactly();
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
  else
    CHECK(!"unknown scenario");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("test_steal %s (%s, %d ranks): ok\n", sc, mode == BAL_STEAL_PROGRESS_POLL ? "poll" : "thread", nranks);
  MPI_Finalize();
  return 0;
}
