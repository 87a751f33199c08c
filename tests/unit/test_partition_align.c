/* partition: the curve strings' cuts moved to compact pieces within the
 * tolerance (src/partition/cut_align.c). On a grid of 2^k cells with
 * nearly uniform weights every piece becomes an aligned square (cube),
 * and its region of curve keys that square's block, where the
 * best-balanced cuts are ragged; on random items the heaviest
 * piece stays within (1 + tolerance) of the best cuts' and every cut
 * within tolerance of the best in weight; tolerance 0 keeps the best. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/partition.h>

#include "partition_check.h"

/* Weight of each part; returns the heaviest. */
static double loads(int64_t n, const double *w, int parts, const int *part, double *load) {
  double worst = 0.0;
  for (int k = 0; k < parts; k++) load[k] = 0.0;
  for (int64_t i = 0; i < n; i++) load[part[i]] += w ? w[i] : 1.0;
  for (int k = 0; k < parts; k++) worst = fmax(worst, load[k]);
  return worst;
}

/* How many parts are an axis-aligned box of side `side` cells, full. */
static int square_parts(int dim, const int64_t cells[3], int parts, const int *part, int side) {
  int64_t n = cells[0] * cells[1] * (dim == 3 ? cells[2] : 1);
  int64_t *lo = malloc((size_t)parts * 3 * sizeof *lo), *hi = malloc((size_t)parts * 3 * sizeof *hi);
  int64_t *count = calloc((size_t)parts, sizeof *count);
  assert_true(lo && hi && count);
  for (int k = 0; k < parts * 3; k++) lo[k] = INT64_MAX, hi[k] = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % cells[0], (i / cells[0]) % cells[1], i / (cells[0] * cells[1])};
    int k = part[i];
    count[k]++;
    for (int d = 0; d < dim; d++) {
      if (c[d] < lo[k * 3 + d]) lo[k * 3 + d] = c[d];
      if (c[d] > hi[k * 3 + d]) hi[k * 3 + d] = c[d];
    }
  }
  int squares = 0;
  for (int k = 0; k < parts; k++) {
    bool ok = count[k] == (dim == 3 ? (int64_t)side * side * side : (int64_t)side * side);
    for (int d = 0; d < dim; d++) ok = ok && hi[k * 3 + d] - lo[k * 3 + d] + 1 == side;
    squares += ok;
  }
  free(lo);
  free(hi);
  free(count);
  return squares;
}

/* 64 x 64 cells into 16 parts (16 x 16 x 16 into 8), weights 1 to 1.3
 * at random: the best cuts fall a few cells off the squares' corners;
 * within the default tolerance every piece is a square (cube). */
static void aligned_squares(void **state) {
  (void)state;
  for (int dim = 2; dim <= 3; dim++) {
    int64_t cells[3] = {dim == 2 ? 64 : 16, dim == 2 ? 64 : 16, dim == 2 ? 1 : 16};
    int64_t n = cells[0] * cells[1] * cells[2];
    int parts = dim == 2 ? 16 : 8, side = dim == 2 ? 16 : 8;
    double *coords = malloc((size_t)n * dim * sizeof *coords), *w = malloc((size_t)n * sizeof *w);
    int *part = malloc((size_t)n * sizeof *part);
    assert_true(coords && w && part);
    pc_grid_coords(dim, cells, coords);
    for (uint64_t seed = 1; seed <= 5; seed++) {
      bal__rng rng;
      bal__rng_seed(&rng, seed);
      for (int64_t i = 0; i < n; i++) w[i] = 1.0 + 0.3 * (double)(bal__rng_next(&rng) >> 11) * 0x1p-53;
      bal_partition_input in = {.dim = dim, .n = n, .coords = coords, .weights = w};
      for (int d = 0; d < dim; d++) in.hi[d] = (double)cells[d];
      for (int m = 0; m < 2; m++) {
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = bal_partition_method_name(m); /* hilbert, morton */
        cfg.parts = parts;
        bal_partition_result *r = NULL;
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &r), BAL_OK);
        pc_check_result(&in, parts, part, r);
        /* regions of whole blocks too: a square's side is cells/side of the
         * domain, 2^(bits - log2(cells/side)) curve cells */
        int level = BAL_PARTITION_CURVE_BITS - (dim == 2 ? 2 : 1);
        uint64_t block = (uint64_t)1 << (dim * level);
        for (int k = 0; k < parts; k++) {
          bal_partition_region g;
          assert_int_equal(bal_partition_region_get(r, k, &g), BAL_OK);
          assert_true(g.key_lo % block == 0 && g.key_hi - g.key_lo == block);
        }
        bal_partition_result_destroy(r);
        assert_int_equal(square_parts(dim, cells, parts, part, side), parts);
        cfg.tolerance = 0.0; /* the best cuts: ragged */
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_OK);
        assert_true(square_parts(dim, cells, parts, part, side) < parts);
      }
    }
    free(coords);
    free(w);
    free(part);
  }
}

/* Random items, every P up to 40 and a few tolerances: the heaviest piece
 * within (1 + tol) of the best cuts' (tolerance 0), and the weight before
 * every cut (parts are labelled in curve order) within tol times that of
 * the best cuts'. */
static void within_tolerance(void **state) {
  (void)state;
  const int64_t n = 3000;
  const double tols[] = {0.01, 0.04, 0.2};
  double *coords = malloc((size_t)n * 3 * sizeof *coords), *w = malloc((size_t)n * sizeof *w);
  int *part = malloc((size_t)n * sizeof *part);
  double *best = malloc(40 * sizeof *best), *got = malloc(40 * sizeof *got);
  assert_true(coords && w && part && best && got);
  for (int dim = 2; dim <= 3; dim++)
    for (int parts = 2; parts <= 40; parts += 3) {
      bal__rng rng;
      bal__rng_seed(&rng, (uint64_t)(dim * 100 + parts));
      pc_points(&rng, dim, n, coords, w);
      bal_partition_input in = {.dim = dim, .n = n, .coords = coords, .weights = w,
                                .hi = {1.0, 1.0, 1.0}};
      for (int m = 0; m < 2; m++) {
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = bal_partition_method_name(m);
        cfg.parts = parts;
        cfg.tolerance = 0.0;
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_OK);
        double bottleneck = loads(n, w, parts, part, best);
        for (int t = 0; t < 3; t++) {
          cfg.tolerance = tols[t];
          assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, NULL), BAL_OK);
          double worst = loads(n, w, parts, part, got);
          assert_true(worst <= (1.0 + tols[t]) * bottleneck * (1.0 + 1e-12));
          double sb = 0.0, sg = 0.0;
          for (int k = 0; k + 1 < parts; k++) {
            sb += best[k];
            sg += got[k];
            assert_true(fabs(sg - sb) <= tols[t] * bottleneck * (1.0 + 1e-12) + 1e-9);
          }
        }
      }
    }
  free(coords);
  free(w);
  free(part);
  free(best);
  free(got);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(aligned_squares),
      cmocka_unit_test(within_tolerance),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
