/* rebalance: cuts, targets, shifts and direct plans against brute-force
 * oracles on random inputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/rebalance_plan.h>

#ifdef MPI_VERSION
#error "this test is compiled without <mpi.h>: rebalance_plan.h must not include it"
#endif

#include "core/rng.h"

static int rounds(int base) {
  const char *s = getenv("BALLAST_STRESS_SCALE");
  int k = s ? atoi(s) : 1;
  return base * (k > 0 ? k : 1);
}

/* ---- chains-on-chains: exhaustive over all cut positions ---- */

static double best_rec(const double *pre, int64_t n, int p, const double *s, int k, int64_t at) {
  if (k == p - 1) return (pre[n] - pre[at]) / s[k];
  double best = INFINITY;
  for (int64_t c = at; c <= n; c++) {
    double here = (pre[c] - pre[at]) / s[k];
    if (here >= best) break; /* parts only grow with c */
    double rest = best_rec(pre, n, p, s, k + 1, c);
    best = fmin(best, fmax(here, rest));
  }
  return best;
}

static void cuts_match_oracle(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 42);
  for (int round = 0; round < rounds(3000); round++) {
    int64_t n = (int64_t)bal__rng_below(&r, 11);
    int p = 1 + (int)bal__rng_below(&r, 4);
    double w[16], s[8], pre[17];
    int unit_w = bal__rng_below(&r, 4) == 0, unit_s = bal__rng_below(&r, 3) == 0;
    pre[0] = 0;
    for (int64_t j = 0; j < n; j++) {
      /* integer-ish costs make ties (the hard case for bisection) common */
      w[j] = unit_w ? 1.0
                    : (bal__rng_below(&r, 2) ? (double)bal__rng_below(&r, 5)
                                             : bal__rng_uniform(&r) * 10.0);
      pre[j + 1] = pre[j] + w[j];
    }
    for (int k = 0; k < p; k++) s[k] = unit_s ? 1.0 : 0.25 + bal__rng_uniform(&r) * 3.0;
    int64_t cuts[9];
    double b;
    assert_int_equal(bal_rebalance_cuts(n, unit_w ? NULL : w, p, unit_s ? NULL : s, NULL, cuts, &b),
                     BAL_OK);
    assert_int_equal(cuts[0], 0);
    assert_int_equal(cuts[p], n);
    double mine = 0;
    for (int k = 0; k < p; k++) {
      assert_true(cuts[k] <= cuts[k + 1]);
      mine = fmax(mine, (pre[cuts[k + 1]] - pre[cuts[k]]) / s[k]);
    }
    assert_true(fabs(mine - b) <= 1e-12 * fmax(1.0, b));
    double opt = n == 0 ? 0.0 : best_rec(pre, n, p, s, 0, 0);
    if (!(fabs(b - opt) <= 1e-9 * fmax(1.0, opt)))
      fail_msg("round %d n=%lld p=%d: bottleneck %.17g, optimum %.17g", round, (long long)n, p, b,
               opt);
    /* any reference: still optimal, cuts valid */
    int64_t ref[9], c2[9];
    ref[0] = 0;
    for (int k = 1; k < p; k++) ref[k] = (int64_t)bal__rng_below(&r, (uint64_t)n + 1);
    ref[p] = n;
    for (int k = 1; k < p; k++) /* sort */
      for (int j = k; j > 1 && ref[j] < ref[j - 1]; j--) {
        int64_t x = ref[j];
        ref[j] = ref[j - 1];
        ref[j - 1] = x;
      }
    double b2;
    assert_int_equal(bal_rebalance_cuts(n, unit_w ? NULL : w, p, unit_s ? NULL : s, ref, c2, &b2),
                     BAL_OK);
    assert_true(c2[0] == 0 && c2[p] == n);
    for (int k = 0; k < p; k++) assert_true(c2[k] <= c2[k + 1]);
    assert_true(fabs(b2 - opt) <= 1e-9 * fmax(1.0, opt));
    /* an optimal reference comes back unchanged: nothing needless moves */
    assert_int_equal(bal_rebalance_cuts(n, unit_w ? NULL : w, p, unit_s ? NULL : s, cuts, c2, &b2),
                     BAL_OK);
    for (int k = 0; k <= p; k++) assert_int_equal(c2[k], cuts[k]);
  }
}

/* Unit costs, equal speeds: the optimal partitions include the one that
 * differs by at most one item per part, and that is the one returned. */
