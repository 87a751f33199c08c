/* MPI tests of the geometric balancer (ballast/rebalance_geo.h). Usage:
 *   test_rebalance_geo SCENARIO [SEEDS]
 *   random   every partition method, given and measured weights, blocking
 *            and pipelined, a hotspot that moves every step, random initial
 *            counts (some ranks empty): after every step every id is held
 *            exactly once, each item carries its own coordinates and
 *            payload, every rank's result is the same, neighbour lists are
 *            symmetric, exports of a sender are the imports of its
 *            receiver and match what moved, boxes hold their items and
 *            respect the minimum extent, the move limit holds
 *   errors   NaN and negative weights, a coordinate outside the domain, a
 *            failing coords / pack / unpack callback, a count changed
 *            between the exchange and the move, configurations that differ
 *            between ranks: the same code on every rank at the same call,
 *            items unchanged
 *   args     local argument checks
 * Compute times are synthetic (the items' costs), so the test never
 * sleeps. Items: an id whose coordinates and payload derive from it. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include <ballast/rebalance_geo.h>

#include "mpi_check.h"

static int rank, nranks;

static double uni(uint64_t *s) { return (double)(mix((*s)++) >> 11) * 0x1.0p-53; }

/* ---- the items ---- */

typedef struct app {
  uint64_t *id;
  int64_t n, cap;
  int dim;
  int64_t step;          /* the hotspot's position follows it */
  bool given;            /* weights callback installed */
  /* failure injection: fail the next such call on this rank */
  int fail_coords, fail_pack, fail_unpack, bad_coord, bad_weight;
  int64_t packs;
} app;

static app A;
/* the smallest box extent over the minimum extent seen on this rank */
static double tightest = INFINITY;
static const double LO[3] = {-1.0, 0.0, 2.0}, HI[3] = {3.0, 1.0, 2.5};

static double coord_of(uint64_t id, int d) {
  /* clustered: a third of the items in a small blob, the rest uniform;
   * a few exactly on the domain's faces */
  double u = (double)(mix(id * 7 + (uint64_t)d) >> 11) * 0x1.0p-53;
  if (mix(id) % 3 == 0) u = 0.6 + 0.1 * u;
  if (mix(id + 99) % 50 == 0) u = (mix(id + 98) & 1) ? 1.0 : 0.0;
  return LO[d] + u * (HI[d] - LO[d]);
}

/* Cost: 1 plus a heavy disc that moves along x with the step. */
static double cost_of(uint64_t id) {
  double cx = fmod(0.1 + 0.07 * (double)A.step, 1.0);
  double x = (coord_of(id, 0) - LO[0]) / (HI[0] - LO[0]);
  double y = (coord_of(id, 1) - LO[1]) / (HI[1] - LO[1]);
  double r2 = (x - cx) * (x - cx) + (y - 0.5) * (y - 0.5);
  return r2 < 0.04 ? 20.0 : 1.0;
}

static size_t payload_len(uint64_t id) { return (size_t)(mix(id) % 20); }
static size_t item_size(uint64_t id) { return 16 + payload_len(id); }

static void reserve(int64_t n) {
  if (n <= A.cap) return;
  int64_t cap = 2 * n + 16;
  uint64_t *p = realloc(A.id, (size_t)cap * sizeof *p);
  CHECK(p);
  A.id = p;
  A.cap = cap;
}

static int cb_count(int64_t *n, void *arg) {
  (void)arg;
  *n = A.n;
  return 0;
}

static int cb_coords(int64_t n, double *xyz, void *arg) {
  (void)arg;
  CHECK(n == A.n);
  if (A.fail_coords) {
    A.fail_coords = 0;
    return 1;
  }
  for (int64_t i = 0; i < n; i++)
    for (int d = 0; d < A.dim; d++) xyz[i * A.dim + d] = coord_of(A.id[i], d);
  if (A.bad_coord && n > 0) xyz[(n - 1) * A.dim] = HI[0] + 0.5;
  return 0;
}

