/* partition: the spatial neighbours of the curve methods' parts. For each
 * curve, 2-D and 3-D, random P: the lists equal the pairs of parts whose
 * cells touch (a face, an edge or a corner), found by brute force here,
 * on a structured grid whose cells the parts own whole and on random items
 * at the full curve resolution; and the curves' keys and cells are each
 * other's inverse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/partition.h>

#include "partition/partition_internal.h"
#include "partition_check.h"

#define BITS BAL_PARTITION_CURVE_BITS

static const char *const curves[] = {"hilbert", "morton"};

static const bal__part_curve *curve_of(const char *name) {
  const bal__part_method *m = bal__part_method_find(name);
  assert_non_null(m);
  assert_non_null(m->curve);
  return m->curve;
}

/* The listed neighbours of every part, as a parts x parts matrix. */
static char *listed_matrix(const bal_partition_result *r, int parts) {
  char *m = calloc((size_t)parts * (size_t)parts, 1);
  assert_non_null(m);
  for (int k = 0; k < parts; k++) {
    const int *nb = NULL;
    int c = bal_partition_neighbors(r, k, &nb);
    assert_true(c >= 0);
    for (int q = 0; q < c; q++) m[(size_t)k * (size_t)parts + (size_t)nb[q]] = 1;
  }
  return m;
}

static void expect_equal(const char *what, const char *want, const char *got, int parts) {
  for (int a = 0; a < parts; a++)
    for (int b = 0; b < parts; b++) {
      size_t at = (size_t)a * (size_t)parts + (size_t)b;
      if (want[at] != got[at])
        fail_msg("%s: parts %d and %d %s", what, a, b,
                 want[at] ? "touch but are not listed" : "are listed but do not touch");
    }
}

/* key and cell are inverse; a block's first key is the cell's key with
 * the low levels cleared, and its cell is the block's corner cell; the
 * keys of a block's neighbours are what key gives for each. */