static void cuts_default_is_even(void **state) {
  (void)state;
  for (int64_t n = 0; n < 60; n++)
    for (int p = 1; p <= 9; p++) {
      int64_t cuts[10];
      assert_int_equal(bal_rebalance_cuts(n, NULL, p, NULL, NULL, cuts, NULL), BAL_OK);
      for (int k = 0; k < p; k++) {
        int64_t len = cuts[k + 1] - cuts[k];
        assert_true(len == n / p || len == n / p + 1);
      }
    }
  int64_t cuts[3], bad[3] = {0, 2, 1};
  assert_int_equal(bal_rebalance_cuts(2, NULL, 2, NULL, bad, cuts, NULL), BAL_EINVAL);
  bad[1] = 1;
  bad[2] = 3;
  assert_int_equal(bal_rebalance_cuts(2, NULL, 2, NULL, bad, cuts, NULL), BAL_EINVAL);
}

/* The bound the colleague's benchmark checks: max/avg <= 1 + wmax/avg. */
static void cuts_quality_bound_large(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 7);
  int64_t n = 200000;
  double *w = malloc((size_t)n * sizeof *w);
  int64_t *cuts = malloc(4097 * sizeof *cuts);
  assert_non_null(w);
  assert_non_null(cuts);
  double tot = 0, wmax = 0;
  for (int64_t j = 0; j < n; j++) {
    double u = bal__rng_uniform(&r);
    w[j] = u * u * u * 100.0; /* skewed */
    tot += w[j];
    wmax = fmax(wmax, w[j]);
  }
  for (int p = 1; p <= 4096; p *= 4) {
    double b;
    assert_int_equal(bal_rebalance_cuts(n, w, p, NULL, NULL, cuts, &b), BAL_OK);
    double avg = tot / p;
    assert_true(b / avg <= 1.0 + wmax / avg + 1e-12);
    assert_true(b >= avg * (1 - 1e-12));
  }
  free(w);
  free(cuts);
}

/* The same bound on many random chains (sizes, part counts, skew, zero
 * and tied costs, more parts than items), with the loads recomputed from
 * the returned cuts rather than taken from the reported bottleneck. */
static void cuts_quality_bound_random(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 2024);
  enum { NMAX = 3000, PMAX = 700 };
  double *w = malloc(NMAX * sizeof *w);
  int64_t *cuts = malloc((PMAX + 1) * sizeof *cuts);
  assert_non_null(w);
  assert_non_null(cuts);
  for (int round = 0; round < rounds(400); round++) {
    int64_t n = 1 + (int64_t)bal__rng_below(&r, NMAX);
    int p = 1 + (int)bal__rng_below(&r, PMAX);
    int dist = (int)bal__rng_below(&r, 5);
    double tot = 0, wmax = 0;
    for (int64_t j = 0; j < n; j++) {
      double u = 1.0 - bal__rng_uniform(&r);
      switch (dist) {
      case 0: w[j] = u; break;
      case 1: w[j] = u * u * u * 100.0; break;
      case 2: w[j] = pow(u, -1.0 / 1.2); break;            /* heavy tail */
      case 3: w[j] = bal__rng_below(&r, 3) ? 0.0 : 1.0; break; /* zeros and ties */
      default: w[j] = bal__rng_below(&r, 50) ? 1.0 : 1000.0; /* rare spikes */
      }
      tot += w[j];
      wmax = fmax(wmax, w[j]);
    }
    if (tot == 0) continue; /* every load is 0: nothing to bound */
    double b;
    assert_int_equal(bal_rebalance_cuts(n, w, p, NULL, NULL, cuts, &b), BAL_OK);
    assert_int_equal(cuts[0], 0);
    assert_int_equal(cuts[p], n);
    double mx = 0, avg = tot / p;
    for (int k = 0; k < p; k++) {
      assert_true(cuts[k] <= cuts[k + 1]);
      double load = 0;
      for (int64_t j = cuts[k]; j < cuts[k + 1]; j++) load += w[j];
      mx = fmax(mx, load);
    }
    /* summation order differs from the library's prefix sums */
    assert_true(mx / avg <= 1.0 + wmax / avg + 1e-9);
    assert_true(fabs(mx - b) <= 1e-9 * tot);
  }
  free(w);
  free(cuts);
}