static int cb_weights(int64_t n, double *w, void *arg) {
  (void)arg;
  CHECK(n == A.n);
  for (int64_t i = 0; i < n; i++) w[i] = cost_of(A.id[i]);
  if (A.bad_weight && n > 0) w[0] = A.bad_weight == 1 ? NAN : -1.0;
  return 0;
}

static int cb_pack_size(int64_t count, const int64_t *items, size_t *bytes, void *arg) {
  (void)arg;
  size_t b = 0;
  for (int64_t j = 0; j < count; j++) {
    CHECK(items[j] >= 0 && items[j] < A.n && (j == 0 || items[j] > items[j - 1]));
    b += item_size(A.id[items[j]]);
  }
  *bytes = b;
  return 0;
}

static int cb_pack(int64_t count, const int64_t *items, void *buf, size_t bytes, void *arg) {
  (void)arg;
  if (A.fail_pack) {
    A.fail_pack = 0;
    return 2;
  }
  unsigned char *p = buf, *e = p + bytes;
  for (int64_t j = 0; j < count; j++) {
    uint64_t id = A.id[items[j]], ck = mix(id ^ 0x5EEDull);
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

static int cb_unpack(int64_t count, const void *buf, size_t bytes, void *arg) {
  (void)arg;
  if (A.fail_unpack) {
    A.fail_unpack = 0;
    return 3;
  }
  reserve(A.n + count);
  const unsigned char *p = buf, *e = p + bytes;
  for (int64_t j = 0; j < count; j++) {
    uint64_t id, ck;
    CHECK(p + 16 <= e);
    memcpy(&id, p, 8);
    memcpy(&ck, p + 8, 8);
    CHECK(ck == mix(id ^ 0x5EEDull));
    size_t pl = payload_len(id);
    CHECK(p + 16 + pl <= e);
    for (size_t k = 0; k < pl; k++) CHECK(p[16 + k] == (unsigned char)(mix(id + k) & 0xff));
    A.id[A.n + j] = id;
    p += 16 + pl;
  }
  CHECK(p == e);
  A.n += count;
  return 0;
}

static void cb_remove(int64_t count, const int64_t *items, void *arg) {
  (void)arg;
  int64_t w = 0, k = 0;
  for (int64_t i = 0; i < A.n; i++) {
    if (k < count && items[k] == i) {
      k++;
      continue;
    }
    A.id[w++] = A.id[i];
  }
  CHECK(k == count);
  A.n = w;
}

static bal_rebalance_geo_callbacks callbacks(bool given) {
  bal_rebalance_geo_callbacks cb = {.count = cb_count, .coords = cb_coords,
                                    .pack_size = cb_pack_size, .pack = cb_pack,
                                    .unpack = cb_unpack, .remove = cb_remove};
  if (given) cb.weights = cb_weights;
  return cb;
}

/* N ids dealt in order by random counts (some ranks empty, at least one id
 * per rank in all). */
static int64_t init_items(uint64_t seed, int64_t per_rank) {
  int64_t *cnt = malloc((size_t)nranks * sizeof *cnt), total = 0, start = 0;
  CHECK(cnt);
  for (int r = 0; r < nranks; r++) {
    uint64_t s = seed * 1000 + (uint64_t)r;
    cnt[r] = uni(&s) < 0.2 ? 0 : (int64_t)(uni(&s) * 2 * (double)per_rank);
    total += cnt[r];
  }
  if (total < nranks) {
    cnt[0] += nranks;
    total += nranks;
  }
  for (int r = 0; r < rank; r++) start += cnt[r];
  A.n = 0;
  reserve(cnt[rank]);
  for (int64_t j = 0; j < cnt[rank]; j++) A.id[j] = (uint64_t)(start + j);
  A.n = cnt[rank];
  free(cnt);
  return total;
}

/* Every id in [0, total) held exactly once, over all ranks. */
static void check_owned_once(int64_t total) {
  int64_t n = A.n, sum = 0;
  MPI_Allreduce(&n, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == total);
  unsigned char *seen = calloc((size_t)total, 1), *all = malloc((size_t)total);
  CHECK(seen && all);
  for (int64_t i = 0; i < A.n; i++) {
    CHECK(A.id[i] < (uint64_t)total);
    CHECK(!seen[A.id[i]]);
    seen[A.id[i]] = 1;
  }
  MPI_Allreduce(seen, all, (int)total, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
  for (int64_t i = 0; i < total; i++) CHECK(all[i] == 1);
  free(seen);
  free(all);
}

/* Every rank's copy of the result says the same, neighbour lists are
 * symmetric, exports and imports pair up, this rank's exchange matches
 * its lists, boxes hold their items and keep the minimum extent. */
static void check_result(const bal_rebalance_geo *g, const bal_rebalance_geo_config *cfg,
                         int64_t moved_here) {
  const bal_partition_result *r = bal_rebalance_geo_result(g);
  CHECK(r && bal_partition_result_parts(r) == nranks);
  /* regions: the same on every rank */
  for (int k = 0; k < nranks; k++) {
    bal_partition_region reg;
    CHECK(bal_partition_region_get(r, k, &reg) == BAL_OK);
    double v[8] = {reg.lo[0], reg.lo[1], reg.lo[2], reg.hi[0], reg.hi[1], reg.hi[2],
                   (double)reg.key_lo, (double)reg.key_hi},
           lo[8], hi[8];
    MPI_Allreduce(v, lo, 8, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, 8, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < 8; i++) CHECK(lo[i] == hi[i]);
  }
  /* neighbours: each rank contributes its own list; symmetric across ranks */
  const int *nb, *mine_nb;
  int nn = bal_partition_neighbors(r, rank, &nb);
  CHECK(nn >= 0);
  CHECK(bal_rebalance_geo_neighbors(g, &mine_nb) == nn && mine_nb == nb);
  int *adj = calloc((size_t)nranks * (size_t)nranks, sizeof *adj);
  int *row = calloc((size_t)nranks, sizeof *row);
  CHECK(adj && row);
  for (int j = 0; j < nn; j++) {
    CHECK(nb[j] >= 0 && nb[j] < nranks && nb[j] != rank);
    row[nb[j]] = 1;
  }
  MPI_Allgather(row, nranks, MPI_INT, adj, nranks, MPI_INT, MPI_COMM_WORLD);
  for (int a = 0; a < nranks; a++)
    for (int b = 0; b < nranks; b++) CHECK(adj[a * nranks + b] == adj[b * nranks + a]);
  /* exports of rank a to b (a's view) equal imports of b from a (b's view) */
  int64_t *ex = calloc((size_t)nranks, sizeof *ex), *im = calloc((size_t)nranks, sizeof *im);
  int64_t *exall = malloc((size_t)nranks * (size_t)nranks * sizeof *exall);
  int64_t *imall = malloc((size_t)nranks * (size_t)nranks * sizeof *imall);
  CHECK(ex && im && exall && imall);
  const bal_partition_transfer *xl;
  const bal_partition_transfer *const *il;
  int nx = bal_partition_exports(r, rank, &xl), ni = bal_partition_imports(r, rank, &il);
  int64_t mine = 0;
  for (int j = 0; j < nx; j++) {
    CHECK(xl[j].from == rank);
    ex[xl[j].to] += xl[j].count;
    mine += xl[j].count;
  }
  for (int j = 0; j < ni; j++) {
    CHECK(il[j]->to == rank);
    im[il[j]->from] += il[j]->count;
    mine += il[j]->count;
  }
  if (moved_here >= 0) CHECK(mine == moved_here);
  MPI_Allgather(ex, nranks, MPI_INT64_T, exall, nranks, MPI_INT64_T, MPI_COMM_WORLD);
  MPI_Allgather(im, nranks, MPI_INT64_T, imall, nranks, MPI_INT64_T, MPI_COMM_WORLD);
  for (int a = 0; a < nranks; a++)
    for (int b = 0; b < nranks; b++) CHECK(exall[a * nranks + b] == imall[b * nranks + a]);
  /* boxes hold their items and are at least the minimum extent */
  bal_partition_region reg, own;
  CHECK(bal_partition_region_get(r, rank, &reg) == BAL_OK);
  CHECK(bal_rebalance_geo_region(g, &own) == BAL_OK && own.kind == reg.kind &&
        own.key_lo == reg.key_lo && own.key_hi == reg.key_hi);
  for (int d = 0; d < 3; d++) CHECK(own.lo[d] == reg.lo[d] && own.hi[d] == reg.hi[d]);
  if (reg.kind == BAL_PARTITION_REGION_BOX) {
    for (int d = 0; d < A.dim; d++) {
      CHECK(reg.hi[d] - reg.lo[d] >= cfg->partition.min_extent[d] * (1 - 1e-12));
      if (cfg->partition.min_extent[d] > 0)
        tightest = fmin(tightest, (reg.hi[d] - reg.lo[d]) / cfg->partition.min_extent[d]);
      for (int64_t i = 0; i < A.n; i++) {
        double x = coord_of(A.id[i], d);
        CHECK(x >= reg.lo[d] && x <= reg.hi[d]);
      }
    }
  }
  free(adj);
  free(row);
  free(ex);
  free(im);
  free(exall);
  free(imall);
}

/* ---- scenarios ---- */

static void run_random(uint64_t seed, const char *method, int dim, bool given, bool pipelined,
                       double min_extent, double max_move) {
  A.dim = dim;
  A.step = 0;
  A.given = given;
  int64_t total = init_items(seed, 40 + (int64_t)(seed % 5) * 30);
  bal_rebalance_geo_config cfg;
  CHECK(bal_rebalance_geo_config_init(&cfg) == BAL_OK);
  cfg.dim = dim;
  memcpy(cfg.lo, LO, sizeof LO);
  memcpy(cfg.hi, HI, sizeof HI);
  cfg.partition.method = method;
  cfg.partition.max_move_fraction = max_move;
  for (int d = 0; d < dim; d++) cfg.partition.min_extent[d] = min_extent * (HI[d] - LO[d]);
  cfg.measure.interval = 1 + (int64_t)(seed % 2);
  cfg.measure.threshold = 0.02;
  cfg.measure.profitability = false;
  cfg.measure.pipelined = pipelined;
  cfg.measure.filter = BAL_REBALANCE_FILTER_NONE;
  bal_rebalance_geo_callbacks cb = callbacks(given);
  bal_rebalance_geo *g = NULL;
  int rc = bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &cb, &g);
  CHECK(rc == BAL_OK && g);
  CHECK(bal_rebalance_geo_result(g) == NULL);
  bal_partition_region none_yet;
  CHECK(bal_rebalance_geo_region(g, &none_yet) == BAL_ENOTFOUND);
  CHECK(bal_rebalance_geo_neighbors(g, NULL) == BAL_ENOTFOUND);
  /* the initial decomposition, forced (without the move limit, which the
   * random start, no decomposition of the method, cannot meet: the
   * limited balancer then starts from the unlimited one's parts) */
  int64_t mv = -1;
  if (max_move < 1.0) {
    bal_rebalance_geo_config free_cfg = cfg;
    free_cfg.partition.max_move_fraction = 1.0;
    bal_rebalance_geo *g0 = NULL;
    CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &free_cfg, &cb, &g0) == BAL_OK);
    CHECK(bal_rebalance_geo_partition(g0, NULL) == BAL_OK);
    bal_rebalance_geo_destroy(g0);
    check_owned_once(total);
  } else {
    CHECK(bal_rebalance_geo_partition(g, &mv) == BAL_OK);
    check_owned_once(total);
    check_result(g, &cfg, mv);
  }
  int64_t moves = 0;
  for (int it = 0; it < 12; it++) {
    A.step = it;
    double c = 0.0;
    for (int64_t i = 0; i < A.n; i++) c += cost_of(A.id[i]) * 1e-4;
    /* a slower rank now and then: the measured rates differ */
    if ((mix(seed + (uint64_t)it * 31 + (uint64_t)rank) & 7) == 0) c *= 1.5;
    bal_rebalance_stats before;
    CHECK(bal_rebalance_geo_stats_get(g, &before) == BAL_OK);
    mv = -1;
    rc = bal_rebalance_geo_step(g, c, &mv);
    CHECK(rc == BAL_OK && mv >= 0);
    check_owned_once(total);
    bal_rebalance_stats st;
    CHECK(bal_rebalance_geo_stats_get(g, &st) == BAL_OK);
    if (st.rebalances > before.rebalances) {
      moves++;
      check_result(g, &cfg, mv);
      CHECK(st.items_moved - before.items_moved <= (int64_t)floor(max_move * (double)total));
    } else {
      CHECK(mv == 0);
    }
  }
  /* the hotspot moves every step: something must have moved (all ranks
   * agree on it, being a global count) */
  bal_rebalance_stats st;
  CHECK(bal_rebalance_geo_stats_get(g, &st) == BAL_OK);
  if (nranks > 1 && max_move >= 1.0 && min_extent == 0.0) CHECK(st.rebalances > 0);
  int64_t mx = moves, mn = moves;
  MPI_Allreduce(&moves, &mx, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&moves, &mn, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
  CHECK(mx == mn);
  bal_rebalance_geo_destroy(g);
}

#define MIN_EXTENT 0.3
static void scenario_random(int seeds) {
  for (int s = 0; s < seeds; s++) {
    for (int m = 0; bal_partition_method_name(m); m++) {
      const char *method = bal_partition_method_name(m);
      uint64_t seed = (uint64_t)s * 977 + (uint64_t)m * 13 + 1;
      int dim = 2 + (int)((seed >> 1) % 2);
      run_random(seed, method, dim, s % 2 == 0, s % 3 != 1, 0.0, 1.0);
    }
    /* regions reduced to the minimum extent: the box methods with a hotspot
     * that wants them smaller (the extent a tenth of the domain / P) */
    static const char *const boxes[] = {"rcb", "tensor", "staggered"};
    for (int b = 0; b < 3; b++)
      run_random((uint64_t)s * 31 + (uint64_t)b + 7, boxes[b], 2, true, false,
                 nranks > 1 ? MIN_EXTENT / nranks : 0.0, 1.0);
    /* the move limit */
    run_random((uint64_t)s * 17 + 3, "hilbert", 2, true, true, 0.0, 0.1);
  }
}

/* Whatever went wrong, every rank gets `want` from the same call and its
 * items are unchanged. */
static void expect_everywhere(int rc, int want, const uint64_t *ids0, int64_t n0) {
  int lo = rc, hi = rc;
  MPI_Allreduce(&rc, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&rc, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi && rc == want);
  CHECK(A.n == n0 && (n0 == 0 || memcmp(A.id, ids0, (size_t)n0 * sizeof *ids0) == 0));
}

/* ids0 = this rank's ids now (none: A.id may still be NULL). */
static void save_ids(uint64_t *ids0) {
  if (A.n > 0) memcpy(ids0, A.id, (size_t)A.n * sizeof *ids0);
}

/* Steps until an interaction has certainly resolved (interval 1,
 * blocking: the very next call). */
static int one_decision(bal_rebalance_geo *g) {
  double c = 0.0;
  for (int64_t i = 0; i < A.n; i++) c += cost_of(A.id[i]) * 1e-4;
  /* imbalanced on purpose so that the decision reaches the partition */
  if (rank == 0) c = c * 50 + 1e-3;
  return bal_rebalance_geo_step(g, c, NULL);
}

static void scenario_errors(void) {
  A.dim = 2;
  int64_t total = init_items(5, 60);
  bal_rebalance_geo_config cfg;
  bal_rebalance_geo_config_init(&cfg);
  memcpy(cfg.lo, LO, sizeof LO);
  memcpy(cfg.hi, HI, sizeof HI);
  cfg.measure.interval = 1;
  cfg.measure.pipelined = false;
  cfg.measure.profitability = false;
  cfg.measure.threshold = 0.01;
  cfg.measure.filter = BAL_REBALANCE_FILTER_NONE;
  bal_rebalance_geo *g = NULL;
  bal_rebalance_geo_callbacks cb = callbacks(true);
  /* configurations that differ between ranks: refused everywhere */
  bal_rebalance_geo_config odd = cfg;
  if (rank == nranks - 1) odd.partition.method = "tensor";
  int rc = bal_rebalance_geo_create(MPI_COMM_WORLD, &odd, &cb, &g);
  int want = nranks > 1 ? BAL_EINVAL : BAL_OK;
  expect_everywhere(rc, want, A.id, A.n);
  bal_rebalance_geo_destroy(g);
  g = NULL;
  odd = cfg;
  if (rank == 0) odd.hi[1] = 2.0;
  rc = bal_rebalance_geo_create(MPI_COMM_WORLD, &odd, &cb, &g);
  expect_everywhere(rc, want, A.id, A.n);
  bal_rebalance_geo_destroy(g);
  g = NULL;
  /* a missing callback on one rank only: still every rank */
  bal_rebalance_geo_callbacks bad = cb;
  if (rank == nranks - 1) bad.coords = NULL;
  rc = bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &bad, &g);
  expect_everywhere(rc, BAL_EINVAL, A.id, A.n);

  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &cb, &g) == BAL_OK);
  CHECK(bal_rebalance_geo_partition(g, NULL) == BAL_OK);
  check_owned_once(total);
  uint64_t *ids0 = malloc((size_t)total * sizeof *ids0);
  CHECK(ids0);
  int culprit = nranks - 1;
  /* each fault on one rank; the step that posts it (interval 1, blocking:
   * the same step) returns it on every rank */
  for (int fault = 0; fault < 4; fault++) {
    int64_t n0 = A.n;
    save_ids(ids0);
    if (rank == culprit) {
      switch (fault) {
      case 0: A.bad_weight = 1; break; /* NaN weight */
      case 1: A.bad_weight = 2; break; /* negative weight */
      case 2: A.bad_coord = 1; break;  /* outside the domain */
      default: A.fail_coords = 1; break;
      }
    }
    rc = one_decision(g);
    expect_everywhere(rc, fault == 3 ? BAL_ECALLBACK : BAL_EINVAL, ids0, n0);
    bal_rebalance_stats st;
    CHECK(bal_rebalance_geo_stats_get(g, &st) == BAL_OK);
    CHECK(st.error_rank == culprit);
    A.bad_weight = A.bad_coord = A.fail_coords = 0;
    check_owned_once(total);
    /* the next step starts a fresh exchange and succeeds */
    CHECK(one_decision(g) == BAL_OK);
    check_owned_once(total);
  }
  /* pack or unpack fails on every rank that packs or unpacks, in a forced
   * partition that must move (the hotspot moved): nothing moves anywhere */
  for (int fault = 0; fault < 2; fault++) {
    A.step += 5;
    int64_t n0 = A.n;
    save_ids(ids0);
    A.fail_pack = fault == 0;
    A.fail_unpack = fault == 1;
    rc = bal_rebalance_geo_partition(g, NULL);
    expect_everywhere(rc, nranks > 1 ? BAL_ECALLBACK : BAL_OK, ids0, n0);
    A.fail_pack = A.fail_unpack = 0;
    check_owned_once(total);
    CHECK(bal_rebalance_geo_partition(g, NULL) == BAL_OK);
    check_owned_once(total);
  }
  bal_rebalance_geo_destroy(g);
  /* a bad time pending in a pipelined exchange comes back from a forced
   * partition, on every rank, before anything moves */
  cfg.measure.pipelined = true;
  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &cb, &g) == BAL_OK);
  A.step += 5;
  int64_t n0 = A.n;
  save_ids(ids0);
  rc = bal_rebalance_geo_step(g, rank == culprit ? NAN : 0.001, NULL);
  expect_everywhere(rc, BAL_OK, ids0, n0); /* delayed: posted, not resolved */
  rc = bal_rebalance_geo_partition(g, NULL);
  expect_everywhere(rc, BAL_EINVAL, ids0, n0);
  CHECK(bal_rebalance_geo_partition(g, NULL) == BAL_OK);
  check_owned_once(total);
  free(ids0);
  bal_rebalance_geo_destroy(g);
}

