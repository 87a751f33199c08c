/* MPI tests of the rebalance module. Usage: test_rebalance SCENARIO [SEEDS]
 *   random-string, random-direct  many rebalances under random loads
 *   converge                      one rank at half speed: counts become
 *                                 proportional, then nothing moves
 *   dedicated                     equal speeds with noise: nothing moves
 *   errors                        failing pack / unpack / count, NaN and
 *                                 negative inputs: same code on every rank,
 *                                 at the same step, items intact
 *   weighted                      per-item costs: cuts by cost, near optimal
 *   args                          argument checks
 * Items carry a unique id and a payload whose length and bytes derive from
 * the id, checked on every unpack. After every step the ranks check that
 * every id is present exactly once and, with the string balancer, that the global
 * order (rank 0's items, then rank 1's, ...) is still 0, 1, 2, ...
 * Compute times are synthetic (items / speed), so the test never sleeps. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/log.h>
#include <ballast/rebalance.h>

#include "mpi_check.h"

static int rank, nranks;

static double uni(uint64_t *s) { return (double)(mix((*s)++) >> 11) * 0x1.0p-53; }

/* ---- the application's items: a deque of ids ---- */

typedef struct app {
  uint64_t *id; /* items [head, head + n) */
  int64_t head, n, cap;
  /* failure injection: fail the next such call on this rank */
  int fail_pack, fail_unpack, fail_count, lie_count;
  int64_t unpacks, packs;
} app;

static app A;

static size_t payload_len(uint64_t id) { return (size_t)(mix(id) % 24); }
static size_t item_bytes(uint64_t id) { return 8 + 8 + payload_len(id); } /* id, check, payload */

static void reserve(int64_t extra) {
  if (A.head >= extra && A.head + A.n + extra <= A.cap) return;
  int64_t cap = 2 * (A.n + extra) + 16;
  uint64_t *nid = malloc((size_t)cap * sizeof *nid);
  CHECK(nid);
  int64_t h = (cap - A.n) / 2; /* room at both ends */
  if (A.n) memcpy(nid + h, A.id + A.head, (size_t)A.n * sizeof *nid);
  free(A.id);
  A.id = nid;
  A.head = h;
  A.cap = cap;
}

/* Index (in [0, n)) of the first of `count` items `skip` away from `end`. */
static int64_t first_of(bal_rebalance_end end, int64_t skip, int64_t count) {
  return end == BAL_REBALANCE_LOW ? skip : A.n - skip - count;
}

static int cb_count(int64_t *n, void *arg) {
  (void)arg;
  if (A.fail_count) {
    A.fail_count = 0;
    return 1;
  }
  *n = A.lie_count ? -3 : A.n;
  return 0;
}

static int cb_pack_size(bal_rebalance_end end, int64_t skip, int64_t count, size_t *bytes,
                        void *arg) {
  (void)arg;
  int64_t f = first_of(end, skip, count);
  if (f < 0 || f + count > A.n || count < 1) return 2; /* asked for items we lack */
  size_t b = 0;
  for (int64_t j = 0; j < count; j++) b += item_bytes(A.id[A.head + f + j]);
  *bytes = b;
  return 0;
}

static int cb_pack(bal_rebalance_end end, int64_t skip, int64_t count, void *buf, size_t bytes,
                   void *arg) {
  (void)arg;
  A.packs++;
  if (A.fail_pack) {
    A.fail_pack = 0;
    return 3;
  }
  int64_t f = first_of(end, skip, count);
  CHECK(f >= 0 && f + count <= A.n);
  unsigned char *p = buf, *e = p + bytes;
  for (int64_t j = 0; j < count; j++) {
    uint64_t id = A.id[A.head + f + j], ck = mix(id ^ 0xABCDEFull);
    size_t pl = payload_len(id);
    CHECK(p + 16 + pl <= e);
    memcpy(p, &id, 8);
    memcpy(p + 8, &ck, 8);
    for (size_t k = 0; k < pl; k++) p[16 + k] = (unsigned char)(mix(id + k) & 0xff);
    p += 16 + pl;
  }
  CHECK(p == e);
  return 0;
}

