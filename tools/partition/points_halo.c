/* The halo of points, which bal_partition_grid_quality() does not measure
 * (it takes grids): a point is in the halo when a point of another part
 * lies within the cutoff R of it (what a particle code with interaction
 * radius R sends its neighbours), and two parts are neighbours when such a
 * pair joins them. The points are binned into boxes of side >= R, so each
 * point is compared with the points of its own and the adjacent boxes
 * only: O(n) for points spread evenly, more where they crowd. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition_tool.h"

/* The default cutoff: the side of a square (cube) holding one point on
 * average over the bounding box; over a flat box (all points on a line or
 * plane) the longest extent over the number of points. */
static double default_cutoff(const part_field *f, const double lo[3], const double hi[3]) {
  double volume = 1.0, longest = 0.0;
  for (int d = 0; d < f->dims; d++) {
    volume *= hi[d] - lo[d];
    longest = fmax(longest, hi[d] - lo[d]);
  }
  if (volume > 0.0) return pow(volume / (double)f->items, 1.0 / f->dims);
  return longest > 0.0 ? longest / (double)f->items : 1.0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

typedef struct bins {
  int64_t nb[3], *start, *order;
  double lo[3], scale[3];
} bins;

/* The box of point x: its index, and its coordinates in c (0 beyond dims). */
static int64_t bin_of(const bins *b, const double *x, int dims, int64_t c[3]) {
  int64_t at = 0;
  c[2] = 0;
  for (int d = dims - 1; d >= 0; d--) {
    c[d] = (int64_t)((x[d] - b->lo[d]) * b->scale[d]);
    if (c[d] >= b->nb[d]) c[d] = b->nb[d] - 1;
    if (c[d] < 0) c[d] = 0;
    at = at * b->nb[d] + c[d];
  }
  return at;
}

/* Boxes of side >= cutoff, at most about 4 per point (a larger box only
 * costs comparisons, never misses a pair). Counting sort of the points. */
static bool bins_make(bins *b, const part_field *f, const double lo[3], const double hi[3],
                      double cutoff) {
  double side = cutoff;
  int64_t total;
  for (;;) {
    total = 1;
    for (int d = 0; d < 3; d++) {
      double ext = d < f->dims ? hi[d] - lo[d] : 0.0;
      double nb = floor(ext / side);
      b->nb[d] = nb < 1 ? 1 : nb > 1e6 ? 1000000 : (int64_t)nb;
      b->lo[d] = lo[d];
      b->scale[d] = ext > 0.0 ? (double)b->nb[d] / ext : 0.0;
      total *= b->nb[d];
    }
    if (total <= 4 * f->items + 16) break;
    side *= 1.25;
  }
  b->start = calloc((size_t)total + 1, sizeof *b->start);
  b->order = malloc((size_t)f->items * sizeof *b->order);
  if (!b->start || !b->order) return false;
  int64_t c[3];
  for (int64_t i = 0; i < f->items; i++) b->start[bin_of(b, f->coord + i * f->dims, f->dims, c) + 1]++;
  for (int64_t k = 0; k < total; k++) b->start[k + 1] += b->start[k];
  int64_t *fill = malloc((size_t)total * sizeof *fill);
  if (!fill) return false;
  memcpy(fill, b->start, (size_t)total * sizeof *fill);
  for (int64_t i = 0; i < f->items; i++) b->order[fill[bin_of(b, f->coord + i * f->dims, f->dims, c)]++] = i;
  free(fill);
  return true;
}

/* Pairs (a, b), a < b, of parts joined by close points, as a * parts + b;
 * appended to a growing array. */
typedef struct pairs {
  uint64_t *key;
  size_t n, cap;
} pairs;

static bool pair_add(pairs *p, uint64_t key) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 1024;
    uint64_t *k = realloc(p->key, cap * sizeof *k);
    if (!k) return false;
    p->key = k;
    p->cap = cap;
  }
  p->key[p->n++] = key;
  return true;
}

/* Visit the points near point i; returns false when out of memory. */
static bool near(const part_field *f, const bins *b, const int *part, int parts, int64_t i,
                 double r2, bool *halo, pairs *p) {
  const double *x = f->coord + i * f->dims;
  int64_t c[3];
  bin_of(b, x, f->dims, c);
  int seen[32], nseen = 0; /* other parts already recorded for i */
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; d++) {
    lo[d] = c[d] > 0 ? c[d] - 1 : 0;
    hi[d] = c[d] + 1 < b->nb[d] ? c[d] + 1 : b->nb[d] - 1;
  }
  for (int64_t z = lo[2]; z <= hi[2]; z++)
    for (int64_t y = lo[1]; y <= hi[1]; y++)
      for (int64_t xx = lo[0]; xx <= hi[0]; xx++) {
        int64_t at = (z * b->nb[1] + y) * b->nb[0] + xx;
        for (int64_t k = b->start[at]; k < b->start[at + 1]; k++) {
          int64_t j = b->order[k];
          if (part[j] == part[i]) continue;
          const double *q = f->coord + j * f->dims;
          double d2 = 0.0;
          for (int d = 0; d < f->dims; d++) d2 += (x[d] - q[d]) * (x[d] - q[d]);
          if (d2 > r2) continue;
          *halo = true;
          bool known = false;
          for (int s = 0; s < nseen && !known; s++) known = seen[s] == part[j];
          if (known) continue;
          if (nseen < 32) seen[nseen++] = part[j];
          if (part[i] < part[j] && !pair_add(p, (uint64_t)part[i] * (uint64_t)parts + (uint64_t)part[j]))
            return false;
        }
      }
  return true;
}

bool part_points_halo(const part_field *f, int parts, double cutoff, part_result *r) {
  double lo[3], hi[3];
  part_domain(f, lo, hi);
  if (cutoff <= 0.0) cutoff = default_cutoff(f, lo, hi);
  r->cutoff = cutoff;
  bins b = {0};
  pairs p = {0};
  int *degree = calloc((size_t)parts, sizeof *degree);
  bool ok = degree && bins_make(&b, f, lo, hi, cutoff);
  r->halo = 0;
  for (int64_t i = 0; ok && i < f->items; i++) {
    bool halo = false;
    ok = near(f, &b, r->part, parts, i, cutoff * cutoff, &halo, &p);
    r->halo += halo;
  }
  if (ok) {
    if (p.n) qsort(p.key, p.n, sizeof *p.key, cmp_u64);
    int64_t sum = 0;
    for (size_t k = 0; k < p.n; k++) {
      if (k > 0 && p.key[k] == p.key[k - 1]) continue;
      degree[p.key[k] / (uint64_t)parts]++;
      degree[p.key[k] % (uint64_t)parts]++;
      sum += 2;
    }
    r->neighbors_max = 0;
    for (int k = 0; k < parts; k++) r->neighbors_max = degree[k] > r->neighbors_max ? degree[k] : r->neighbors_max;
    r->neighbors_avg = (double)sum / parts;
  } else fprintf(stderr, PART_PROG ": out of memory measuring the halo\n");
  free(b.start);
  free(b.order);
  free(p.key);
  free(degree);
  return ok;
}
