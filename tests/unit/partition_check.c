/* Helpers of the partition tests (partition_check.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "partition_check.h"

static double uniform(bal__rng *rng) { return (double)(bal__rng_next(rng) >> 11) * 0x1.0p-53; }

void pc_points(bal__rng *rng, int dim, int64_t n, double *coords, double *w) {
  bool clustered = bal__rng_next(rng) & 1;
  double centre[4][3];
  for (int c = 0; c < 4; c++)
    for (int d = 0; d < 3; d++) centre[c][d] = 0.2 + 0.6 * uniform(rng);
  for (int64_t i = 0; i < n; i++) {
    int c = (int)(bal__rng_next(rng) % 4);
    for (int d = 0; d < dim; d++) {
      double x = uniform(rng);
      if (clustered) x = centre[c][d] + 0.1 * (x - 0.5);
      coords[i * dim + d] = x;
    }
    if (w) w[i] = (bal__rng_next(rng) % 8 == 0) ? 0.0 : 4.0 * uniform(rng);
  }
}

void pc_grid_coords(int dim, const int64_t cells[3], double *coords) {
  int64_t n = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % cells[0], (i / cells[0]) % cells[1], i / (cells[0] * cells[1])};
    for (int d = 0; d < dim; d++) coords[i * dim + d] = (double)c[d] + 0.5;
  }
}

void pc_field(int dim, const int64_t cells[3], double cx, double cy, double cz, double peak,
              double sigma, double *w) {
  int64_t n = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  double centre[3] = {cx, cy, cz};
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % cells[0], (i / cells[0]) % cells[1], i / (cells[0] * cells[1])};
    double r2 = 0.0, grad = 0.0;
    for (int d = 0; d < dim; d++) {
      double f = ((double)c[d] + 0.5) / (double)cells[d];
      r2 += (f - centre[d]) * (f - centre[d]);
      grad += f;
    }
    w[i] = 1.0 + grad + peak * exp(-r2 / (2.0 * sigma * sigma));
  }
}

static bool touch(int dim, const bal_partition_region *a, const bal_partition_region *b) {
  for (int d = 0; d < dim; d++)
    if (a->lo[d] > b->hi[d] || b->lo[d] > a->hi[d]) return false;
  return true;
}

void pc_check_result(const bal_partition_input *in, int parts, const int *part,
                     const bal_partition_result *r) {
  int dim = in->dim;
  assert_int_equal(bal_partition_result_parts(r), parts);
  for (int64_t i = 0; i < in->n; i++) {
    assert_true(part[i] >= 0 && part[i] < parts);
  }
  bal_partition_region *g = malloc((size_t)parts * sizeof *g);
  assert_non_null(g);
  for (int k = 0; k < parts; k++) assert_int_equal(bal_partition_region_get(r, k, &g[k]), BAL_OK);
  bool box = g[0].kind == BAL_PARTITION_REGION_BOX;
  if (box) {
    for (int64_t i = 0; i < in->n; i++)
      for (int d = 0; d < dim; d++) {
        double x = in->coords[i * dim + d];
        assert_true(x >= g[part[i]].lo[d] && x <= g[part[i]].hi[d]);
      }
    for (int k = 0; k < parts; k++)
      for (int d = 0; d < dim; d++) {
        assert_true(g[k].lo[d] >= in->lo[d] && g[k].hi[d] <= in->hi[d]);
        assert_true(g[k].lo[d] <= g[k].hi[d]);
      }
  } else {
    /* curve intervals: together they cover the keys without overlap */
    uint64_t total = 0;
    for (int k = 0; k < parts; k++) {
      assert_int_equal(g[k].kind, BAL_PARTITION_REGION_CURVE);
      assert_true(g[k].key_lo <= g[k].key_hi);
      total += g[k].key_hi - g[k].key_lo;
    }
    assert_true(total == (uint64_t)1 << (dim * BAL_PARTITION_CURVE_BITS));
  }
  /* neighbour lists: sorted, no self, symmetric; boxes: exactly the touching ones */
  for (int k = 0; k < parts; k++) {
    const int *nb = NULL;
    int c = bal_partition_neighbors(r, k, &nb);
    assert_true(c >= 0);
    for (int q = 0; q < c; q++) {
      assert_true(nb[q] >= 0 && nb[q] < parts && nb[q] != k);
      if (q > 0) assert_true(nb[q] > nb[q - 1]);
      const int *back = NULL;
      int cb = bal_partition_neighbors(r, nb[q], &back);
      bool found = false;
      for (int z = 0; z < cb; z++) found |= back[z] == k;
      assert_true(found);
    }
    if (box) {
      int expect = 0;
      for (int j = 0; j < parts; j++) expect += j != k && touch(dim, &g[k], &g[j]);
      assert_int_equal(c, expect);
      for (int q = 0; q < c; q++) assert_true(touch(dim, &g[k], &g[nb[q]]));
    }
  }
  /* transfers: exactly the items whose owner changed */
  int64_t moved = 0, listed = 0;
  if (in->from)
    for (int64_t i = 0; i < in->n; i++) moved += in->from[i] != part[i];
  char *seen = calloc(in->n > 0 ? (size_t)in->n : 1, 1);
  assert_non_null(seen);
  for (int k = 0; k < parts; k++) {
    const bal_partition_transfer *x = NULL;
    int cx = bal_partition_exports(r, k, &x);
    assert_true(cx >= 0);
    if (!in->from) assert_int_equal(cx, 0);
    for (int q = 0; q < cx; q++) {
      assert_int_equal(x[q].from, k);
      assert_true(x[q].to != k && x[q].count > 0);
      if (q > 0) assert_true(x[q].to > x[q - 1].to);
      for (int64_t j = 0; j < x[q].count; j++) {
        int64_t i = x[q].items[j];
        assert_true(i >= 0 && i < in->n && !seen[i]);
        if (j > 0) assert_true(i > x[q].items[j - 1]);
        seen[i] = 1;
        assert_int_equal(in->from[i], k);
        assert_int_equal(part[i], x[q].to);
      }
      listed += x[q].count;
      /* the receiver's import list holds this very struct */
      const bal_partition_transfer *const *im = NULL;
      int ci = bal_partition_imports(r, x[q].to, &im);
      int hits = 0;
      for (int z = 0; z < ci; z++) {
        hits += im[z] == &x[q];
        if (z > 0) assert_true(im[z]->from > im[z - 1]->from);
        assert_int_equal(im[z]->to, x[q].to);
      }
      assert_int_equal(hits, 1);
    }
  }
  assert_int_equal(listed, moved);
  free(seen);
  free(g);
}
