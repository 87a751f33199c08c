/* Sorting neighbour lists (with duplicates dropped). */
#include <string.h>

#include "overlay/rule.h"

/* Quicksort down to short runs, then one insertion-sort pass (no libc
 * qsort: its comparator calls dominated building neighbour lists). */
static void sort_i64(int64_t *v, int k) {
  while (k > 16) {
    int64_t a = v[0], b = v[k / 2], c = v[k - 1];
    int64_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    int i = 0, j = k - 1;
    for (;;) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i >= j) break;
      int64_t t = v[i];
      v[i++] = v[j];
      v[j--] = t;
    }
    /* [0, j] <= pivot <= [j+1, k): recurse on the smaller side */
    if (j + 1 < k - j - 1) {
      sort_i64(v, j + 1);
      v += j + 1;
      k -= j + 1;
    } else {
      sort_i64(v + j + 1, k - j - 1);
      k = j + 1;
    }
  }
  for (int i = 1; i < k; i++) {
    int64_t x = v[i];
    int j = i;
    while (j > 0 && v[j - 1] > x) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

/* LSD radix sort of values in [0, 2^bits): no data-dependent branches,
 * which made it three times faster than quicksort on lists of ~80
 * shortcuts (whose order is random). The digit width minimises passes *
 * (buckets + 2 k): with so few values the prefix sums over the buckets
 * cost as much as moving the values. */
static void radix_sort(int64_t *v, int64_t *tmp, int k, int bits) {
  int width = 8;
  long best = -1;
  for (int w = 4; w <= 8; w++) {
    long cost = (long)((bits + w - 1) / w) * ((1L << w) + 2L * k);
    if (best < 0 || cost < best) {
      best = cost;
      width = w;
    }
  }
  const unsigned buckets = 1u << width, mask = buckets - 1;
  int64_t *src = v, *dst = tmp;
  for (int shift = 0; shift < bits; shift += width) {
    unsigned cnt[257] = {0};
    for (int i = 0; i < k; i++) cnt[((src[i] >> shift) & mask) + 1]++;
    for (unsigned d = 0; d < buckets; d++) cnt[d + 1] += cnt[d];
    for (int i = 0; i < k; i++) dst[cnt[(src[i] >> shift) & mask]++] = src[i];
    int64_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != v) memcpy(v, src, sizeof *v * (size_t)k);
}

/* Sort and drop duplicates; returns the new length. */
int bal__ov_sort_unique(int64_t *v, int k, int64_t n) {
  if (k < 2) return k;
  int64_t tmp[512];
  if (k >= 48 && k <= 512)
    radix_sort(v, tmp, k, 64 - __builtin_clzll((uint64_t)n));
  else
    sort_i64(v, k);
  int m = 1;
  for (int i = 1; i < k; i++)
    if (v[i] != v[m - 1]) v[m++] = v[i];
  return m;
}
