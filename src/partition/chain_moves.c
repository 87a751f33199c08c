/* Items that change owner when a chain cut at ref is cut at c instead, as
 * compute.c counts them after REMAP (remap.c): without relabelling, piece
 * j keeps the label of current part j; with it, pieces and parts are
 * matched greedily by overlap weight (ties: more items, then lower piece,
 * then lower part), and the matching is kept when it leaves more weight
 * in place. Both cuttings are contiguous on the same chain, so the
 * overlaps are the at most 2p intervals of the merged cut lists, read
 * from prefix sums: O(p log p), no pass over the items.
 *
 * Why the cutter needs it: the sum of |c_k - ref_k| counts the items moved
 * only when labels follow the chain. When weight leaves one end of the
 * chain for the other (a hotspot moved across the curve's first and last
 * quadrant), every cut between them moves by about the weight moved, while
 * a relabelled partition shifts the labels by a part instead and moves only
 * the items near the change. The ties of remap.c use the labels of the
 * current parts, which this count does not see; it may then pick another
 * of two matchings of equal weight and item count. */
#include <stdlib.h>

#include "partition_internal.h"

typedef struct overlap {
  double w;
  int64_t count;
  int piece, part;
} overlap;

static int heavier(const void *pa, const void *pb) {
  const overlap *a = pa, *b = pb;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (a->piece != b->piece) return a->piece < b->piece ? -1 : 1;
  return (a->part > b->part) - (a->part < b->part);
}

size_t bal__part_chain_scratch(int p) {
  return 2 * (size_t)p * (sizeof(overlap) + 1);
}

int64_t bal__part_chain_moved(const double *pre, int p, const int64_t *ref, const int64_t *c,
                              bool remap, void *scratch) {
  overlap *o = scratch;
  char *taken = (char *)(o + 2 * (size_t)p);
  int64_t n = c[p], np = 0, kept_base = 0, kept_greedy = 0;
  double w_base = 0.0, w_greedy = 0.0;
  for (int j = 0, m = 0; j < p && m < p;) {
    int64_t a = c[j] > ref[m] ? c[j] : ref[m];
    int64_t b = c[j + 1] < ref[m + 1] ? c[j + 1] : ref[m + 1];
    if (b > a) {
      o[np++] = (overlap){pre[b] - pre[a], b - a, j, m};
      if (j == m) {
        kept_base += b - a;
        w_base += pre[b] - pre[a];
      }
    }
    if (c[j + 1] < ref[m + 1])
      j++;
    else if (ref[m + 1] < c[j + 1])
      m++;
    else {
      j++;
      m++;
    }
  }
  if (!remap) return n - kept_base;
  qsort(o, (size_t)np, sizeof *o, heavier);
  for (int k = 0; k < 2 * p; k++) taken[k] = 0; /* pieces, then parts */
  for (int64_t q = 0; q < np; q++) {
    if (taken[o[q].piece] || taken[p + o[q].part]) continue;
    taken[o[q].piece] = taken[p + o[q].part] = 1;
    kept_greedy += o[q].count;
    w_greedy += o[q].w;
  }
  bool greedy = w_greedy > w_base || (w_greedy == w_base && kept_greedy > kept_base);
  return n - (greedy ? kept_greedy : kept_base);
}
