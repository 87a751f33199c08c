/* partition: the invariants of every method on random items (ownership,
 * regions, neighbours, import/export lists), the curves' orders, the
 * quality figures on hand-counted grids, and bad input that must change
 * nothing. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/partition.h>

#ifdef MPI_VERSION
#error "this test is compiled without <mpi.h>: partition.h must not include it"
#endif

#include "partition_check.h"

static int nmethods(void) {
  int m = 0;
  while (bal_partition_method_name(m)) m++;
  return m;
}

static void method_names(void **state) {
  (void)state;
  const char *want[] = {"hilbert", "morton", "rcb", "tensor", "staggered"};
  assert_int_equal(nmethods(), 5);
  for (int i = 0; i < 5; i++) assert_string_equal(bal_partition_method_name(i), want[i]);
  assert_null(bal_partition_method_name(-1));
  assert_null(bal_partition_method_name(5));
}

/* Every method, 2-D and 3-D, every P from 1 to 64, two seeds, with and
 * without weights and current owners, and a second step from the first. */
static void invariants_random(void **state) {
  (void)state;
  const int64_t n = 400;
  double *coords = malloc((size_t)n * 3 * sizeof *coords);
  double *w = malloc((size_t)n * sizeof *w);
  int *from = malloc((size_t)n * sizeof *from);
  int *part = malloc((size_t)n * sizeof *part);
  assert_true(coords && w && from && part);
  for (uint64_t seed = 1; seed <= 2; seed++) {
    for (int dim = 2; dim <= 3; dim++) {
      for (int p = 1; p <= 64; p++) {
        bal__rng rng;
        bal__rng_seed(&rng, seed * 1000 + (uint64_t)(dim * 100 + p));
        pc_points(&rng, dim, n, coords, w);
        for (int64_t i = 0; i < n; i++) from[i] = (int)(bal__rng_next(&rng) % (uint64_t)p);
        for (int m = 0; m < nmethods(); m++) {
          for (int variant = 0; variant < 3; variant++) {
            bal_partition_config cfg;
            bal_partition_config_init(&cfg);
            cfg.method = bal_partition_method_name(m);
            cfg.parts = p;
            bal_partition_input in = {dim, {0, 0, 0}, {1, 1, 1}, n, coords,
                                      variant == 0 ? NULL : w, variant == 2 ? from : NULL};
            bal_partition_result *r = NULL;
            int rc = bal_partition_compute(&in, &cfg, NULL, part, &r);
            if (rc != BAL_OK) fail_msg("%s P=%d dim=%d variant=%d: %d", cfg.method, p, dim, variant, rc);
            pc_check_result(&in, p, part, r);
            if (variant == 2 && m >= 3) {
              /* the next step of a box method from this one, with prev */
              int *next = malloc((size_t)n * sizeof *next);
              assert_non_null(next);
              for (int64_t i = 0; i < n; i++) w[i] *= 1.0 + 0.1 * (double)(i % 3);
              bal_partition_input in2 = in;
              in2.from = part;
              bal_partition_result *r2 = NULL;
              assert_int_equal(bal_partition_compute(&in2, &cfg, r, next, &r2), BAL_OK);
              pc_check_result(&in2, p, next, r2);
              bal_partition_result_destroy(r2);
              free(next);
            }
            bal_partition_result_destroy(r);
          }
        }
      }
    }
  }
  free(coords);
  free(w);
  free(from);
  free(part);
}

/* Boxes that touch by a corner are neighbours: a 3 x 3 x 3 grid of boxes
 * gives the middle one 26, a corner one 7; rcb's 2 x 2 x 2 gives 7 each. */