static void keys_and_cells(void **state) {
  (void)state;
  bal__rng rng;
  bal__rng_seed(&rng, 3);
  for (int c = 0; c < 2; c++) {
    const bal__part_curve *cv = curve_of(curves[c]);
    for (int dim = 2; dim <= 3; dim++) {
      uint64_t end = (uint64_t)1 << (dim * BITS);
      for (int t = 0; t < 20000; t++) {
        uint32_t cell[3] = {0}, back[3] = {0};
        for (int d = 0; d < dim; d++) /* some at the grid's edges */
          cell[d] = t % 4 == 0 ? (uint32_t)(bal__rng_next(&rng) % 2) * ((1u << BITS) - 1)
                               : (uint32_t)(bal__rng_next(&rng) & ((1u << BITS) - 1));
        uint64_t k = cv->key(dim, cell, 0);
        assert_true(k < end);
        cv->cell(dim, k, back);
        for (int d = 0; d < dim; d++) assert_int_equal(back[d], cell[d]);
        int l = (int)(bal__rng_next(&rng) % (BITS + 1));
        uint64_t first = cv->key(dim, cell, l);
        assert_true(first == (k & ~(((uint64_t)1 << (dim * l)) - 1)));
        cv->cell(dim, first, back);
        for (int d = 0; d < dim; d++) assert_int_equal(back[d] >> l, cell[d] >> l);
        /* the neighbours' keys, shared steps and all, are their own keys */
        uint32_t corner[3] = {0};
        for (int d = 0; d < dim; d++) corner[d] = cell[d] & ~((1u << l) - 1);
        uint64_t keys[27];
        cv->nbr_keys(dim, corner, l, keys);
        for (int dir = 0; dir < (dim == 2 ? 9 : 27); dir++) {
          int64_t v[3] = {0};
          bool inside = true, self = true;
          for (int d = 0, code = dir; d < dim; d++, code /= 3) {
            v[d] = (int64_t)corner[d] + (int64_t)(code % 3 - 1) * ((int64_t)1 << l);
            inside &= v[d] >= 0 && v[d] < ((int64_t)1 << BITS);
            self &= code % 3 == 1;
          }
          if (!inside || self) {
            assert_true(keys[dir] == UINT64_MAX);
            continue;
          }
          uint32_t nc[3] = {(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
          assert_true(keys[dir] == cv->key(dim, nc, l));
        }
      }
    }
  }
}

/* A grid of side^dim cells over [0, 2^BITS]^dim, one item per grid cell at
 * the curve cell with the grid cell's first key: every cut falls on a
 * grid cell's first key, so each part owns whole grid cells, and two parts
 * touch exactly when they own touching grid cells. */
static void grid_exact(void **state) {
  (void)state;
  bal__rng rng;
  bal__rng_seed(&rng, 5);
  for (int c = 0; c < 2; c++) {
    const bal__part_curve *cv = curve_of(curves[c]);
    for (int dim = 2; dim <= 3; dim++) {
      const int lg = dim == 2 ? 4 : 3, side = 1 << lg, m = BITS - lg;
      const int n = dim == 2 ? side * side : side * side * side;
      double coords[512 * 3], w[512];
      int grid_item[512], part[512], owner[512];
      for (int g = 0; g < n; g++) grid_item[g] = -1;
      for (int b = 0; b < n; b++) { /* the b-th grid cell along the curve */
        uint32_t f[3] = {0};
        cv->cell(dim, (uint64_t)b << (dim * m), f);
        int g = 0;
        for (int d = dim - 1; d >= 0; d--) g = g * side + (int)(f[d] >> m);
        assert_int_equal(grid_item[g], -1);
        grid_item[g] = b;
        for (int d = 0; d < dim; d++) coords[b * dim + d] = (double)f[d] + 0.5;
      }
      for (int trial = 0; trial < 12; trial++) {
        int parts = 1 + (int)(bal__rng_next(&rng) % (uint64_t)(trial < 6 ? 40 : n));
        for (int i = 0; i < n; i++) w[i] = (double)(bal__rng_next(&rng) % 5);
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = curves[c];
        cfg.parts = parts;
        double hi = (double)(1u << BITS);
        bal_partition_input in = {dim, {0, 0, 0}, {hi, hi, hi}, n, coords, w, NULL};
        bal_partition_result *r = NULL;
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
        pc_check_result(&in, parts, part, r);
        for (int k = 0; k < parts; k++) { /* cuts on grid cells' first keys */
          bal_partition_region g;
          assert_int_equal(bal_partition_region_get(r, k, &g), BAL_OK);
          assert_true(g.key_lo % ((uint64_t)1 << (dim * m)) == 0);
        }
        for (int g = 0; g < n; g++) owner[g] = part[grid_item[g]];
        char *want = calloc((size_t)parts * (size_t)parts, 1);
        assert_non_null(want);
        for (int g = 0; g < n; g++)
          for (int h = 0; h < n; h++) {
            int far = 0;
            for (int d = 0, sg = g, sh = h; d < dim; d++, sg /= side, sh /= side)
              far |= abs(sg % side - sh % side) > 1;
            if (!far && owner[g] != owner[h])
              want[(size_t)owner[g] * (size_t)parts + (size_t)owner[h]] = 1;
          }
        char *got = listed_matrix(r, parts);
        char what[64];
        snprintf(what, sizeof what, "%s %d-D grid P=%d", curves[c], dim, parts);
        expect_equal(what, want, got, parts);
        free(want);
        free(got);
        bal_partition_result_destroy(r);
      }
    }
  }
}

/* Blocks of a key interval, by descent from the whole curve (not the
 * library's way up and down): a block inside [a, b) is kept whole, one
 * that overlaps it is split into its 2^dim children. */
typedef struct block {
  uint32_t lo[3];
  int64_t side;
  int part;
} block;

typedef struct blocks {
  block *b;
  int64_t n, cap;
} blocks;

static void descend(const bal__part_curve *cv, int dim, uint64_t base, int l, uint64_t a,
                    uint64_t b, int part, blocks *out) {
  uint64_t size = (uint64_t)1 << (dim * l);
  if (base >= b || base + size <= a) return;
  if (a <= base && base + size <= b) {
    if (out->n == out->cap) {
      out->cap = out->cap ? 2 * out->cap : 1024;
      out->b = realloc(out->b, (size_t)out->cap * sizeof *out->b);
      assert_non_null(out->b);
    }
    block *k = &out->b[out->n++];
    cv->cell(dim, base, k->lo);
    for (int d = 0; d < dim; d++) k->lo[d] &= ~((1u << l) - 1);
    k->side = (int64_t)1 << l;
    k->part = part;
    return;
  }
  for (uint64_t i = 0; i < ((uint64_t)1 << dim); i++)
    descend(cv, dim, base + i * (size >> dim), l - 1, a, b, part, out);
}

/* Random items at the full resolution, small P: every pair of blocks of
 * two parts compared, closed boxes [lo, lo + side]. */
static void random_brute_force(void **state) {
  (void)state;
  enum { N = 300 };
  double coords[N * 3], w[N];
  int part[N];
  bal__rng rng;
  bal__rng_seed(&rng, 9);
  for (int c = 0; c < 2; c++) {
    const bal__part_curve *cv = curve_of(curves[c]);
    for (int dim = 2; dim <= 3; dim++) {
      for (int trial = 0; trial < 6; trial++) {
        int parts = 2 + (int)(bal__rng_next(&rng) % 11);
        pc_points(&rng, dim, N, coords, w);
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = curves[c];
        cfg.parts = parts;
        bal_partition_input in = {dim, {0, 0, 0}, {1, 1, 1}, N, coords, w, NULL};
        bal_partition_result *r = NULL;
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
        pc_check_result(&in, parts, part, r);
        blocks all = {NULL, 0, 0};
        for (int k = 0; k < parts; k++) {
          bal_partition_region g;
          assert_int_equal(bal_partition_region_get(r, k, &g), BAL_OK);
          descend(cv, dim, 0, BITS, g.key_lo, g.key_hi, k, &all);
        }
        char *want = calloc((size_t)parts * (size_t)parts, 1);
        assert_non_null(want);
        for (int64_t i = 0; i < all.n; i++)
          for (int64_t j = i + 1; j < all.n; j++) {
            const block *x = &all.b[i], *y = &all.b[j];
            if (x->part == y->part) continue;
            bool touch = true;
            for (int d = 0; d < dim && touch; d++)
              touch = (int64_t)x->lo[d] <= (int64_t)y->lo[d] + y->side &&
                      (int64_t)y->lo[d] <= (int64_t)x->lo[d] + x->side;
            if (touch) {
              want[(size_t)x->part * (size_t)parts + (size_t)y->part] = 1;
              want[(size_t)y->part * (size_t)parts + (size_t)x->part] = 1;
            }
          }
        char *got = listed_matrix(r, parts);
        char what[64];
        snprintf(what, sizeof what, "%s %d-D random P=%d", curves[c], dim, parts);
        expect_equal(what, want, got, parts);
        free(want);
        free(got);
        free(all.b);
        bal_partition_result_destroy(r);
      }
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(keys_and_cells),
      cmocka_unit_test(grid_exact),
      cmocka_unit_test(random_brute_force),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
