/* Cuts of a curve string moved to compact pieces.
 *
 * A piece of a curve string whose two ends lie on the boundary of aligned
 * blocks of side 2^l is a union of whole blocks of that side: squares
 * (cubes) for Hilbert and Morton alike. The best-balanced cuts fall
 * wherever the weight says, so their pieces end in a staircase of blocks
 * of every size down to one cell, and those ragged ends are where the
 * curves' halo exceeded RCB's. Here the cuts move, within the tolerance,
 * to positions that close coarse blocks, chosen together so that the
 * pieces' summed perimeter is smallest.
 *
 * Boundaries: cutting before item j puts the boundary anywhere in
 * (keys[j-1], keys[j]]; the value there with the most trailing zero bits
 * has as many as the highest bit in which the two keys differ. The keys
 * are sorted, so the boundaries of a window of cuts [a, b] are the values
 * in (keys[a-1], keys[b]]: the multiples of 2^h (h the highest bit in
 * which keys[a-1] and keys[b] differ: one of them), then of 2^(h-1), ...
 * Each cut's candidates are the coarsest CAND of them (the ones nearest
 * the best cut when a level has more than room) and the best cut itself.
 *
 * The window of cut k: within tol of the bottleneck B in weight from the
 * best cut k (bal_rebalance_cuts(), proportional among the best). A
 * dynamic programme over the candidates picks the cuts with every piece
 * within (1 + tol) B and the least summed perimeter (perimeter() below);
 * the best cuts are kept when no choice fits. O(n) for the prefix sums,
 * O(p CAND^2 dim bits) for the programme. Measured against the best cuts
 * in docs/BENCHMARKS.md ("partition: against Zoltan RCB on 10^6 cells"):
 * 3-13% fewer cut faces for Hilbert, up to 10% for Morton, 1-8% more
 * time; 32 candidates instead of 8 changed no Hilbert halo there. */
#include <math.h>
#include <stdlib.h>

#include "partition_internal.h"

#define CAND 8     /* candidate positions per cut, besides the best cut */
#define SLOTS (CAND + 1)

static int msb(uint64_t x) { return 63 - __builtin_clzll(x); }

uint64_t bal__part_cut_key(const uint64_t *keys, int64_t n, int64_t j, uint64_t end) {
  if (j <= 0) return 0;
  if (j >= n) return end;
  uint64_t d = keys[j - 1] ^ keys[j];
  if (!d) return keys[j]; /* the cut splits a key */
  int h = msb(d);
  return keys[j] >> h << h;
}

/* Perimeter, in faces of curve cells, of the key interval [a, b) read as
 * its aligned blocks in curve order: each block's faces, less the face
 * it shares with the block before it (consecutive blocks of a Hilbert
 * curve touch; Morton's may not, which this ignores). Exact for one block
 * or a row of blocks; it misses contacts between blocks that are not
 * consecutive, so it overestimates folded shapes. O(dim bits). */
static double perimeter(uint64_t a, uint64_t b, int dim) {
  double sum = 0.0, before = 0.0;
  for (uint64_t x = a; x < b;) {
    int l = (x ? __builtin_ctzll(x) : 63) / dim;
    while (l > 0 && b - x < (uint64_t)1 << (dim * l)) l--;
    double face = ldexp(1.0, (dim - 1) * l);
    sum += 2.0 * dim * face - 2.0 * (face < before ? face : before);
    before = face;
    x += (uint64_t)1 << (dim * l);
  }
  return sum;
}

/* First j in [a, b] with keys[j] >= v (b when none before it). */
static int64_t position(const uint64_t *keys, int64_t a, int64_t b, uint64_t v) {
  return bal__part_first_key(keys, a, b, v, false);
}

static int add(int64_t *set, int cnt, int64_t x) {
  for (int i = 0; i < cnt; i++)
    if (set[i] == x) return cnt;
  set[cnt] = x;
  return cnt + 1;
}

/* Candidates of a cut: the best cut, then the boundaries of [a, b] from
 * the coarsest level down while they fit. Returns how many. */