static void scenario_args(void) {
  bal_rebalance_geo_config cfg;
  CHECK(bal_rebalance_geo_config_init(NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_config_init(&cfg) == BAL_OK);
  CHECK(cfg.dim == 2 && strcmp(cfg.partition.method, "rcb") == 0);
  bal_rebalance_geo_callbacks cb = callbacks(false);
  bal_rebalance_geo *g = NULL;
  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &cb, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_step(NULL, 0.0, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_partition(NULL, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_mark(NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_result(NULL) == NULL);
  CHECK(bal_rebalance_geo_stats_get(NULL, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_region(NULL, NULL) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_neighbors(NULL, NULL) == BAL_EINVAL);
  bal_rebalance_geo_destroy(NULL);
  /* each bad field, on every rank alike */
  for (int f = 0; f < 9; f++) {
    bal_rebalance_geo_config c = cfg;
    switch (f) {
    case 0: c.dim = 4; break;
    case 1: c.partition.method = "voronoi"; break;
    case 2: c.hi[0] = NAN; break;
    case 3: c.hi[1] = -1.0; break;
    case 4: c.partition.min_extent[0] = -1.0; break;
    case 5: c.partition.max_move_fraction = 1.5; break;
    case 6: c.partition.grid[0] = nranks + 1; c.partition.grid[1] = 1; break;
    case 7: c.measure.threshold = 1.0; break;
    default: c.partition.tolerance = NAN; break;
    }
    int rc = bal_rebalance_geo_create(MPI_COMM_WORLD, &c, &cb, &g);
    CHECK(rc == BAL_EINVAL && g == NULL);
  }
  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, NULL, &cb, &g) == BAL_EINVAL);
  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, NULL, &g) == BAL_EINVAL);
  /* fewer items than ranks: the forced partition refuses, nothing moves */
  A.dim = 2;
  A.n = 0;
  reserve(1);
  if (rank == 0 && nranks > 1) A.id[A.n++] = 0;
  CHECK(bal_rebalance_geo_create(MPI_COMM_WORLD, &cfg, &cb, &g) == BAL_OK);
  int rc = bal_rebalance_geo_partition(g, NULL); /* 1 item on P > 1, none on 1 */
  CHECK(rc == BAL_EINVAL && bal_rebalance_geo_result(g) == NULL);
  bal_rebalance_geo_destroy(g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: %s random|errors|args [SEEDS]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int seeds = argc > 2 ? atoi(argv[2]) : 3;
  const char *scale = getenv("BALLAST_STRESS_SCALE");
  if (scale && atoi(scale) > 1) seeds *= atoi(scale);
  if (strcmp(argv[1], "random") == 0) {
    scenario_random(seeds);
    double t = tightest;
    MPI_Allreduce(&tightest, &t, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    /* some box was reduced to the minimum extent (else that part tested nothing) */
    if (nranks > 1) CHECK(t <= 1.0 + 1e-9);
  }
  else if (strcmp(argv[1], "errors") == 0) scenario_errors();
  else if (strcmp(argv[1], "args") == 0) scenario_args();
  else CHECK(!"unknown scenario");
  free(A.id);
  if (rank == 0) printf("ok\n");
  MPI_Finalize();
  return 0;
}
