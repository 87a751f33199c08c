/* partition/wire.h: a result packed on one process and rebuilt on another
 * from the buffer and the items' parts is the same handle (regions,
 * neighbours, exports and imports), for every method, in 2-D and 3-D,
 * fresh and from a previous decomposition; a damaged buffer is refused
 * with BAL_EFORMAT and builds nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/partition.h>

#include "partition/wire.h"
#include "partition_check.h"

static const char *const methods[] = {"rcb", "tensor", "staggered", "hilbert", "morton"};

static void expect_same(const bal_partition_result *a, const bal_partition_result *b) {
  int p = bal_partition_result_parts(a);
  assert_int_equal(bal_partition_result_parts(b), p);
  assert_string_equal(bal_partition_result_method(a), bal_partition_result_method(b));
  for (int k = 0; k < p; k++) {
    bal_partition_region ra, rb;
    assert_int_equal(bal_partition_region_get(a, k, &ra), BAL_OK);
    assert_int_equal(bal_partition_region_get(b, k, &rb), BAL_OK);
    assert_memory_equal(&ra, &rb, sizeof ra);
    const int *na, *nb;
    int cn = bal_partition_neighbors(a, k, &na);
    assert_int_equal(bal_partition_neighbors(b, k, &nb), cn);
    if (cn > 0) assert_memory_equal(na, nb, (size_t)cn * sizeof *na);
    const bal_partition_transfer *ea, *eb;
    int ce = bal_partition_exports(a, k, &ea);
    assert_int_equal(bal_partition_exports(b, k, &eb), ce);
    for (int j = 0; j < ce; j++) {
      assert_int_equal(ea[j].from, eb[j].from);
      assert_int_equal(ea[j].to, eb[j].to);
      assert_int_equal(ea[j].count, eb[j].count);
      assert_memory_equal(ea[j].items, eb[j].items, (size_t)ea[j].count * sizeof *ea[j].items);
    }
    const bal_partition_transfer *const *ia, *const *ib;
    int ci = bal_partition_imports(a, k, &ia);
    assert_int_equal(bal_partition_imports(b, k, &ib), ci);
    for (int j = 0; j < ci; j++) {
      assert_int_equal(ia[j]->from, ib[j]->from);
      assert_int_equal(ia[j]->count, ib[j]->count);
    }
  }
}

/* Pack r, rebuild it from the buffer and the parts, compare; then damage
 * the copy in a few ways, each refused. Returns the rebuilt handle. */
static bal_partition_result *round_trip(const bal_partition_input *in, const int *part,
                       const bal_partition_result *r) {
  size_t size = bal__partition_wire_size(r);
  unsigned char *buf = malloc(size);
  assert_non_null(buf);
  bal__partition_wire_pack(r, buf);
  bal_partition_result *back = NULL;
  assert_int_equal(bal__partition_wire_unpack(buf, size, in->n, in->from, part, &back), BAL_OK);
  expect_same(r, back);
  bal_partition_result *rebuilt = back;

  back = NULL;
  assert_int_equal(bal__partition_wire_unpack(buf, size - 1, in->n, in->from, part, &back),
                   BAL_EFORMAT);
  if (in->from) /* owners without parts */
    assert_int_equal(bal__partition_wire_unpack(buf, size, in->n, in->from, NULL, &back),
                     BAL_EFORMAT);
  unsigned char *bad = malloc(size);
  assert_non_null(bad);
  memcpy(bad, buf, size);
  bad[0] ^= 0x5a; /* the magic */
  assert_int_equal(bal__partition_wire_unpack(bad, size, in->n, in->from, part, &back),
                   BAL_EFORMAT);
  int p = bal_partition_result_parts(r);
  if (in->from) { /* an item's part out of range */
    int *wrong = malloc((size_t)in->n * sizeof *wrong);
    assert_non_null(wrong);
    memcpy(wrong, part, (size_t)in->n * sizeof *wrong);
    wrong[in->n / 2] = p;
    assert_int_equal(bal__partition_wire_unpack(buf, size, in->n, in->from, wrong, &back),
                     BAL_EFORMAT);
    free(wrong);
  }
  assert_null(back);
  free(bad);
  free(buf);
  return rebuilt;
}

static void every_method(void **state) {
  (void)state;
  bal__rng rng;
  bal__rng_seed(&rng, 7);
  for (int dim = 2; dim <= 3; dim++) {
    const int64_t n = 3000;
    double *xyz = malloc((size_t)(n * dim) * sizeof *xyz), *w = malloc((size_t)n * sizeof *w);
    int *from = malloc((size_t)n * sizeof *from), *part = malloc((size_t)n * sizeof *part);
    assert_true(xyz && w && from && part);
    pc_points(&rng, dim, n, xyz, w);
    for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
      for (int parts = 1; parts <= 13; parts += 4) {
        bal_partition_config cfg;
        bal_partition_config_init(&cfg);
        cfg.method = methods[m];
        cfg.parts = parts;
        bal_partition_input in = {.dim = dim, .n = n, .coords = xyz, .weights = w};
        for (int d = 0; d < dim; d++) in.hi[d] = 1.0;
        bal_partition_result *first = NULL, *second = NULL;
        assert_int_equal(bal_partition_compute(&in, &cfg, NULL, part, &first), BAL_OK);
        bal_partition_result *first_copy = round_trip(&in, part, first);
        /* from that decomposition, after the weights changed: the copy
         * as `prev` (its boundaries too) gives the same partition */
        memcpy(from, part, (size_t)n * sizeof *from);
        for (int64_t i = 0; i < n; i++) w[i] = w[i] * 0.5 + (double)(bal__rng_next(&rng) % 4);
        in.from = from;
        int *part_copy = malloc((size_t)n * sizeof *part_copy);
        bal_partition_result *second_copy = NULL;
        assert_non_null(part_copy);
        assert_int_equal(bal_partition_compute(&in, &cfg, first, part, &second), BAL_OK);
        assert_int_equal(bal_partition_compute(&in, &cfg, first_copy, part_copy, &second_copy),
                         BAL_OK);
        assert_memory_equal(part, part_copy, (size_t)n * sizeof *part);
        expect_same(second, second_copy);
        bal_partition_result_destroy(round_trip(&in, part, second));
        bal_partition_result_destroy(first);
        bal_partition_result_destroy(first_copy);
        bal_partition_result_destroy(second);
        bal_partition_result_destroy(second_copy);
        free(part_copy);
      }
    }
    free(xyz);
    free(w);
    free(from);
    free(part);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(every_method)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