static int candidates(const uint64_t *keys, int64_t a, int64_t b, int64_t best, int64_t *set) {
  int cnt = add(set, 0, best);
  if (a > b || !(keys[a - 1] ^ keys[b])) return cnt;
  uint64_t lo = keys[a - 1], hi = keys[b];
  for (int bit = msb(lo ^ hi); bit >= 0 && cnt < SLOTS; bit--) {
    uint64_t first = (lo >> bit) + 1, last = hi >> bit; /* multiples in (lo, hi] */
    uint64_t many = last - first + 1;
    if (many > (uint64_t)(SLOTS - cnt)) {
      /* too many at this level: the ones nearest the best cut */
      uint64_t mid = best >= a && best <= b ? keys[best] >> bit : first;
      uint64_t from = mid > first + (SLOTS - cnt) / 2 ? mid - (SLOTS - cnt) / 2 : first;
      for (uint64_t m = from; m <= last && cnt < SLOTS; m++)
        cnt = add(set, cnt, position(keys, a, b, m << bit));
      break;
    }
    for (uint64_t m = first; m <= last; m++) cnt = add(set, cnt, position(keys, a, b, m << bit));
  }
  return cnt;
}

int bal__part_cut_align(int64_t n, const double *w, const uint64_t *keys, int dim, int p,
                        double best, double tol, int64_t *cuts) {
  if (p < 2 || !(tol > 0.0) || n < 2) return BAL_OK;
  size_t slots = (size_t)(p + 1) * SLOTS;
  double *pre = malloc((size_t)(n + 1) * sizeof *pre);
  int64_t *pos = malloc(slots * sizeof *pos);
  int *cnt = malloc((size_t)(p + 1) * sizeof *cnt);
  double *cost = malloc(slots * sizeof *cost);
  int *from = malloc(slots * sizeof *from);
  if (!pre || !pos || !cnt || !cost || !from) {
    free(pre);
    free(pos);
    free(cnt);
    free(cost);
    free(from);
    return BAL_ENOMEM;
  }
  uint64_t end = (uint64_t)1 << (dim * BAL_PARTITION_CURVE_BITS);
  pre[0] = 0.0;
  for (int64_t j = 0; j < n; j++) pre[j + 1] = pre[j] + bal__part_w(w, j);
  double cap = best * (1.0 + tol), half = tol * best;
  pos[0] = 0;
  cnt[0] = 1;
  pos[(size_t)p * SLOTS] = n;
  cnt[p] = 1;
  for (int k = 1; k < p; k++) {
    double target = pre[cuts[k]];
    int64_t a = bal__part_first(pre, 0, n + 1, target - half, false);
    int64_t b = bal__part_first(pre, 0, n + 1, target + half, true) - 1;
    if (a < 1) a = 1;
    if (b > n - 1) b = n - 1;
    cnt[k] = candidates(keys, a, b, cuts[k], pos + (size_t)k * SLOTS);
  }
  cost[0] = 0.0;
  for (int k = 1; k <= p; k++)
    for (int i = 0; i < cnt[k]; i++) {
      int64_t y = pos[(size_t)k * SLOTS + i];
      uint64_t by = bal__part_cut_key(keys, n, y, end);
      double least = INFINITY;
      int arg = -1;
      for (int j = 0; j < cnt[k - 1]; j++) {
        int64_t x = pos[(size_t)(k - 1) * SLOTS + j];
        double before = cost[(size_t)(k - 1) * SLOTS + j];
        if (!(before < INFINITY) || x > y || pre[y] - pre[x] > cap) continue;
        double t = before + perimeter(bal__part_cut_key(keys, n, x, end), by, dim);
        if (t < least) least = t, arg = j;
      }
      cost[(size_t)k * SLOTS + i] = least;
      from[(size_t)k * SLOTS + i] = arg;
    }
  if (cost[(size_t)p * SLOTS] < INFINITY)
    for (int k = p, i = 0; k >= 0; k--) {
      cuts[k] = pos[(size_t)k * SLOTS + i];
      if (k > 0) i = from[(size_t)k * SLOTS + i];
    }
  free(pre);
  free(pos);
  free(cnt);
  free(cost);
  free(from);
  return BAL_OK;
}