static void cuts_bad_args(void **state) {
  (void)state;
  int64_t cuts[3];
  double w[2] = {1, NAN}, s[2] = {1, 0};
  assert_int_equal(bal_rebalance_cuts(2, NULL, 2, NULL, NULL, NULL, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_cuts(-1, NULL, 2, NULL, NULL, cuts, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_cuts(2, NULL, 0, NULL, NULL, cuts, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_cuts(2, w, 2, NULL, NULL, cuts, NULL), BAL_EINVAL);
  assert_int_equal(bal_rebalance_cuts(2, NULL, 2, s, NULL, cuts, NULL), BAL_EINVAL);
  w[1] = -1;
  assert_int_equal(bal_rebalance_cuts(2, w, 2, NULL, NULL, cuts, NULL), BAL_EINVAL);
}

/* ---- integer targets: exhaustive over all vectors with the right sum ---- */

static double opt_targets(int p, int64_t total, const double *rate, int k, int64_t left) {
  if (k == p - 1) return (double)left / rate[k];
  double best = INFINITY;
  for (int64_t c = 0; c <= left; c++)
    best = fmin(best, fmax((double)c / rate[k], opt_targets(p, total, rate, k + 1, left - c)));
  return best;
}

static void targets_match_oracle(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 3);
  for (int round = 0; round < rounds(3000); round++) {
    int p = 1 + (int)bal__rng_below(&r, 5);
    int64_t total = (int64_t)bal__rng_below(&r, 13);
    double rate[5];
    int equal = bal__rng_below(&r, 4) == 0;
    for (int k = 0; k < p; k++)
      rate[k] = equal ? 2.0 : (bal__rng_below(&r, 2) ? 1.0 + (double)bal__rng_below(&r, 3)
                                                     : 0.1 + bal__rng_uniform(&r) * 5);
    int64_t t[5];
    assert_int_equal(bal_rebalance_targets(p, total, rate, t), BAL_OK);
    int64_t sum = 0;
    double mine = 0;
    for (int k = 0; k < p; k++) {
      assert_true(t[k] >= 0);
      sum += t[k];
      mine = fmax(mine, (double)t[k] / rate[k]);
    }
    assert_int_equal(sum, total);
    double opt = opt_targets(p, total, rate, 0, total);
    assert_true(fabs(mine - opt) <= 1e-12 * fmax(1.0, opt));
    if (equal) /* equal rates: counts differ by at most one */
      for (int k = 1; k < p; k++) assert_true(llabs(t[k] - t[0]) <= 1);
  }
  assert_int_equal(bal_rebalance_targets(0, 1, NULL, (int64_t[1]){0}), BAL_EINVAL);
  double bad[2] = {1, 0};
  int64_t t2[2];
  assert_int_equal(bal_rebalance_targets(2, 5, bad, t2), BAL_EINVAL);
  assert_int_equal(bal_rebalance_targets(2, 5, NULL, t2), BAL_OK);
  assert_int_equal(t2[0] + t2[1], 5);
}

/* ---- shifts: item-by-item oracle ---- */

static int owner(const int64_t *c, int p, int64_t pos) {
  int64_t acc = 0;
  for (int k = 0; k < p; k++) {
    acc += c[k];
    if (pos < acc) return k;
  }
  return p - 1;
}

static void random_counts(bal__rng *r, int p, int64_t *n, int64_t *t) {
  int64_t total = 0;
  for (int k = 0; k < p; k++) {
    n[k] = bal__rng_below(r, 4) == 0 ? 0 : (int64_t)bal__rng_below(r, 30);
    total += n[k];
  }
  /* random targets with the same sum */
  int64_t left = total;
  for (int k = 0; k < p - 1; k++) {
    t[k] = left ? (int64_t)bal__rng_below(r, (uint64_t)left + 1) / (bal__rng_below(r, 2) + 1) : 0;
    left -= t[k];
  }
  t[p - 1] = left;
}

static void shifts_match_oracle(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 11);
  for (int round = 0; round < rounds(3000); round++) {
    int p = 1 + (int)bal__rng_below(&r, 9);
    int64_t n[9], t[9], S[8], total = 0;
    random_counts(&r, p, n, t);
    for (int k = 0; k < p; k++) total += n[k];
    assert_int_equal(bal_rebalance_shifts(p, n, t, S), BAL_OK);
    for (int i = 0; i + 1 < p; i++) {
      int64_t right = 0, left = 0;
      for (int64_t pos = 0; pos < total; pos++) {
        int from = owner(n, p, pos), to = owner(t, p, pos);
        if (from <= i && to > i) right++;
        if (from > i && to <= i) left++;
      }
      assert_true(right == 0 || left == 0); /* one direction per pair */
      assert_int_equal(S[i], right - left);
    }
    /* the recurrence of [POP LB] with C[i] = 1 gives the same numbers */
    double prev = 0;
    for (int i = 0; i + 1 < p; i++) {
      double s = (double)n[i] + prev - (double)t[i];
      assert_true(fabs(s - (double)S[i]) < 1e-9);
      prev = s;
    }
  }
  int64_t a[2] = {1, 2}, b[2] = {1, 1}, s1[1];
  assert_int_equal(bal_rebalance_shifts(2, a, b, s1), BAL_EINVAL); /* sums differ */
  b[1] = -1;
  a[1] = -1;
  assert_int_equal(bal_rebalance_shifts(2, a, b, s1), BAL_EINVAL);
}

static void shifts_limit_properties(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 5);
  int limited = 0;
  for (int round = 0; round < rounds(5000); round++) {
    int p = 1 + (int)bal__rng_below(&r, 9);
    int64_t n[9], t[9], S[8], L[8];
    random_counts(&r, p, n, t);
    assert_int_equal(bal_rebalance_shifts(p, n, t, S), BAL_OK);
    memcpy(L, S, sizeof S);
    int red = bal_rebalance_shifts_limit(p, n, L);
    assert_true(red >= 0);
    int feasible = 1, changed = 0;
    for (int i = 0; i < p; i++) {
      int64_t out = (i > 0 && S[i - 1] < 0 ? -S[i - 1] : 0) + (i + 1 < p && S[i] > 0 ? S[i] : 0);
      if (out > n[i]) feasible = 0;
      int64_t lout = (i > 0 && L[i - 1] < 0 ? -L[i - 1] : 0) + (i + 1 < p && L[i] > 0 ? L[i] : 0);
      assert_true(lout <= n[i]);
    }
    for (int i = 0; i + 1 < p; i++) {
      assert_true((L[i] >= 0) == (S[i] >= 0) || L[i] == 0);
      assert_true(llabs(L[i]) <= llabs(S[i]));
      changed += L[i] != S[i];
    }
    assert_int_equal(red, changed);
    if (feasible) assert_int_equal(red, 0);
    limited += red > 0;
    /* applying the limited shifts leaves every count >= 0 */
    for (int i = 0; i < p; i++) {
      int64_t a = n[i] - (i + 1 < p ? L[i] : 0) + (i > 0 ? L[i - 1] : 0);
      assert_true(a >= 0);
    }
  }
  assert_true(limited > 0); /* the generator does produce infeasible plans */
}