static void neighbors_26(void **state) {
  (void)state;
  const int64_t cells[3] = {6, 6, 6};
  double coords[216 * 3];
  pc_grid_coords(3, cells, coords);
  int part[216];
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  bal_partition_input in = {3, {0, 0, 0}, {6, 6, 6}, 216, coords, NULL, NULL};
  const char *grid_methods[] = {"tensor", "staggered"};
  for (int m = 0; m < 2; m++) {
    cfg.method = grid_methods[m];
    cfg.parts = 27;
    bal_partition_result *r = NULL;
    assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
    pc_check_result(&in, 27, part, r);
    assert_int_equal(bal_partition_neighbors(r, 13, NULL), 26); /* (1, 1, 1) */
    assert_int_equal(bal_partition_neighbors(r, 0, NULL), 7);
    for (int i = 0; i < 216; i++) { /* 2 x 2 x 2 cells per box */
      int x = i % 6 / 2, y = i / 6 % 6 / 2, z = i / 36 / 2;
      assert_int_equal(part[i], x + 3 * (y + 3 * z));
    }
    bal_partition_result_destroy(r);
  }
  cfg.method = "rcb";
  cfg.parts = 8;
  bal_partition_result *r = NULL;
  assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
  pc_check_result(&in, 8, part, r);
  for (int k = 0; k < 8; k++) assert_int_equal(bal_partition_neighbors(r, k, NULL), 7);
  bal_partition_result_destroy(r);
}

/* Items at the centres of a side^dim grid (64 cells), one per part: the
 * parts in label order follow the curve, and Hilbert's consecutive cells
 * share a face. */
static void hilbert_steps_are_faces(int dim, int side) {
  const int64_t cells[3] = {side, side, dim == 3 ? side : 1};
  double coords[64 * 3];
  pc_grid_coords(dim, cells, coords);
  int part[64], at[64];
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.method = "hilbert";
  cfg.parts = 64;
  bal_partition_input in = {dim, {0, 0, 0}, {side, side, side}, 64, coords, NULL, NULL};
  assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_OK);
  for (int i = 0; i < 64; i++) at[part[i]] = i;
  for (int k = 0; k + 1 < 64; k++) {
    int a = at[k], b = at[k + 1], d = 0;
    for (int stride = 1; stride < 64; stride *= side) d += abs(a / stride % side - b / stride % side);
    assert_int_equal(d, 1);
  }
}

static void hilbert_cells_adjacent(void **state) {
  (void)state;
  hilbert_steps_are_faces(2, 8);
  hilbert_steps_are_faces(3, 4);
}

/* Morton order on a 4 x 4 grid: the cell whose interleaved bits (x low)
 * are k is the k-th. */
static void morton_order(void **state) {
  (void)state;
  const int64_t cells[3] = {4, 4, 1};
  double coords[16 * 2];
  pc_grid_coords(2, cells, coords);
  int part[16];
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.method = "morton";
  cfg.parts = 16;
  bal_partition_input in = {2, {0, 0, 0}, {4, 4, 0}, 16, coords, NULL, NULL};
  assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_OK);
  for (int i = 0; i < 16; i++) {
    int x = i % 4, y = i / 4, key = 0;
    for (int b = 0; b < 2; b++) key |= ((x >> b) & 1) << (2 * b) | ((y >> b) & 1) << (2 * b + 1);
    assert_int_equal(part[i], key);
  }
}

/* Quality on hand-counted grids. */
static void grid_quality_counts(void **state) {
  (void)state;
  /* 4 x 4, left and right halves: 4 cut faces, one neighbour each */
  const int64_t c2[3] = {4, 4, 0};
  int part[16];
  double w[16];
  for (int i = 0; i < 16; i++) {
    part[i] = i % 4 < 2 ? 0 : 1;
    w[i] = part[i] ? 3.0 : 1.0;
  }
  bal_partition_quality q;
  assert_int_equal(bal_partition_grid_quality(2, c2, 16, w, 3, part, &q), BAL_OK);
  assert_int_equal(q.halo_faces, 4);
  assert_int_equal(q.neighbors_max, 1);
  assert_true(fabs(q.neighbors_avg - 2.0 / 3.0) < 1e-12);
  assert_int_equal(q.empty_parts, 1);
  assert_true(fabs(q.max_weight - 24.0) < 1e-12);
  assert_true(fabs(q.imbalance - 24.0 / (32.0 / 3.0)) < 1e-12);
  /* 2 x 2 x 2, one part per cell: 12 faces, 3 face neighbours each */
  const int64_t c3[3] = {2, 2, 2};
  int p8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  assert_int_equal(bal_partition_grid_quality(3, c3, 8, NULL, 8, p8, &q), BAL_OK);
  assert_int_equal(q.halo_faces, 12);
  assert_int_equal(q.neighbors_max, 3);
  assert_true(fabs(q.neighbors_avg - 3.0) < 1e-12);
  assert_true(fabs(q.imbalance - 1.0) < 1e-12);
  /* zero weight: imbalance is not a number */
  double z[8] = {0};
  assert_int_equal(bal_partition_grid_quality(3, c3, 8, z, 8, p8, &q), BAL_OK);
  assert_true(isnan(q.imbalance));
  /* bad: cell count disagrees, owner out of range, NaN weight */
  bal_partition_quality keep = {.imbalance = 42.0};
  q = keep;
  assert_int_equal(bal_partition_grid_quality(3, c3, 9, NULL, 8, p8, &q), BAL_EINVAL);
  assert_int_equal(bal_partition_grid_quality(3, c3, 8, NULL, 7, p8, &q), BAL_EINVAL);
  z[3] = NAN;
  assert_int_equal(bal_partition_grid_quality(3, c3, 8, z, 8, p8, &q), BAL_EINVAL);
  const int64_t huge[3] = {INT64_MAX / 2, 4, 1};
  assert_int_equal(bal_partition_grid_quality(2, huge, 8, NULL, 8, p8, &q), BAL_ERANGE);
  assert_true(q.imbalance == 42.0);
}

