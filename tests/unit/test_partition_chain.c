/* partition: the incremental curve cutter counts the items a choice of
 * cuts moves without a pass over the items (chain_moves.c). Against the
 * count on the items themselves — piece and part of every item, REMAP's
 * relabelling by remap.c — on random chains with integer weights (so that
 * overlaps tie and the tie rules must agree) and zero weights. And its
 * band search (cut_band.c) finds the cuts nearest the current ones within
 * the bound: against every cutting of short chains. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/rng.h"
#include "partition/partition_internal.h"

/* p+1 nondecreasing random cuts from 0 to n (empty parts allowed). */
static void random_cuts(bal__rng *r, int64_t n, int p, int64_t *c) {
  c[0] = 0;
  c[p] = n;
  for (int k = 1; k < p; k++) c[k] = (int64_t)bal__rng_below(r, (uint64_t)n + 1);
  for (int k = 1; k < p; k++) /* insertion sort of the inner cuts */
    for (int q = k; q > 1 && c[q - 1] > c[q]; q--) {
      int64_t t = c[q];
      c[q] = c[q - 1];
      c[q - 1] = t;
    }
}

static void owners(int64_t n, int p, const int64_t *c, int *own) {
  for (int k = 0; k < p; k++)
    for (int64_t i = c[k]; i < c[k + 1]; i++) own[i] = k;
  (void)n;
}

static void counts_match_items(void **state) {
  (void)state;
  enum { MAXN = 300, MAXP = 12 };
  double w[MAXN], pre[MAXN + 1];
  int64_t ref[MAXP + 1], c[MAXP + 1];
  int from[MAXN], piece[MAXN], label[MAXP];
  void *scratch = malloc(bal__part_chain_scratch(MAXP));
  assert_non_null(scratch);
  bal__rng r;
  bal__rng_seed(&r, 28);
  int64_t relabelled = 0;
  for (int round = 0; round < 3000; round++) {
    int64_t n = 1 + (int64_t)bal__rng_below(&r, MAXN);
    int p = 1 + (int)bal__rng_below(&r, MAXP);
    int kind = round % 3; /* unit, small integers, with zeros */
    pre[0] = 0.0;
    for (int64_t i = 0; i < n; i++) {
      w[i] = kind == 0 ? 1.0 : (double)bal__rng_below(&r, kind == 1 ? 4 : 2) + (kind == 1);
      pre[i + 1] = pre[i] + w[i];
    }
    random_cuts(&r, n, p, ref);
    /* a nearby cutting half of the time, so that most pairs overlap well */
    if (round % 2) {
      for (int k = 1; k < p; k++) {
        int64_t d = (int64_t)bal__rng_below(&r, 21) - 10;
        c[k] = ref[k] + d < 0 ? 0 : (ref[k] + d > n ? n : ref[k] + d);
      }
      c[0] = 0;
      c[p] = n;
      for (int k = 1; k < p; k++)
        if (c[k] < c[k - 1]) c[k] = c[k - 1];
    } else {
      random_cuts(&r, n, p, c);
    }
    owners(n, p, ref, from);
    owners(n, p, c, piece);
    int64_t fixed = 0;
    for (int64_t i = 0; i < n; i++) fixed += piece[i] != from[i];
    assert_int_equal(bal__part_chain_moved(pre, p, ref, c, false, scratch), fixed);
    for (int k = 0; k < p; k++) label[k] = k;
    assert_int_equal(bal__part_remap(n, kind == 0 ? NULL : w, from, piece, p, label), BAL_OK);
    int64_t moved = 0;
    for (int64_t i = 0; i < n; i++) moved += label[piece[i]] != from[i];
    relabelled += moved < fixed;
    assert_int_equal(bal__part_chain_moved(pre, p, ref, c, true, scratch), moved);
  }
  /* the relabelling mattered in some rounds, or the test proves little */
  assert_true(relabelled > 100);
  free(scratch);
}

/* Every nondecreasing cutting of [0, n] into p pieces each within cap and
 * each inner cut within d of ref[k]: the least sum of |c[k] - ref[k]|
 * (-1: none fits). */
static int64_t nearest_by_enumeration(const double *pre, int64_t n, int p, const int64_t *ref,
                                      double cap, int64_t d, int k, int64_t *c, int64_t sum) {
  if (k == p) return pre[n] - pre[c[p - 1]] <= cap ? sum : -1;
  int64_t best = -1;
  for (int64_t x = c[k - 1]; x <= n && pre[x] - pre[c[k - 1]] <= cap; x++) {
    if (x < ref[k] - d || x > ref[k] + d) continue;
    c[k] = x;
    int64_t s = nearest_by_enumeration(pre, n, p, ref, cap, d, k + 1, c,
                                       sum + (x > ref[k] ? x - ref[k] : ref[k] - x));
    if (s >= 0 && (best < 0 || s < best)) best = s;
  }
  return best;
}