static int cb_unpack(bal_rebalance_end end, int64_t count, const void *buf, size_t bytes,
                     void *arg) {
  (void)arg;
  A.unpacks++;
  if (A.fail_unpack) { /* all or nothing: fail before touching anything */
    A.fail_unpack = 0;
    return 4;
  }
  uint64_t *ids = malloc((size_t)count * sizeof *ids);
  CHECK(ids);
  const unsigned char *p = buf, *e = p + bytes;
  for (int64_t j = 0; j < count; j++) {
    uint64_t id, ck;
    CHECK(p + 16 <= e);
    memcpy(&id, p, 8);
    memcpy(&ck, p + 8, 8);
    CHECK(ck == mix(id ^ 0xABCDEFull));
    size_t pl = payload_len(id);
    CHECK(p + 16 + pl <= e);
    for (size_t k = 0; k < pl; k++) CHECK(p[16 + k] == (unsigned char)(mix(id + k) & 0xff));
    ids[j] = id;
    p += 16 + pl;
  }
  CHECK(p == e);
  reserve(count);
  if (end == BAL_REBALANCE_LOW) {
    A.head -= count;
    memcpy(A.id + A.head, ids, (size_t)count * sizeof *ids);
  } else {
    memcpy(A.id + A.head + A.n, ids, (size_t)count * sizeof *ids);
  }
  A.n += count;
  free(ids);
  return 0;
}

static void cb_remove(bal_rebalance_end end, int64_t count, void *arg) {
  (void)arg;
  CHECK(count >= 0 && count <= A.n);
  if (end == BAL_REBALANCE_LOW) A.head += count;
  A.n -= count;
}

static const bal_rebalance_callbacks CB = {.count = cb_count, .pack_size = cb_pack_size,
                                           .pack = cb_pack, .unpack = cb_unpack,
                                           .remove = cb_remove};

/* Item costs for the weighted scenario: ids in a band are ten times
 * heavier, plus some spread. */
static int64_t heavy_lo, heavy_hi;
static double cost_of(uint64_t id) {
  return ((int64_t)id >= heavy_lo && (int64_t)id < heavy_hi ? 10.0 : 1.0) + (double)(mix(id) % 4) * 0.25;
}
static int weight_fail;
static int cb_weights(int64_t count, double *w, void *arg) {
  (void)arg;
  if (weight_fail) {
    weight_fail = 0;
    return 5;
  }
  CHECK(count == A.n);
  for (int64_t j = 0; j < count; j++) w[j] = cost_of(A.id[A.head + j]);
  return 0;
}
static double local_cost(void) {
  double c = 0;
  for (int64_t j = 0; j < A.n; j++) c += cost_of(A.id[A.head + j]);
  return c;
}

/* Initial string: N ids split by random counts (some ranks empty). */
static int64_t init_items(uint64_t seed, int64_t per_rank) {
  int64_t *cnt = malloc((size_t)nranks * sizeof *cnt), total = 0, start = 0;
  CHECK(cnt);
  for (int r = 0; r < nranks; r++) {
    uint64_t s = seed * 1000 + (uint64_t)r;
    cnt[r] = uni(&s) < 0.15 ? 0 : (int64_t)(uni(&s) * 2 * (double)per_rank);
    total += cnt[r];
  }
  if (total == 0) cnt[0] = total = per_rank;
  for (int r = 0; r < rank; r++) start += cnt[r];
  free(A.id);
  memset(&A, 0, sizeof A);
  reserve(cnt[rank]);
  for (int64_t j = 0; j < cnt[rank]; j++) A.id[A.head + j] = (uint64_t)(start + j);
  A.n = cnt[rank];
  free(cnt);
  return total;
}

/* Fresh items, `per` on every rank, in global order. */
static void even_items(int64_t per) {
  free(A.id);
  memset(&A, 0, sizeof A);
  reserve(per);
  for (int64_t j = 0; j < per; j++) A.id[A.head + j] = (uint64_t)(rank * per + j);
  A.n = per;
}