static void moved_counts(void **state) {
  (void)state;
  int a[5] = {0, 1, 2, 3, 4}, b[5] = {0, 2, 2, 0, 4};
  double w[5] = {1, 2, 3, 4, 5};
  int64_t items = -1;
  double weight = -1;
  assert_int_equal(bal_partition_moved(5, w, a, b, &items, &weight), BAL_OK);
  assert_int_equal(items, 2);
  assert_true(weight == 6.0);
  assert_int_equal(bal_partition_moved(5, NULL, a, b, NULL, &weight), BAL_OK);
  assert_true(weight == 2.0);
  w[2] = -1.0;
  assert_int_equal(bal_partition_moved(5, w, a, b, &items, &weight), BAL_EINVAL);
  assert_int_equal(items, 2);
  assert_int_equal(bal_partition_moved(-1, NULL, a, b, &items, NULL), BAL_EINVAL);
  assert_int_equal(bal_partition_moved(1, NULL, NULL, b, &items, NULL), BAL_EINVAL);
}

/* Bad input: each case returns its code and writes neither part nor out. */
static void bad_input_untouched(void **state) {
  (void)state;
  enum { N = 50 };
  double coords[N * 3], w[N];
  int from[N], part[N];
  bal__rng rng;
  bal__rng_seed(&rng, 7);
  pc_points(&rng, 3, N, coords, w);
  for (int i = 0; i < N; i++) from[i] = i % 4;
  for (int m = 0; m < nmethods(); m++) {
    for (int c = 0; c < 24; c++) {
      bal_partition_config cfg;
      bal_partition_config_init(&cfg);
      cfg.method = bal_partition_method_name(m);
      cfg.parts = 4;
      bal_partition_input in = {3, {0, 0, 0}, {1, 1, 1}, N, coords, w, from};
      double saved_c = coords[7], saved_w = w[5];
      int saved_f = from[3];
      int want = BAL_EINVAL;
      switch (c) {
      case 0: w[5] = NAN; break;
      case 1: w[5] = INFINITY; break;
      case 2: w[5] = -1.0; break;
      case 3: coords[7] = 1.5; break;          /* outside the domain */
      case 4: coords[7] = NAN; break;
      case 5: cfg.parts = 0; break;
      case 6: cfg.parts = N + 1; break;        /* more parts than items */
      case 7: in.dim = 1; break;
      case 8: in.dim = 4; break;
      case 9: from[3] = 4; break;              /* owner out of range */
      case 10: from[3] = -1; break;
      case 11: in.hi[1] = -1.0; break;         /* hi < lo */
      case 12: in.lo[0] = -INFINITY; break;
      case 13: in.n = 0; break;
      case 14: in.coords = NULL; break;
      case 15: cfg.method = "voronoi"; break;
      case 16: cfg.method = NULL; break;
      case 17: cfg.tolerance = -0.1; break;
      case 18: cfg.max_move_fraction = 1.5; break;
      case 19: cfg.min_extent[2] = NAN; break;
      case 20: cfg.grid[0] = -1; break;
      case 21: /* a grid whose product is not P (box methods use it) */
        cfg.grid[0] = 3;
        cfg.grid[1] = 1;
        cfg.grid[2] = 1;
        if (strcmp(cfg.method, "tensor") && strcmp(cfg.method, "staggered")) want = BAL_OK;
        break;
      case 22: /* a minimum extent the domain cannot hold */
        cfg.min_extent[0] = cfg.min_extent[1] = cfg.min_extent[2] = 0.6;
        if (!strcmp(cfg.method, "hilbert") || !strcmp(cfg.method, "morton")) want = BAL_OK;
        break;
      case 23: cfg.parts = BAL_PARTITION_MAX_PARTS + 1; break;
      }
      for (int i = 0; i < N; i++) part[i] = -7;
      bal_partition_result *sentinel = (bal_partition_result *)&rng, *r = sentinel;
      int rc = bal_partition_compute(&in, &cfg, NULL, part, &r);
      if (rc != want) fail_msg("%s case %d: %d, want %d", cfg.method, c, rc, want);
      if (want != BAL_OK) {
        assert_ptr_equal(r, sentinel);
        for (int i = 0; i < N; i++) assert_int_equal(part[i], -7);
      } else {
        bal_partition_result_destroy(r);
      }
      coords[7] = saved_c;
      w[5] = saved_w;
      from[3] = saved_f;
    }
  }
  /* NULL arguments, and a prev of another method */
  bal_partition_input in = {3, {0, 0, 0}, {1, 1, 1}, N, coords, w, from};
  assert_int_equal(bal_partition_compute(NULL, NULL, NULL, part, NULL), BAL_EINVAL);
  assert_int_equal(bal_partition_compute(&in, NULL, NULL, NULL, NULL), BAL_EINVAL);
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.parts = 4;
  cfg.method = "tensor";
  bal_partition_result *prev = NULL;
  assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &prev), BAL_OK);
  cfg.method = "staggered";
  for (int i = 0; i < N; i++) part[i] = -7;
  assert_int_equal(bal_partition_compute(&in, &cfg, prev, part, NULL), BAL_EINVAL);
  cfg.method = "tensor";
  in.hi[0] = 2.0; /* another domain */
  assert_int_equal(bal_partition_compute(&in, &cfg, prev, part, NULL), BAL_EINVAL);
  for (int i = 0; i < N; i++) assert_int_equal(part[i], -7);
  bal_partition_result_destroy(prev);
  /* accessors on NULL and out of range */
  assert_int_equal(bal_partition_result_parts(NULL), 0);
  assert_null(bal_partition_result_method(NULL));
  bal_partition_region g;
  assert_int_equal(bal_partition_region_get(NULL, 0, &g), BAL_EINVAL);
  assert_int_equal(bal_partition_neighbors(NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_partition_exports(NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_partition_imports(NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_partition_config_init(NULL), BAL_EINVAL);
  bal_partition_result_destroy(NULL);
}

/* A cut the minimum extent pins to its limit when the weight would put no
 * item (or every item) on one side: one item holding most of the weight
 * lies below the limit, so the plane moves past it and that item must go
 * with the lower part, whose box now holds it (rcb once left it above,
 * outside its box). */
static void min_extent_heavy_item_below_limit(void **state) {
  (void)state;
  enum { N = 10 };
  double coords[N * 2], w[N];
  int part[N];
  for (int i = 0; i < N; i++) {
    coords[2 * i] = i == 0 ? 0.05 : 0.5 + 0.04 * i;
    coords[2 * i + 1] = 0.1 * i + 0.05;
    w[i] = i == 0 ? 30.0 : 1.0;
  }
  for (int p = 2; p <= 4; p++) {
    bal_partition_config cfg;
    bal_partition_config_init(&cfg);
    cfg.method = "rcb";
    cfg.parts = p;
    cfg.min_extent[0] = 0.2;
    bal_partition_input in = {2, {0, 0, 0}, {1, 1, 0}, N, coords, w, NULL};
    bal_partition_result *r = NULL;
    assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
    pc_check_result(&in, p, part, r);
    bal_partition_region g;
    assert_int_equal(bal_partition_region_get(r, part[0], &g), BAL_OK);
    assert_true(coords[0] >= g.lo[0] && coords[0] <= g.hi[0]);
    bal_partition_result_destroy(r);
  }
}

/* The minimum extent: respected where the domain holds it. */
static void min_extent_respected(void **state) {
  (void)state;
  enum { N = 2000 };
  double coords[N * 2], w[N];
  int part[N];
  bal__rng rng;
  bal__rng_seed(&rng, 11);
  pc_points(&rng, 2, N, coords, w);
  /* a strong cluster: without the limit some regions would be thin */
  for (int i = 0; i < N / 2; i++) {
    coords[2 * i] = 0.5 + 0.01 * (coords[2 * i] - 0.5);
    coords[2 * i + 1] = 0.5 + 0.01 * (coords[2 * i + 1] - 0.5);
  }
  const char *box[] = {"rcb", "tensor", "staggered"};
  /* 3-D: a cluster in a box; extents 0.2 x 0.25 x 0.3 hold 5 x 4 x 3 = 60 */
  {
    double c3[N * 3];
    pc_points(&rng, 3, N, c3, NULL);
    for (int i = 0; i < N * 3 / 2; i++) c3[i] = 0.5 + 0.01 * (c3[i] - 0.5);
    for (int m = 0; m < 3; m++) {
      for (int p = 5; p <= 36; p += 31) {
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = box[m];
        cfg.parts = p;
        cfg.min_extent[0] = 0.2;
        cfg.min_extent[1] = 0.25;
        cfg.min_extent[2] = 0.3;
        bal_partition_input in = {3, {0, 0, 0}, {1, 1, 1}, N, c3, w, NULL};
        bal_partition_result *r = NULL;
        int rc = bal_partition_compute(&in, &cfg, NULL, part, &r);
        if (rc != BAL_OK) fail_msg("%s P=%d 3-D: %d", box[m], p, rc);
        pc_check_result(&in, p, part, r);
        for (int k = 0; k < p; k++) {
          bal_partition_region g;
          bal_partition_region_get(r, k, &g);
          for (int d = 0; d < 3; d++)
            assert_true(g.hi[d] - g.lo[d] >= cfg.min_extent[d] * (1 - 1e-9));
        }
        bal_partition_result_destroy(r);
      }
    }
  }
  for (int m = 0; m < 3; m++) {
    for (int p = 2; p <= 16; p += 7) {
      bal_partition_config cfg;
      bal_partition_config_init(&cfg);
      cfg.method = box[m];
      cfg.parts = p;
      cfg.min_extent[0] = 0.05;
      cfg.min_extent[1] = 0.04;
      bal_partition_input in = {2, {0, 0, 0}, {1, 1, 0}, N, coords, w, NULL};
      bal_partition_result *r = NULL;
      assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
      pc_check_result(&in, p, part, r);
      for (int k = 0; k < p; k++) {
        bal_partition_region g;
        bal_partition_region_get(r, k, &g);
        for (int d = 0; d < 2; d++) assert_true(g.hi[d] - g.lo[d] >= cfg.min_extent[d] * (1 - 1e-9));
      }
      bal_partition_result_destroy(r);
    }
  }
  /* the limit at its edge: 16 parts of 0.25 x 0.25 fit exactly in the unit square */
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.parts = 16;
  cfg.min_extent[0] = cfg.min_extent[1] = 0.25;
  bal_partition_input in = {2, {0, 0, 0}, {1, 1, 0}, N, coords, w, NULL};
  for (int m = 0; m < 3; m++) {
    cfg.method = box[m];
    bal_partition_result *r = NULL;
    assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
    pc_check_result(&in, 16, part, r);
    for (int k = 0; k < 16; k++) {
      bal_partition_region g;
      bal_partition_region_get(r, k, &g);
      for (int d = 0; d < 2; d++) assert_true(fabs(g.hi[d] - g.lo[d] - 0.25) < 1e-9);
    }
    bal_partition_result_destroy(r);
  }
  /* and beyond it: an error, nothing written */
  cfg.min_extent[0] = 0.26;
  for (int m = 0; m < 3; m++) {
    cfg.method = box[m];
    for (int i = 0; i < N; i++) part[i] = -7;
    assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_EINVAL);
    for (int i = 0; i < N; i++) assert_int_equal(part[i], -7);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(method_names),          cmocka_unit_test(invariants_random),
      cmocka_unit_test(hilbert_cells_adjacent), cmocka_unit_test(morton_order),
      cmocka_unit_test(grid_quality_counts),   cmocka_unit_test(moved_counts),
      cmocka_unit_test(bad_input_untouched),   cmocka_unit_test(min_extent_respected),
      cmocka_unit_test(min_extent_heavy_item_below_limit),
      cmocka_unit_test(neighbors_26),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
