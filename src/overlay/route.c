/* Next hop on a route. Why the rules terminate: once `to` is a neighbour
 * (rule 1), a common neighbour exists (rule 2) or a neighbour's list meets
 * `to`'s (rule 3), the next node satisfies the rule one below, so at most
 * three hops remain. Otherwise the greedy rule moves to the neighbour w
 * whose closed neighbourhood holds the node x nearest to `to`; from w, x
 * is at most one hop away and x's ring neighbour towards `to` one more, so
 * the best two-hop distance to `to` drops by at least one per greedy step. */
#include "overlay/handle.h"

#include <stdlib.h>

#define STACK_DEGREE 512

static int contains(const int64_t *v, int k, int64_t x) {
  int lo = 0, hi = k;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (v[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k && v[lo] == x;
}

/* A 4096-bit filter of the destination's list: most candidates are
 * rejected by one bit test instead of a binary search. */
static inline unsigned filter_bit(int64_t x) {
  return (unsigned)(((uint64_t)x * 0x9E3779B97F4A7C15ull) >> 52);
}

static int64_t route(const bal_overlay *ov, int64_t from, int64_t to, int64_t *scratch) {
  const int64_t n = ov->rule.n;
  const int maxd = ov->rule.max_degree;
  int na, nt;
  const int64_t *a = bal__ov_list(ov, from, scratch, &na);
  const int64_t *t = bal__ov_list(ov, to, scratch + maxd, &nt);
  if (contains(a, na, to)) return to;
  for (int i = 0, j = 0; i < na && j < nt;) { /* rule 2: a common neighbour */
    if (a[i] == t[j]) return a[i];
    if (a[i] < t[j])
      i++;
    else
      j++;
  }
  uint64_t filter[64] = {0};
  for (int j = 0; j < nt; j++)
    filter[filter_bit(t[j]) >> 6] |= UINT64_C(1) << (filter_bit(t[j]) & 63);

  int64_t best = -1, best_two = INT64_MAX, best_one = INT64_MAX;
  for (int i = 0; i < na; i++) {
    int64_t w = a[i];
    int nw;
    const int64_t *wl = bal__ov_list(ov, w, scratch + 2 * (size_t)maxd, &nw);
    int64_t one = bal__ov_ring_dist(n, w, to), two = one;
    for (int k = 0; k < nw; k++) {
      int64_t x = wl[k];
      unsigned b = filter_bit(x);
      if ((filter[b >> 6] >> (b & 63)) & 1 && contains(t, nt, x)) return w; /* rule 3 */
      int64_t d = bal__ov_ring_dist(n, x, to);
      if (d < two) two = d;
    }
    if (two < best_two || (two == best_two && one < best_one)) {
      best = w;
      best_two = two;
      best_one = one;
    }
  }
  return best;
}

int64_t bal_overlay_next_hop(const bal_overlay *ov, int64_t from, int64_t to) {
  if (!ov || from < 0 || to < 0 || from >= ov->rule.n || to >= ov->rule.n) return BAL_EINVAL;
  if (from == to) return to;
  if (!ov->ids) return route(ov, from, to, NULL); /* whole graph: every list is held */
  const size_t need = 3 * (size_t)ov->rule.max_degree;
  int64_t stack[3 * STACK_DEGREE];
  int64_t *scratch = need <= 3 * STACK_DEGREE ? stack : malloc(sizeof *scratch * need);
  if (!scratch) return BAL_ENOMEM;
  int64_t hop = route(ov, from, to, scratch);
  if (scratch != stack) free(scratch);
  return hop;
}