static void direct_plan_properties(void **state) {
  (void)state;
  bal__rng r;
  bal__rng_seed(&r, 9);
  for (int round = 0; round < rounds(3000); round++) {
    int p = 1 + (int)bal__rng_below(&r, 9);
    int64_t n[9], t[9], a[9];
    random_counts(&r, p, n, t);
    bal_rebalance_transfer tr[8];
    int m = bal_rebalance_direct_plan(p, n, t, tr);
    assert_true(m >= 0 && m <= (p > 1 ? p - 1 : 0));
    memcpy(a, n, sizeof a);
    int sends[9] = {0}, recvs[9] = {0};
    for (int k = 0; k < m; k++) {
      assert_true(tr[k].count > 0 && tr[k].from != tr[k].to);
      a[tr[k].from] -= tr[k].count;
      a[tr[k].to] += tr[k].count;
      sends[tr[k].from] = 1;
      recvs[tr[k].to] = 1;
      if (k > 0) assert_true(tr[k].from >= tr[k - 1].from); /* senders in rank order */
    }
    for (int k = 0; k < p; k++) {
      assert_int_equal(a[k], t[k]);
      assert_false(sends[k] && recvs[k]);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(cuts_match_oracle),       cmocka_unit_test(cuts_quality_bound_large),
      cmocka_unit_test(cuts_quality_bound_random),
      cmocka_unit_test(cuts_bad_args),           cmocka_unit_test(cuts_default_is_even),
      cmocka_unit_test(targets_match_oracle),
      cmocka_unit_test(shifts_match_oracle),     cmocka_unit_test(shifts_limit_properties),
      cmocka_unit_test(direct_plan_properties),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