/* Every id in [0, total) exactly once; in order when `ordered`. */
static void check_items(int64_t total, int ordered) {
  int n = (int)A.n, *counts = NULL, *displs = NULL;
  uint64_t *all = NULL;
  int64_t sum = 0, ln = n;
  MPI_Allreduce(&ln, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == total);
  if (rank == 0) {
    counts = malloc((size_t)nranks * sizeof *counts);
    displs = malloc((size_t)nranks * sizeof *displs);
    all = malloc((size_t)(total ? total : 1) * sizeof *all);
    CHECK(counts && displs && all);
  }
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0, d = 0; r < nranks; r++) displs[r] = d, d += counts[r];
  MPI_Gatherv(A.id + A.head, n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    unsigned char *seen = calloc((size_t)(total ? total : 1), 1);
    CHECK(seen);
    for (int64_t j = 0; j < total; j++) {
      CHECK(all[j] < (uint64_t)total);
      CHECK(!seen[all[j]]);
      seen[all[j]] = 1;
      if (ordered) CHECK(all[j] == (uint64_t)j);
    }
    free(seen);
    free(counts);
    free(displs);
    free(all);
  }
}

/* Profitability compares real migration times with the real time per
 * iteration, which varies under oversubscription: scenarios that count on
 * moves happening switch it off (converge and dedicated keep it). */
static bool profit = true;

static bal_rebalance *make(const char *balancer, bool pipelined, int64_t interval,
                           double threshold, bal_rebalance_filter filter) {
  bal_rebalance_config c;
  CHECK(bal_rebalance_config_init(&c) == BAL_OK);
  c.profitability = profit;
  c.balancer = balancer;
  c.pipelined = pipelined;
  c.interval = interval;
  c.threshold = threshold;
  c.filter = filter;
  bal_rebalance *rb = NULL;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_OK);
  return rb;
}

/* Same value on every rank. */
static void check_same_ll(int64_t v) {
  int64_t lo, hi;
  MPI_Allreduce(&v, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi);
}

