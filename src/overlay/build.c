/* Whole-graph builds: every node's sorted neighbour list, in CSR form.
 *
 * OV_SPARSE graphs are built round by round rather than node by node: each
 * block's permutation is evaluated once per position and inverted by a
 * table (half the work of per-node partner lookups), and partners are
 * written to a round-major table, sequentially. A transpose then turns the
 * table into sorted lists with no sorting: visiting v in increasing order
 * and appending v to the list of each neighbour u of v leaves every list
 * sorted, and since edges are symmetric the result is u's list. */
#include "overlay/rule.h"

#include <ballast/error.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int64_t wrap(int64_t x, int64_t n) { return x < 0 ? x + n : (x >= n ? x - n : x); }

/* partner[u] for one round, -1 where none (same rule as bal__ov_partner() plus
 * the near and last-round filters of bal__ov_rule_neighbors_raw()). */
static void fill_round(const bal__ov_rule *r, int round, uint64_t *pi, uint64_t *inv,
                       int64_t *partner) {
  const int64_t n = r->n;
  bal__ov_round rd;
  bal__ov_round_setup(r, round, &rd);
  const int last = round == r->rounds - 1;
  for (uint64_t k = 0; k < (UINT64_C(1) << rd.depth); k++) {
    uint64_t lo, hi;
    bal__ov_block(r, rd.depth, k, &lo, &hi);
    const uint64_t s = hi - lo;
    const int b = bal__ov_bits_for(s - 1);
    const uint64_t key = bal__ov_block_key(r, round, lo);
    for (uint64_t i = 0; i < s; i++) {
      pi[i] = bal__ov_perm(key, b, s, i);
      inv[pi[i]] = i;
    }
    for (uint64_t i = 0; i < s; i++) {
      int64_t u = wrap((int64_t)(lo + i) - rd.rot, n), v = -1;
      uint64_t j = pi[i] ^ 1;
      if (j < s) {
        v = wrap((int64_t)(lo + inv[j]) - rd.rot, n);
        if (bal__ov_ring_dist(n, u, v) <= r->near || (last && !bal__ov_last_round_keeps(r, u, v)))
          v = -1;
      }
      partner[u] = v;
    }
  }
}

static int build_sparse(const bal__ov_rule *r, int64_t *off, int64_t *adj) {
  const int64_t n = r->n, stride = r->max_degree, rounds = r->rounds;
  uint64_t *pi = malloc(sizeof *pi * (size_t)n), *inv = malloc(sizeof *inv * (size_t)n);
  int64_t *table = malloc(sizeof *table * (size_t)(n * rounds + 1));
  int64_t *fill = off;
  if (!pi || !inv || !table) {
    free(pi);
    free(inv);
    free(table);
    return BAL_ENOMEM;
  }
  for (int round = 0; round < rounds; round++) fill_round(r, round, pi, inv, table + round * n);
  free(pi);
  free(inv);
  for (int64_t u = 0; u < n; u++) fill[u] = u * stride;
#define APPEND(u_, v_)                                                                             \
  do {                                                                                             \
    int64_t u__ = (u_);                                                                            \
    if (fill[u__] == u__ * stride || adj[fill[u__] - 1] != (v_)) adj[fill[u__]++] = (v_);          \
  } while (0)
  for (int64_t v = 0; v < n; v++) {
    for (int64_t d = 1; d <= r->near; d++) {
      APPEND(wrap(v - d, n), v);
      APPEND(wrap(v + d, n), v);
    }
    for (int64_t round = 0; round < rounds; round++) {
      int64_t u = table[round * n + v];
      if (u >= 0) APPEND(u, v);
    }
  }
#undef APPEND
  free(table);
  /* Compact: list u moves from u * stride to off[u]. */
  int64_t used = 0;
  for (int64_t u = 0; u < n; u++) {
    int64_t start = u * stride, k = fill[u] - start;
    if (used != start) memmove(adj + used, adj + start, sizeof *adj * (size_t)k);
    off[u] = used;
    used += k;
  }
  off[n] = used;
  return BAL_OK;
}

int bal__ov_build_whole(const bal__ov_rule *r, int64_t **off_out, int64_t **adj_out) {
  const int64_t n = r->n, stride = r->max_degree;
  if (stride > 0 && (uint64_t)n > SIZE_MAX / sizeof(int64_t) / (uint64_t)stride) return BAL_ENOMEM;
  int64_t *off = malloc(sizeof *off * (size_t)(n + 1));
  int64_t *adj = malloc(sizeof *adj * (size_t)(n * stride + 1));
  int rc = off && adj ? BAL_OK : BAL_ENOMEM;
  if (rc == BAL_OK && r->kind == OV_SPARSE) {
    rc = build_sparse(r, off, adj);
  } else if (rc == BAL_OK) {
    off[0] = 0;
    for (int64_t u = 0; u < n; u++)
      off[u + 1] = off[u] + bal__ov_rule_neighbors(r, u, adj + off[u]);
  }
  if (rc != BAL_OK) {
    free(off);
    free(adj);
    return rc;
  }
  int64_t *shrunk = realloc(adj, sizeof *adj * (size_t)(off[n] + 1));
  *off_out = off;
  *adj_out = shrunk ? shrunk : adj;
  return BAL_OK;
}
