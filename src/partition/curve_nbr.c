/* Spatial neighbours of curve pieces. The region of a piece is the set of
 * curve cells whose keys lie in its interval [key_lo, key_hi); two pieces
 * are neighbours when a cell of one touches a cell of the other (closed
 * cells sharing a face, an edge or a corner: the definition of the boxes).
 *
 * On both curves (Morton and Hilbert) the 2^(dim l) keys that start at a
 * multiple of 2^(dim l) fill one aligned cube of side 2^l cells. So an
 * interval is the union of the maximal such blocks it contains: at most
 * 2^dim - 1 per level on the way up from key_lo and as many on the way
 * down to key_hi, 2 (2^dim - 1) BAL_PARTITION_CURVE_BITS in all (126 in
 * 2-D, 294 in 3-D).
 *
 * Take two touching blocks A (of piece q) and B (of piece p), A at least
 * as large as B. A is a union of aligned cubes of B's size, and one of
 * them touches B, so A contains one of B's 3^dim - 1 neighbours of the
 * same size and alignment. Hence, for every block B: for each same-size
 * neighbour N inside the domain, the piece that holds N's first key is
 * a neighbour of p if it holds all of N (then N, which touches B, is part
 * of its region). A piece that holds only part of N has blocks smaller
 * than B there, and its pair with p is found from those blocks, if they
 * touch B. Each pair so found touches; every touching pair is found from
 * the smaller block of a touching pair of blocks; the CSR makes the lists
 * symmetric.
 *
 * Cost: at most 294 blocks per piece, 26 neighbours each (3-D), one key
 * (the curve's nbr_keys: for Hilbert, the block's key steps shared by its
 * neighbours) and, unless N lies in p itself, a binary search over the P
 * pieces: O(P 2^dim 3^dim bits (dim bits + log P)) at worst. Memory: the
 * P first keys, a mark per part, and the pairs found (each once per
 * piece). */
#include <stdlib.h>

#include "partition_internal.h"

/* Last piece j in [0, p) with first[j] <= k; first[0] = 0 <= k. */
static int piece_of(const uint64_t *first, int p, uint64_t k) {
  return (int)bal__part_first_key(first, 1, p, k, true) - 1;
}

/* The same-size neighbours of the block of level l whose first key is a:
 * push (me, label of q) for each piece q != j holding one whole. */
static int block_neighbors(const bal_partition_result *r, const int *order, const uint64_t *first,
                           int j, uint64_t a, int l, int *mark, bal__part_edges *out) {
  const bal__part_curve *cv = r->method->curve;
  int dim = r->dim, p = r->parts, me = order[j];
  const uint64_t size = (uint64_t)1 << (dim * l);
  uint32_t c[3] = {0, 0, 0};
  uint64_t keys[27];
  cv->cell(dim, a, c);
  for (int d = 0; d < dim; d++) c[d] &= ~((1u << l) - 1);
  cv->nbr_keys(dim, c, l, keys);
  int ndir = dim == 2 ? 9 : 27;
  for (int dir = 0; dir < ndir; dir++) {
    uint64_t k0 = keys[dir];
    if (k0 == UINT64_MAX) continue; /* itself, or outside the grid */
    if (first[j] <= k0 && k0 - first[j] < first[j + 1] - first[j]) continue; /* in p */
    int q = piece_of(first, p, k0);
    if (first[q + 1] - k0 < size) continue; /* q holds only part of N */
    int other = order[q];
    if (mark[other] == me) continue;
    mark[other] = me;
    if (bal__part_edge_push(out, me, other) != BAL_OK) return BAL_ENOMEM;
  }
  return BAL_OK;
}

int bal__part_neighbors_curve(bal_partition_result *r, const int *order) {
  int p = r->parts, dim = r->dim;
  const int bits = BAL_PARTITION_CURVE_BITS;
  uint64_t *first = malloc(((size_t)p + 1) * sizeof *first);
  int *mark = malloc((size_t)p * sizeof *mark);
  bal__part_edges s = {NULL, 0, 0};
  int rc = BAL_ENOMEM;
  if (!first || !mark) goto out;
  for (int j = 0; j < p; j++) {
    first[j] = r->regions[order[j]].key_lo;
    mark[j] = -1;
  }
  first[p] = (uint64_t)1 << (dim * bits); /* the end of the curve, <= 2^63 */
  rc = BAL_OK;
  for (int j = 0; j < p && rc == BAL_OK; j++) {
    uint64_t a = first[j], b = first[j + 1];
    while (a < b && rc == BAL_OK) {
      /* the largest aligned block that starts at a and ends by b */
      int l = 0;
      uint64_t size = 1;
      while (l < bits && (a & ((size << dim) - 1)) == 0 && b - a >= size << dim) {
        size <<= dim;
        l++;
      }
      rc = block_neighbors(r, order, first, j, a, l, mark, &s);
      a += size;
    }
  }
  if (rc == BAL_OK) rc = bal__part_edges_to_csr(r, &s);
out:
  free(first);
  free(mark);
  free(s.e);
  return rc;
}