static void check_stats(bal_rebalance *rb) {
  bal_rebalance_stats st;
  CHECK(bal_rebalance_stats_get(rb, &st) == BAL_OK);
  check_same_ll(st.interactions);
  check_same_ll(st.rebalances);
  check_same_ll(st.items_moved);
  check_same_ll(st.interval);
  int64_t s[2] = {st.items_sent, st.items_received}, t[2];
  MPI_Allreduce(s, t, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(t[0] == t[1] && t[0] == st.items_moved);
}

/* ---- scenarios ---- */

/* Speeds that change at random moments, sometimes drastically. */
static double speed_of(uint64_t seed, int r, int64_t step) {
  uint64_t s = mix(seed) ^ mix((uint64_t)r * 7919 + (uint64_t)(step / 7));
  double u = uni(&s);
  return u < 0.2 ? 0.1 + u : 0.5 + u;
}

static void random_loads(const char *balancer, int seeds) {
  int64_t total_rebalances = 0;
  profit = false;
  for (int seed = 1; seed <= seeds; seed++) {
    int64_t total = init_items((uint64_t)seed, 40 + 10 * (seed % 3));
    int pipelined = seed % 2;
    int64_t interval = 1 + seed % 3;
    bal_rebalance_filter f = (bal_rebalance_filter)(seed % 3);
    double threshold = seed % 4 == 0 ? 0.10 : 0.0;
    bal_rebalance *rb = make(balancer, pipelined, interval, threshold, f);
    for (int64_t step = 0; step < 120; step++) {
      double sp = speed_of((uint64_t)seed, rank, step);
      double t = (double)A.n * 1e-3 / sp + 1e-6;
      int64_t moved = -1;
      CHECK(bal_rebalance_step(rb, t, step % 2 ? BAL_REBALANCE_ALL : (int64_t)A.n, &moved) ==
            BAL_OK);
      CHECK(moved >= 0);
      check_items(total, !strcmp(balancer, "string"));
    }
    check_stats(rb);
    bal_rebalance_stats st;
    bal_rebalance_stats_get(rb, &st);
    total_rebalances += st.rebalances;
    bal_rebalance_destroy(rb);
  }
  if (nranks > 1) CHECK(total_rebalances >= seeds * 10); /* the loads did make work move */
  if (rank == 0) printf("random %s: %d seeds, %" PRId64 " rebalances\n", balancer,
                        seeds, total_rebalances);
}

/* The load balance rank 0 logs at each decision: the first and last. */
static double lb_first = -1, lb_last = -1;
static void capture_lb(bal_log_level level, const char *module, const char *msg, void *user) {
  (void)level;
  (void)user;
  const char *at = strstr(msg, "load balance ");
  double lb;
  if (strcmp(module, "rebalance") == 0 && at && sscanf(at, "load balance %lf", &lb) == 1) {
    if (lb_first < 0) lb_first = lb;
    lb_last = lb;
  }
}

/* One rank at half speed: proportional counts, then quiet. */
static void converge(const char *balancer) {
  int64_t per = 100, total = per * nranks;
  even_items(per);
  lb_first = lb_last = -1;
  CHECK(bal_log_set_callback(capture_lb, BAL_LOG_INFO, NULL) == BAL_OK);
  bal_rebalance *rb = make(balancer, 1, 2, 0.10, BAL_REBALANCE_FILTER_ADAPTIVE);
  int slow = nranks / 2;
  uint64_t noise = 99 + (uint64_t)rank;
  int64_t last_move_step = -1;
  for (int64_t step = 0; step < 80; step++) {
    double speed = (rank == slow ? 0.5 : 1.0) * (1 + 0.04 * (uni(&noise) - 0.5));
    int64_t moved;
    CHECK(bal_rebalance_step(rb, (double)A.n * 1e-3 / speed, BAL_REBALANCE_ALL, &moved) ==
          BAL_OK);
    int64_t any = moved, m;
    MPI_Allreduce(&any, &m, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (m) last_move_step = step;
  }
  check_items(total, !strcmp(balancer, "string"));
  check_stats(rb);
  if (nranks > 1) {
    /* the slow rank holds about half of what the others hold */
    double share = 0.5 / (nranks - 0.5) * (double)total;
    if (rank == slow) CHECK(fabs((double)A.n - share) <= 0.12 * share + 1);
    CHECK(last_move_step >= 0 && last_move_step < 40); /* and then nothing moved */
  }
  bal_rebalance_stats st;
  bal_rebalance_stats_get(rb, &st);
  if (rank == 0)
    printf("converge %s: %" PRId64 " rebalances, last at step %" PRId64
           ", imbalance %.3f, load balance logged %.3f then %.3f\n",
           balancer, st.rebalances, last_move_step, st.imbalance, lb_first, lb_last);
  /* Rank 0 logs avg/max of load/rate at each decision: at the first, even
   * counts and one rank at half speed, (P + 1) / (2P) (+-4% noise); at the
   * last, balanced. */
  if (rank == 0 && nranks > 1) {
    double want = (nranks + 1.0) / (2.0 * nranks);
    CHECK(fabs(lb_first - want) <= 0.06 * want);
    CHECK(lb_last > 0.9 && lb_last <= 1.0);
  }
  bal_log_set_callback(NULL, BAL_LOG_ERROR, NULL);
  bal_rebalance_destroy(rb);
}

/* Equal speeds with +-4% noise: the threshold keeps everything in place. */
static void dedicated(void) {
  int64_t per = 100, total = per * nranks;
  even_items(per);
  for (int pipelined = 0; pipelined <= 1; pipelined++) {
    bal_rebalance *rb = make("string", pipelined, 1, 0.10,
                             BAL_REBALANCE_FILTER_ADAPTIVE);
    uint64_t noise = 7 + (uint64_t)rank;
    for (int64_t step = 0; step < 100; step++) {
      int64_t moved;
      double t = (double)A.n * 1e-3 * (1 + 0.08 * (uni(&noise) - 0.5));
      CHECK(bal_rebalance_step(rb, t, BAL_REBALANCE_ALL, &moved) == BAL_OK);
      CHECK(moved == 0);
    }
    bal_rebalance_stats st;
    bal_rebalance_stats_get(rb, &st);
    CHECK(st.rebalances == 0 && st.interactions >= 98);
    bal_rebalance_destroy(rb);
  }
  check_items(total, 1);
}

/* Run steps with drastically alternating speeds (so every interaction
 * moves items) until a step fails; the failing step and code must be the
 * same on every rank. inject() is called once, before step `at`. */
typedef void (*inject_fn)(bal_rebalance *rb, int64_t step, double *t, int64_t *items);

static void one_error(const char *name, const char *balancer, int pipelined, int culprit,
                      int expect_code, inject_fn inject) {
  /* fresh items: a direct scenario leaves them out of string order */
  int64_t total_items = init_items(5, 30), *total = &total_items;
  bal_rebalance *rb = make(balancer, pipelined, 1, 0.0, BAL_REBALANCE_FILTER_NONE);
  int64_t fail_step = -1;
  int code = BAL_OK;
  int64_t before_moves = 0;
  for (int64_t step = 0; step < 40 && fail_step < 0; step++) {
    /* speeds swap between two patterns every step: always imbalanced */
    double sp = ((rank + step) % 2) ? 1.0 : 0.25;
    double t = (double)A.n * 1e-3 / sp + 1e-6;
    int64_t items = (int64_t)A.n;
    if (step == 10 && rank == culprit) inject(rb, step, &t, &items);
    int64_t moved = 0;
    int rc = bal_rebalance_step(rb, t, items, &moved);
    if (rc != BAL_OK) {
      fail_step = step;
      code = rc;
      CHECK(moved == 0);
    }
    if (step < 10) before_moves += moved;
    check_items(*total, !strcmp(balancer, "string"));
  }
  check_same_ll(fail_step);
  check_same_ll(code);
  CHECK(fail_step >= 10);
  CHECK(code == expect_code);
  bal_rebalance_stats st;
  bal_rebalance_stats_get(rb, &st);
  check_same_ll(st.error_rank);
  CHECK(st.error_rank == culprit);
  /* the balancer keeps working after a collective error */
  A.fail_pack = A.fail_unpack = A.fail_count = A.lie_count = 0;
  int64_t after = 0;
  for (int64_t step = 0; step < 6; step++) {
    double sp = ((rank + step) % 2) ? 1.0 : 0.25;
    int64_t moved;
    int rc = bal_rebalance_step(rb, (double)A.n * 1e-3 / sp + 1e-6, (int64_t)A.n, &moved);
    if (rc != BAL_OK)
      fprintf(stderr, "rank %d: %s: step %" PRId64 " after the error: %d\n", rank, name, step, rc);
    CHECK(rc == BAL_OK);
    after += moved;
    check_items(*total, !strcmp(balancer, "string"));
  }
  int64_t sum;
  MPI_Allreduce(&after, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (nranks > 1) CHECK(sum > 0);
  check_stats(rb);
  bal_rebalance_destroy(rb);
  if (rank == 0)
    printf("error %-14s %s %s: code %d (%s) at step %" PRId64 " on every rank, culprit %d\n", name,
           balancer, pipelined ? "pipelined" : "blocking", code,
           bal_strerror(code), fail_step, culprit);
}

static void inj_pack(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)t, (void)i;
  A.fail_pack = 1;
}
static void inj_unpack(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)t, (void)i;
  A.fail_unpack = 1;
}
static void inj_nan(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)i;
  *t = NAN;
}
static void inj_negative_time(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)i;
  *t = -2.5;
}
static void inj_negative_items(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)t;
  *i = -5;
}
static void inj_count_fails(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)t, (void)i;
  A.fail_count = 1;
}
static void inj_lie(bal_rebalance *rb, int64_t s, double *t, int64_t *i) {
  (void)rb, (void)s, (void)t, (void)i;
  A.lie_count = 1; /* reports a negative count until reset */
}