/* The band search (cut_band.c) against every cutting of short chains:
 * bands of one to three items around the current cuts (clipped at the
 * chain's ends, some with no cutting inside) and the whole chain. */
static void band_finds_the_nearest_cuts(void **state) {
  (void)state;
  enum { MAXN = 14, MAXP = 5 };
  double pre[MAXN + 1];
  int64_t ref[MAXP + 1], c[MAXP + 1], e[MAXP + 1];
  bal__rng r;
  bal__rng_seed(&r, 29);
  int feasible = 0, infeasible = 0, narrow = 0;
  for (int round = 0; round < 8000; round++) {
    int64_t n = 1 + (int64_t)bal__rng_below(&r, MAXN);
    int p = 2 + (int)bal__rng_below(&r, MAXP - 1);
    pre[0] = 0.0;
    for (int64_t i = 0; i < n; i++) /* zeros, and ties of equal weights */
      pre[i + 1] = pre[i] + (double)bal__rng_below(&r, 4);
    random_cuts(&r, n, p, ref);
    /* from below the average piece (nothing fits) to well above it */
    double cap = pre[n] / p * (0.8 + 0.6 * (double)bal__rng_below(&r, 1000) / 1000.0);
    int64_t d = round % 2 ? n : 1 + (int64_t)bal__rng_below(&r, 3);
    bool found = true;
    if (round % 2)
      assert_int_equal(bal__part_cut_band(pre, n, p, ref, cap, INT64_MAX, c, &found), BAL_OK);
    else
      assert_int_equal(bal__part_cut_band_d(pre, n, p, ref, cap, d, c, &found), BAL_OK);
    e[0] = 0;
    int64_t best = nearest_by_enumeration(pre, n, p, ref, cap, d, 1, e, 0);
    assert_int_equal(found, best >= 0);
    if (!found) {
      infeasible++;
      continue;
    }
    feasible++;
    narrow += d < n;
    int64_t sum = 0;
    assert_int_equal(c[0], 0);
    assert_int_equal(c[p], n);
    for (int k = 0; k < p; k++) {
      assert_true(c[k] <= c[k + 1]);
      assert_true(pre[c[k + 1]] - pre[c[k]] <= cap);
      assert_true(c[k] >= ref[k] - d && c[k] <= ref[k] + d);
      sum += c[k] > ref[k] ? c[k] - ref[k] : ref[k] - c[k];
    }
    assert_int_equal(sum, best);
    if (d == n) { /* no cut of the nearest cutting lies further than its sum */
      assert_int_equal(bal__part_cut_band(pre, n, p, ref, cap, best, e, &found), BAL_OK);
      int64_t again = 0;
      for (int k = 1; k < p; k++) again += e[k] > ref[k] ? e[k] - ref[k] : ref[k] - e[k];
      assert_true(found || best == 0);
      if (found) assert_int_equal(again, best);
    }
  }
  assert_true(feasible > 1000 && infeasible > 100 && narrow > 500);
  /* nothing to search: one part, no items, no band, a reference that does
   * not span the chain */
  pre[0] = 0.0;
  pre[1] = 1.0;
  pre[2] = 2.0;
  int64_t whole[3] = {0, 1, 2}, skew[3] = {1, 1, 2};
  bool found = true;
  assert_int_equal(bal__part_cut_band_d(pre, 2, 1, whole, 10.0, 1, c, &found), BAL_OK);
  assert_false(found);
  assert_int_equal(bal__part_cut_band_d(pre, 0, 2, whole, 10.0, 1, c, &found), BAL_OK);
  assert_false(found);
  assert_int_equal(bal__part_cut_band_d(pre, 2, 2, whole, 10.0, 0, c, &found), BAL_OK);
  assert_false(found);
  assert_int_equal(bal__part_cut_band_d(pre, 2, 2, skew, 10.0, 1, c, &found), BAL_OK);
  assert_false(found);
  assert_int_equal(bal__part_cut_band_d(pre, 2, 2, whole, 1.0, 1, c, &found), BAL_OK);
  assert_true(found && c[1] == 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(counts_match_items),
      cmocka_unit_test(band_finds_the_nearest_cuts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
