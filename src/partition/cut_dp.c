/* A candidate of cut1d.c: cuts chosen by dynamic programming among a few
 * positions per cut, each piece within the bound, minimising the items of
 * each piece outside the current part it overlaps most (what REMAP would
 * leave in place if no two pieces wanted the same part; chain_moves.c
 * counts the real figure afterwards, so an optimistic estimate only costs
 * a rejected candidate).
 *
 * The positions of cut k: the current cuts k-R..k+R (so that a piece can
 * be a whole current part under a shifted label), the positions the hints
 * give (the fresh cuts, the other candidates), and the ends of a piece
 * filled to the bound from a position of cut k-1 or back from one of cut
 * k+1 (so that excess weight can be passed on to a neighbour). At most
 * POS per cut: O(p POS^2 log n). */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

#define R 2
#define POS 40

static int64_t first_above(const int64_t *ref, int p, int64_t x) { /* part holding item x */
  int lo = 0, hi = p; /* largest m with ref[m] <= x */
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (ref[mid] <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Items of [x, y) outside the current part it overlaps most. */
static int64_t outside(const int64_t *ref, int p, int64_t x, int64_t y) {
  int64_t most = 0;
  for (int64_t m = first_above(ref, p, x); m < p && ref[m] < y; m++) {
    int64_t a = x > ref[m] ? x : ref[m], b = y < ref[m + 1] ? y : ref[m + 1];
    if (b - a > most) most = b - a;
  }
  return (y - x) - most;
}

static int add(int64_t *set, int cnt, int64_t x, int64_t n) {
  if (x < 0 || x > n || cnt == POS) return cnt;
  for (int i = 0; i < cnt; i++)
    if (set[i] == x) return cnt;
  set[cnt] = x;
  return cnt + 1;
}

int bal__part_cut_dp(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                     const int64_t *const *hints, int nhints, int64_t *c, bool *found) {
  int64_t *pos = malloc((size_t)(p + 1) * POS * sizeof *pos);
  int *cnt = calloc((size_t)(p + 1), sizeof *cnt);
  int64_t *cost = malloc((size_t)(p + 1) * POS * sizeof *cost);
  int *from = malloc((size_t)(p + 1) * POS * sizeof *from);
  if (!pos || !cnt || !cost || !from) {
    free(pos);
    free(cnt);
    free(cost);
    free(from);
    return BAL_ENOMEM;
  }
  pos[0] = 0;
  cnt[0] = 1;
  pos[(size_t)p * POS] = n;
  cnt[p] = 1;
  for (int k = 1; k < p; k++) {
    int64_t *s = pos + (size_t)k * POS;
    for (int h = 0; h < nhints; h++) cnt[k] = add(s, cnt[k], hints[h][k], n);
    for (int m = k - R; m <= k + R; m++)
      if (m >= 0 && m <= p) cnt[k] = add(s, cnt[k], ref[m], n);
  }
  /* pieces filled to the bound, from the base positions of either side */
  int *nbase = malloc((size_t)(p + 1) * sizeof *nbase);
  if (!nbase) {
    free(pos);
    free(cnt);
    free(cost);
    free(from);
    return BAL_ENOMEM;
  }
  for (int k = 0; k <= p; k++) nbase[k] = cnt[k];
  for (int k = 1; k < p; k++) {
    int64_t *s = pos + (size_t)k * POS;
    for (int i = 0; i < nbase[k - 1]; i++) {
      int64_t x = pos[(size_t)(k - 1) * POS + i];
      cnt[k] = add(s, cnt[k], bal__part_first(pre, x + 1, n + 1, pre[x] + cap, true) - 1, n);
    }
    for (int i = 0; i < nbase[k + 1]; i++) {
      int64_t y = pos[(size_t)(k + 1) * POS + i];
      cnt[k] = add(s, cnt[k], bal__part_first(pre, 0, y, pre[y] - cap, false), n);
    }
  }
  free(nbase);
  const int64_t INF = INT64_MAX;
  cost[0] = 0;
  for (int k = 1; k <= p; k++)
    for (int i = 0; i < cnt[k]; i++) {
      int64_t y = pos[(size_t)k * POS + i], bestc = INF;
      int arg = -1;
      for (int j = 0; j < cnt[k - 1]; j++) {
        int64_t prevc = cost[(size_t)(k - 1) * POS + j], x = pos[(size_t)(k - 1) * POS + j];
        if (prevc == INF || x > y || pre[y] - pre[x] > cap) continue;
        int64_t t = prevc + outside(ref, p, x, y);
        if (t < bestc) bestc = t, arg = j;
      }
      cost[(size_t)k * POS + i] = bestc;
      from[(size_t)k * POS + i] = arg;
    }
  *found = cost[(size_t)p * POS] != INF;
  if (*found) {
    int i = 0;
    for (int k = p; k >= 0; k--) {
      c[k] = pos[(size_t)k * POS + i];
      if (k > 0) i = from[(size_t)k * POS + i];
    }
  }
  free(pos);
  free(cnt);
  free(cost);
  free(from);
  return BAL_OK;
}