static void errors(void) {
  if (nranks < 2) return;
  profit = false;
  int last = nranks - 1, mid = nranks / 2;
  for (int pipelined = 0; pipelined <= 1; pipelined++)
    for (int m = 0; m < 2; m++) {
      const char *balancer = bal_rebalance_balancer_name(m); /* string, direct */
      /* under the alternating speeds every rank soon sends and receives, so
       * an armed pack or unpack failure fires within a few steps */
      one_error("pack", balancer, pipelined, mid, BAL_ECALLBACK, inj_pack);
      one_error("unpack", balancer, pipelined, last, BAL_ECALLBACK, inj_unpack);
      one_error("nan-time", balancer, pipelined, 0, BAL_EINVAL, inj_nan);
      one_error("negative-time", balancer, pipelined, last, BAL_EINVAL, inj_negative_time);
      one_error("negative-items", balancer, pipelined, mid, BAL_EINVAL, inj_negative_items);
      one_error("count-fails", balancer, pipelined, 0, BAL_ECALLBACK, inj_count_fails);
    }
  for (int m = 0; m < 2; m++)
    one_error("count-negative", bal_rebalance_balancer_name(m), m, last, BAL_EINVAL, inj_lie);
}

/* Pipelined: the application changes its count between the exchange and
 * the decision (an item appears at the last rank's HIGH end, id = total). */
