/* The local rows of the heat grid and the four callbacks through which
 * bal_rebalance moves them. A row travels with its global index, so that
 * the halo plan (halo.c) can find its neighbours wherever it lands (direct
 * mode does not keep the global order). */
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "heat.h"

/* A stateless hash of x: one SplitMix64 step from state x. */
static uint64_t mix(uint64_t x) { return bal__splitmix64(&x); }

static size_t row_bytes(const heat_grid *g) { return (size_t)g->nx * sizeof(double); }
static double *row(double *a, const heat_grid *g, int64_t i) { return a + (size_t)i * (size_t)g->nx; }

/* Room for `rows` rows; all-or-nothing so that unpack can fail cleanly. */
static int reserve(heat_grid *g, int64_t rows) {
  if (rows <= g->cap) return 0;
  int64_t cap = g->cap ? g->cap : 16;
  while (cap < rows) cap *= 2;
  int64_t *gid = malloc((size_t)cap * sizeof *gid);
  double *u = malloc((size_t)cap * row_bytes(g)), *v = malloc((size_t)cap * row_bytes(g));
  if (!gid || !u || !v) {
    free(gid);
    free(u);
    free(v);
    return -1;
  }
  if (g->n) {
    memcpy(gid, g->gid, (size_t)g->n * sizeof *gid);
    memcpy(u, g->u, (size_t)g->n * row_bytes(g));
  }
  free(g->gid);
  free(g->u);
  free(g->v);
  g->gid = gid;
  g->u = u;
  g->v = v;
  g->cap = cap;
  return 0;
}

int grid_init(heat_grid *g, int nx, int64_t ny, int64_t first, int64_t count, uint64_t seed) {
  memset(g, 0, sizeof *g);
  g->nx = nx;
  g->ny = ny;
  if (reserve(g, count > 0 ? count : 1)) return -1;
  g->n = count;
  /* The field depends on (seed, row, column) only: the same grid on any
   * number of ranks. */
  for (int64_t i = 0; i < count; i++) {
    g->gid[i] = first + i;
    for (int x = 0; x < nx; x++) {
      uint64_t h = mix(seed ^ mix((uint64_t)(first + i) * 0x10001ULL + (uint64_t)x));
      row(g->u, g, i)[x] = 100.0 * (double)(h >> 11) * 0x1.0p-53;
    }
  }
  return 0;
}

void grid_free(heat_grid *g) {
  free(g->gid);
  free(g->u);
  free(g->v);
  memset(g, 0, sizeof *g);
}

/* ---- callbacks: an item is a row, packed as its index then its values ---- */

static size_t item_bytes(const heat_grid *g) { return sizeof(int64_t) + row_bytes(g); }

static int cb_count(int64_t *n, void *arg) {
  *n = ((heat_grid *)arg)->n;
  return 0;
}

static int cb_pack(bal_rebalance_end end, int64_t skip, int64_t count, void *buf, size_t bytes,
                   void *arg) {
  heat_grid *g = arg;
  if (skip < 0 || count < 0 || skip + count > g->n || bytes != (size_t)count * item_bytes(g)) return 1;
  int64_t first = end == BAL_REBALANCE_LOW ? skip : g->n - skip - count;
  unsigned char *p = buf;
  for (int64_t i = first; i < first + count; i++) {
    memcpy(p, &g->gid[i], sizeof(int64_t));
    memcpy(p + sizeof(int64_t), row(g->u, g, i), row_bytes(g));
    p += item_bytes(g);
  }
  return 0;
}

static int cb_unpack(bal_rebalance_end end, int64_t count, const void *buf, size_t bytes,
                     void *arg) {
  heat_grid *g = arg;
  if (count < 0 || bytes != (size_t)count * item_bytes(g) || reserve(g, g->n + count)) return 1;
  int64_t at = g->n;
  if (end == BAL_REBALANCE_LOW) { /* make room in front */
    memmove(g->gid + count, g->gid, (size_t)g->n * sizeof *g->gid);
    memmove(row(g->u, g, count), g->u, (size_t)g->n * row_bytes(g));
    at = 0;
  }
  const unsigned char *p = buf;
  for (int64_t i = at; i < at + count; i++) {
    memcpy(&g->gid[i], p, sizeof(int64_t));
    memcpy(row(g->u, g, i), p + sizeof(int64_t), row_bytes(g));
    p += item_bytes(g);
  }
  g->n += count;
  return 0;
}

static void cb_remove(bal_rebalance_end end, int64_t count, void *arg) {
  heat_grid *g = arg;
  if (count > g->n) count = g->n;
  if (end == BAL_REBALANCE_LOW) {
    memmove(g->gid, g->gid + count, (size_t)(g->n - count) * sizeof *g->gid);
    memmove(g->u, row(g->u, g, count), (size_t)(g->n - count) * row_bytes(g));
  }
  g->n -= count;
}

bal_rebalance_callbacks grid_callbacks(heat_grid *g) {
  bal_rebalance_callbacks cb = {.count = cb_count,
                                .pack = cb_pack,
                                .unpack = cb_unpack,
                                .remove = cb_remove,
                                .item_bytes = item_bytes(g),
                                .arg = g};
  return cb;
}

/* ---- the computation ---- */

static const double *ref_row(const heat_grid *g, const heat_halo *h, int64_t ref) {
  if (ref >= 0) return g->u + (size_t)ref * (size_t)g->nx;
  return h->ghost + (size_t)(-ref - 1) * (size_t)g->nx;
}

void grid_sweep(heat_grid *g, const heat_halo *h) {
  int nx = g->nx;
  for (int64_t i = 0; i < g->n; i++) {
    const double *up = ref_row(g, h, h->up[i]), *down = ref_row(g, h, h->down[i]);
    const double *c = row(g->u, g, i);
    double *out = row(g->v, g, i);
    out[0] = c[0]; /* the edge columns keep their initial values */
    out[nx - 1] = c[nx - 1];
    for (int x = 1; x < nx - 1; x++) out[x] = 0.25 * ((up[x] + down[x]) + (c[x - 1] + c[x + 1]));
  }
  double *t = g->u;
  g->u = g->v;
  g->v = t;
}

uint64_t grid_hash(const heat_grid *g) {
  /* A sum of per-row hashes: independent of which rank holds a row and of
   * the order of the reduction, and any single changed bit shows. */
  uint64_t sum = 0;
  for (int64_t i = 0; i < g->n; i++) {
    uint64_t h = mix((uint64_t)g->gid[i]);
    const double *r = row(g->u, g, i);
    for (int x = 0; x < g->nx; x++) {
      uint64_t bits;
      memcpy(&bits, &r[x], sizeof bits);
      h = mix(h ^ bits);
    }
    sum += h;
  }
  return sum;
}

double grid_sum(const heat_grid *g) {
  double s = 0;
  for (int64_t i = 0; i < g->n; i++)
    for (int x = 0; x < g->nx; x++) s += row(g->u, g, i)[x];
  return s;
}
