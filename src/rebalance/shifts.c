/* Plans: the neighbour shifts S[i] of [POP LB] (the string balancer) and
 * the direct transfers of [Siegell 1997] §2.1 (the direct balancer), both
 * from current and target counts.
 *
 * [POP LB] writes the shifts as a recurrence over per-item costs,
 * S[i] = (Tw[i] + S[i-1] C[i] - Tt) / C[i]; with integer targets already
 * chosen (bal_rebalance_targets) that recurrence is exactly the difference
 * of the prefix sums of counts and targets, which needs no division and is
 * exact in integers. */
#include <stdbool.h>
#include <stdint.h>

#include <ballast/rebalance_plan.h>

static bool counts_ok(int p, const int64_t *n, const int64_t *t, int64_t *sum) {
  int64_t sn = 0, st = 0;
  for (int i = 0; i < p; i++) {
    if (n[i] < 0 || t[i] < 0) return false;
    if (n[i] > INT64_MAX - sn || t[i] > INT64_MAX - st) return false;
    sn += n[i];
    st += t[i];
  }
  *sum = sn;
  return sn == st;
}

int bal_rebalance_shifts(int p, const int64_t *n, const int64_t *t, int64_t *shifts) {
  if (p < 1 || !n || !t || (p > 1 && !shifts)) return BAL_EINVAL;
  int64_t sum;
  if (!counts_ok(p, n, t, &sum)) return BAL_EINVAL;
  int64_t pn = 0, pt = 0; /* prefix sums stay <= sum: no overflow past counts_ok */
  for (int i = 0; i + 1 < p; i++) {
    pn += n[i];
    pt += t[i];
    shifts[i] = pn - pt;
  }
  return BAL_OK;
}

int bal_rebalance_shifts_limit(int p, const int64_t *n, int64_t *shifts) {
  if (p < 1 || !n || (p > 1 && !shifts)) return BAL_EINVAL;
  for (int i = 0; i < p; i++)
    if (n[i] < 0) return BAL_EINVAL;
  int reduced = 0;
  /* Shrinking a shift only lowers what the other end of it sends, so no
   * earlier rank's constraint can break again: one pass suffices. */
  for (int i = 0; i < p; i++) {
    int64_t left = (i > 0 && shifts[i - 1] < 0) ? -shifts[i - 1] : 0;
    int64_t right = (i + 1 < p && shifts[i] > 0) ? shifts[i] : 0;
    if (left <= n[i] - right) continue; /* left + right <= n[i], written without overflow */
    /* Proportional split of what the rank holds (in double: left + right
     * may exceed INT64_MAX only in absurd inputs, and the split need not be
     * exact, only within [0, n[i]] and summing to at most n[i]). */
    double tot = (double)left + (double)right;
    int64_t nl = (int64_t)((double)n[i] * ((double)left / tot));
    if (nl > left) nl = left;
    if (nl > n[i]) nl = n[i];
    int64_t nr = n[i] - nl;
    if (nr > right) nr = right;
    if (left > 0 && nl != left) {
      shifts[i - 1] = -nl;
      reduced++;
    }
    if (right > 0 && nr != right) {
      shifts[i] = nr;
      reduced++;
    }
  }
  return reduced;
}

int bal_rebalance_direct_plan(int p, const int64_t *n, const int64_t *t,
                              bal_rebalance_transfer *out) {
  if (p < 1 || !n || !t || (p > 1 && !out)) return BAL_EINVAL;
  int64_t sum;
  if (!counts_ok(p, n, t, &sum)) return BAL_EINVAL;
  int m = 0, s = 0, r = 0;
  int64_t have = 0, need = 0; /* surplus of sender s, deficit of receiver r */
  for (;;) {
    while (s < p && have == 0) {
      if (n[s] > t[s]) have = n[s] - t[s];
      if (have == 0) s++;
    }
    while (r < p && need == 0) {
      if (t[r] > n[r]) need = t[r] - n[r];
      if (need == 0) r++;
    }
    if (s >= p || r >= p) break;
    int64_t c = have < need ? have : need;
    out[m++] = (bal_rebalance_transfer){s, r, c};
    have -= c;
    need -= c;
    if (have == 0) s++;
    if (need == 0) r++;
  }
  return m;
}