static void count_changes(void) {
  if (nranks < 2) return;
  int64_t total = init_items(8, 30);
  bal_rebalance *rb = make("string", 1, 1, 0.0, BAL_REBALANCE_FILTER_NONE);
  int code = BAL_OK;
  int64_t fail_step = -1;
  for (int64_t step = 0; step < 30 && fail_step < 0; step++) {
    double sp = ((rank + step) % 2) ? 1.0 : 0.25;
    int64_t moved;
    int rc = bal_rebalance_step(rb, (double)A.n * 1e-3 / sp + 1e-6, (int64_t)A.n, &moved);
    if (rc != BAL_OK) fail_step = step, code = rc;
    if (step == 10) { /* after posting at step 10, before resolving at 11 */
      if (rank == nranks - 1) {
        reserve(1);
        A.id[A.head + A.n] = (uint64_t)total;
        A.n++;
      }
      total++;
    }
    check_items(total, 1);
  }
  check_same_ll(fail_step);
  CHECK(fail_step == 11 && code == BAL_EINVAL);
  bal_rebalance_destroy(rb);
  if (rank == 0) printf("count changed under a pipelined exchange: BAL_EINVAL at step 11\n");
}

/* Items with per-item costs (a heavy band on the first ranks), equal
 * speeds but one rank at half speed: with the weights callback the string
 * is cut by costs, so the slowest part ends within the threshold of the
 * chains-on-chains optimum, in few moves; ids and order stay intact. */
static void weighted(int pipelined) {
  int64_t per = 60, total = per * nranks;
  even_items(per);
  heavy_lo = total / 10;
  heavy_hi = total / 3;
  bal_rebalance_callbacks cb = CB;
  cb.weights = cb_weights;
  bal_rebalance_config c;
  bal_rebalance_config_init(&c);
  c.interval = 2;
  c.pipelined = pipelined;
  c.profitability = false;
  bal_rebalance *rb;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &cb, &rb) == BAL_OK);
  int slow = nranks - 1;
  double speed = rank == slow ? 0.5 : 1.0;
  int errors_seen = 0;
  for (int64_t step = 0; step < 60; step++) {
    int64_t moved;
    if (step == 30) weight_fail = rank == 0; /* a failing weights callback */
    int rc = bal_rebalance_step(rb, local_cost() * 1e-4 / speed, BAL_REBALANCE_ALL, &moved);
    if (rc != BAL_OK) {
      CHECK(rc == BAL_ECALLBACK);
      bal_rebalance_stats st;
      bal_rebalance_stats_get(rb, &st);
      CHECK(st.error_rank == 0);
      errors_seen++;
    }
    check_same_ll(rc);
    check_items(total, 1);
  }
  weight_fail = 0;
  CHECK(errors_seen == 1);
  check_stats(rb);
  /* the optimum for these costs and speeds */
  double mine = local_cost() / speed, worst;
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double *w = malloc((size_t)total * sizeof *w), *s = malloc((size_t)nranks * sizeof *s), opt;
  int64_t *cuts = malloc((size_t)(nranks + 1) * sizeof *cuts);
  CHECK(w && s && cuts);
  for (int64_t j = 0; j < total; j++) w[j] = cost_of((uint64_t)j);
  for (int k = 0; k < nranks; k++) s[k] = k == slow ? 0.5 : 1.0;
  CHECK(bal_rebalance_cuts(total, w, nranks, s, NULL, cuts, &opt) == BAL_OK);
  bal_rebalance_stats st;
  bal_rebalance_stats_get(rb, &st);
  if (rank == 0)
    printf("weighted %s: bottleneck %.2f, optimum %.2f, %" PRId64 " rebalances\n",
           pipelined ? "pipelined" : "blocking", worst, opt, st.rebalances);
  CHECK(worst <= opt / (1 - c.threshold) + 1e-9);
  CHECK(st.rebalances <= 4 && (st.rebalances >= 1 || nranks == 1));
  free(w);
  free(s);
  free(cuts);
  bal_rebalance_destroy(rb);
}

