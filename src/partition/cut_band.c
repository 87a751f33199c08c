/* A candidate of cut1d.c: the cuts nearest the current ones, exactly, in a
 * band around them.
 *
 * Of all cuttings whose every piece is within the bound and whose cut k
 * lies within D items of the current cut k, the one with the least sum of
 * |c_k - ref_k|. That sum bounds the items that change owner while labels
 * follow the chain (it is the count when no item's piece moves past a
 * whole part). The other candidates place each cut by a rule (clamp it,
 * blend it, pick among a few positions); when a part gained weight its
 * excess has to be passed along the chain to parts with room, and where
 * the room lies decides how far each cut between must move, which only a
 * search over all positions sees.
 *
 * Dynamic programming over the positions of each cut:
 *   F_k(x) = |x - ref_k| + min { F_{k-1}(y) : y <= x, pre[x] - pre[y] <= cap }
 * over y in cut k-1's band. Both ends of y's window only grow with x (the
 * first y that fits is monotone in x), so a deque of increasing F gives
 * each minimum in amortised O(1): O(p D) time, and p (2D + 1) 32-bit back
 * pointers to read the cuts back. The caller asks for the half-width it
 * needs (cut1d.c: the least summed displacement of a candidate it already
 * has, which no cut of the nearest cutting can exceed, so the search is
 * then exact over all cuttings); it gets at most the largest for which
 * the back pointers and the rows of F fit BAND_BYTES, so the cost is
 * bounded whatever p: about 2^21 / (p + 3) items either way, two average
 * parts on 10^6 items at any p. Moves counted after REMAP can be fewer
 * still; cut1d.c counts every candidate as the caller will and keeps this
 * one only when it wins. */
#include <stdlib.h>

#include "partition_internal.h"

/* Memory of one search at most: back pointers and the rows of F and the
 * deque, all 32-bit (F <= p D < 2^22). */
#define BAND_BYTES (INT64_C(16) << 20)

static int64_t band_lo(const int64_t *ref, int k, int p, int64_t d) {
  if (k == 0) return 0;
  if (k == p) return ref[p];
  return ref[k] - d > 0 ? ref[k] - d : 0;
}

static int64_t band_hi(const int64_t *ref, int k, int p, int64_t d, int64_t n) {
  if (k == 0) return 0;
  if (k == p) return ref[p];
  return ref[k] + d < n ? ref[k] + d : n;
}

int bal__part_cut_band_d(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                         int64_t d, int64_t *c, bool *found) {
  *found = false;
  if (p < 2 || n < 1 || d < 1 || ref[0] != 0 || ref[p] != n) return BAL_OK;
  if (d > n) d = n;
  /* a band is clipped to [0, n]: never wider than n + 1 positions */
  int64_t width = 2 * d + 1 < n + 1 ? 2 * d + 1 : n + 1;
  if ((int64_t)p * d >= INT32_MAX / 2) return BAL_OK; /* F would not fit 32 bits */
  /* one block: p rows of back pointers (row k - 1: cut k), then the rows
   * of F for cuts k - 1 and k and the deque */
  int32_t *back = malloc(((size_t)p + 3) * (size_t)width * sizeof *back);
  if (!back) return BAL_ENOMEM;
  int32_t *f_prev = back + (size_t)p * (size_t)width, *f_cur = f_prev + width, *dq = f_cur + width;
  const int32_t INF = INT32_MAX;
  f_prev[0] = 0; /* cut 0 sits at 0 */
  bool reachable = true;
  for (int k = 1; k <= p && reachable; k++) {
    int64_t pa = band_lo(ref, k - 1, p, d), pb = band_hi(ref, k - 1, p, d, n);
    int64_t a = band_lo(ref, k, p, d), b = band_hi(ref, k, p, d, n);
    int32_t *bk = back + (size_t)(k - 1) * (size_t)width;
    int64_t head = 0, tail = 0; /* deque of offsets y - pa, F increasing */
    int64_t next = pa;          /* next y to push */
    int64_t first = pa;         /* smallest y whose piece [y, x) fits */
    reachable = false;
    for (int64_t x = a; x <= b; x++) {
      int64_t right = x < pb ? x : pb;
      for (; next <= right; next++) {
        int32_t v = f_prev[next - pa];
        if (v == INF) continue;
        while (tail > head && f_prev[dq[tail - 1]] >= v) tail--;
        dq[tail++] = (int32_t)(next - pa);
      }
      /* the same test as cut1d.c's heaviest(): pre[end] - pre[start] <= cap */
      while (first < x && pre[x] - pre[first] > cap) first++;
      while (tail > head && dq[head] + pa < first) head++;
      if (tail == head || first > right) {
        f_cur[x - a] = INF;
        continue;
      }
      f_cur[x - a] = f_prev[dq[head]] + (int32_t)(x > ref[k] ? x - ref[k] : ref[k] - x);
      bk[x - a] = dq[head];
      reachable = true;
    }
    int32_t *t = f_prev;
    f_prev = f_cur;
    f_cur = t;
  }
  if (reachable) { /* cut p's band is the one position n, and F reached it */
    *found = true;
    int64_t x = ref[p];
    for (int k = p; k >= 1; k--) {
      c[k] = x;
      x = band_lo(ref, k - 1, p, d) +
          back[(size_t)(k - 1) * (size_t)width + (size_t)(x - band_lo(ref, k, p, d))];
    }
    c[0] = 0;
  }
  free(back);
  return BAL_OK;
}

int bal__part_cut_band(const double *pre, int64_t n, int p, const int64_t *ref, double cap,
                       int64_t want, int64_t *c, bool *found) {
  /* p rows of back pointers and three rows of F and deque, 4 bytes each */
  int64_t width = BAND_BYTES / 4 / ((int64_t)p + 3), d = (width - 1) / 2;
  int rc = bal__part_cut_band_d(pre, n, p, ref, cap, want < d ? want : d, c, found);
  /* an optional candidate: without the memory, the others still stand */
  if (rc == BAL_ENOMEM) {
    *found = false;
    rc = BAL_OK;
  }
  return rc;
}
