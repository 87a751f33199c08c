/* The items of the geometric balancer: cells with a global index and a
 * temperature, moved by index (pack/unpack/remove), placed at their
 * centres, weighted (with --weights given) by their cost. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep (heat_geo.h) */
#endif
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_geo.h>

#include "heat_geo.h"

/* The disc crosses the grid along x during the run, at mid-height. */
double cell_cost(const problem *pb, int step, int64_t gid) {
  double x = (double)(gid % pb->nx) + 0.5, y = (double)(gid / pb->nx) + 0.5;
  double travel = (double)pb->nx - 2.0 * pb->radius;
  double cx = pb->radius + travel * (double)step / (double)(pb->steps > 1 ? pb->steps - 1 : 1);
  double cy = 0.5 * (double)pb->ny;
  double dx = x - cx, dy = y - cy;
  return dx * dx + dy * dy <= pb->radius * pb->radius ? pb->heavy : 1.0;
}

int cells_reserve(cells *c, int64_t n) {
  if (n <= c->cap) return 0;
  int64_t cap = 2 * n + 64;
  int64_t *g = realloc(c->gid, (size_t)cap * sizeof *g);
  if (!g) return 1;
  c->gid = g;
  double *u = realloc(c->u, (size_t)cap * sizeof *u);
  if (!u) return 1;
  c->u = u;
  c->cap = cap;
  return 0;
}

static int count(int64_t *n, void *arg) {
  *n = ((cells *)arg)->n;
  return 0;
}

static int coords(int64_t n, double *xy, void *arg) {
  const cells *c = arg;
  for (int64_t i = 0; i < n; i++) {
    xy[2 * i] = (double)(c->gid[i] % c->pb->nx) + 0.5;
    xy[2 * i + 1] = (double)(c->gid[i] / c->pb->nx) + 0.5;
  }
  return 0;
}

static int weights(int64_t n, double *w, void *arg) {
  const cells *c = arg;
  for (int64_t i = 0; i < n; i++) w[i] = cell_cost(c->pb, c->step, c->gid[i]);
  return 0;
}

/* A packed cell: its global index and its temperature. */
typedef struct packed {
  int64_t gid;
  double u;
} packed;

static int pack(int64_t count, const int64_t *items, void *buf, size_t bytes, void *arg) {
  const cells *c = arg;
  if (bytes != (size_t)count * sizeof(packed)) return 1;
  packed *p = buf;
  for (int64_t j = 0; j < count; j++) p[j] = (packed){c->gid[items[j]], c->u[items[j]]};
  return 0;
}

static int unpack(int64_t count, const void *buf, size_t bytes, void *arg) {
  cells *c = arg;
  if (bytes != (size_t)count * sizeof(packed) || cells_reserve(c, c->n + count)) return 1;
  const packed *p = buf;
  for (int64_t j = 0; j < count; j++) {
    c->gid[c->n + j] = p[j].gid;
    c->u[c->n + j] = p[j].u;
  }
  c->n += count;
  return 0;
}

static void remove_cells(int64_t count, const int64_t *items, void *arg) {
  cells *c = arg;
  int64_t w = 0, k = 0;
  for (int64_t i = 0; i < c->n; i++) {
    if (k < count && items[k] == i) {
      k++;
      continue;
    }
    c->gid[w] = c->gid[i];
    c->u[w++] = c->u[i];
  }
  c->n = w;
}

void cells_callbacks(cells *c, bool given_weights, bal_rebalance_geo_callbacks *cb) {
  memset(cb, 0, sizeof *cb);
  cb->count = count;
  cb->coords = coords;
  cb->weights = given_weights ? weights : NULL;
  cb->pack = pack;
  cb->unpack = unpack;
  cb->remove = remove_cells;
  cb->item_bytes = sizeof(packed);
  cb->arg = c;
}