static void args(void) {
  bal_rebalance_config c;
  bal_rebalance *rb = NULL;
  bal_rebalance_config_init(&c);
  CHECK(bal_rebalance_step(NULL, 1, 1, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_mark(NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_stats_get(NULL, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, NULL, &rb) == BAL_EINVAL);
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_create(MPI_COMM_NULL, &c, &CB, &rb) == BAL_EINVAL);
  bal_rebalance_callbacks cb = CB;
  cb.pack = NULL;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &cb, &rb) == BAL_EINVAL);
  cb = CB;
  cb.pack_size = NULL; /* then item_bytes is required */
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &cb, &rb) == BAL_EINVAL);
  c.threshold = 1.0;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_EINVAL);
  bal_rebalance_config_init(&c);
  c.filter_h = NAN;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_EINVAL);
  bal_rebalance_config_init(&c);
  c.balancer = "diagonal"; /* not in the registry */
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_EINVAL);
  c.balancer = NULL;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_EINVAL);
  CHECK(rb == NULL);
  /* the name is resolved at creation: the caller's string may go away */
  char name[16];
  snprintf(name, sizeof name, "%s", "direct");
  c.balancer = name;
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_OK);
  memset(name, 0, sizeof name);
  CHECK(bal_rebalance_step(rb, 1e-3, BAL_REBALANCE_ALL, NULL) == BAL_OK);
  bal_rebalance_destroy(rb);
  rb = NULL;
  bal_rebalance_destroy(NULL);
  /* the balancer "none" needs only count, measures, never moves */
  bal_rebalance_callbacks only = {0};
  only.count = cb_count;
  bal_rebalance_config_init(&c);
  c.balancer = "none";
  c.interval = 1;
  init_items(3, 20);
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &only, &rb) == BAL_OK);
  for (int step = 0; step < 10; step++) {
    int64_t moved;
    CHECK(bal_rebalance_mark(rb) == BAL_OK);
    CHECK(bal_rebalance_step(rb, BAL_REBALANCE_MEASURE, BAL_REBALANCE_ALL, &moved) == BAL_OK);
    CHECK(moved == 0);
  }
  bal_rebalance_stats st;
  CHECK(bal_rebalance_stats_get(rb, &st) == BAL_OK);
  CHECK(st.steps == 10 && st.rebalances == 0 && st.interactions == 9); /* pipelined: the last is pending */
  bal_rebalance_destroy(rb);
  /* automatic interval: first interaction after a few steps, then adapts */
  bal_rebalance_config_init(&c);
  CHECK(bal_rebalance_create(MPI_COMM_WORLD, &c, &CB, &rb) == BAL_OK);
  for (int step = 0; step < 20; step++)
    CHECK(bal_rebalance_step(rb, 1e-4, BAL_REBALANCE_ALL, NULL) == BAL_OK);
  CHECK(bal_rebalance_stats_get(rb, &st) == BAL_OK);
  CHECK(st.interactions >= 1 && st.interval >= 1 && st.period_s >= 0.1 - 1e-12);
  check_same_ll(st.interval);
  bal_rebalance_destroy(rb);
  /* grain measurement helper */
  double tf = -1, ti = -1;
  CHECK(bal_rebalance_measure_shift(MPI_COMM_WORLD, 8, 1000, 3, &tf, &ti) == BAL_OK);
  CHECK(tf >= 0 && ti >= 0);
  double all[2] = {tf, ti}, mx[2];
  MPI_Allreduce(all, mx, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(mx[0] == tf && mx[1] == ti);
  CHECK(bal_rebalance_measure_shift(MPI_COMM_WORLD, 0, 1000, 3, &tf, &ti) == BAL_EINVAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const char *sc = argc > 1 ? argv[1] : "random-string";
  int seeds = argc > 2 ? atoi(argv[2]) : 6;
  const char *scale = getenv("BALLAST_STRESS_SCALE");
  if (scale && atoi(scale) > 1) seeds *= atoi(scale);
  if (!strcmp(sc, "random-string"))
    random_loads("string", seeds);
  else if (!strcmp(sc, "random-direct"))
    random_loads("direct", seeds);
  else if (!strcmp(sc, "converge")) {
    converge("string");
    converge("direct");
  } else if (!strcmp(sc, "dedicated"))
    dedicated();
  else if (!strcmp(sc, "errors")) {
    errors();
    count_changes();
  } else if (!strcmp(sc, "args"))
    args();
  else if (!strcmp(sc, "weighted")) {
    weighted(0);
    weighted(1);
  } else {
    if (rank == 0) fprintf(stderr, "unknown scenario %s\n", sc);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  free(A.id);
  MPI_Finalize();
  return 0;
}
