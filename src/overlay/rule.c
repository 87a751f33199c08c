/* Setting up the edge rule and listing one node's neighbours under it. */
#include "overlay/rule.h"

#include <ballast/error.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Depth weights w_l = (N / 2^l)^(1 - exponent), as a cumulative
 * distribution that round depths are drawn from (see partner.c). Blocks of
 * the deepest level hold at least max(4, 4 near) nodes, so most of their
 * pairs are longer than `near`. */
static void setup_tiling(bal__ov_rule *r) {
  int64_t smallest = r->near > 1 ? 4 * (int64_t)r->near : 4;
  int dmax = 0;
  while (dmax < 62 && (r->n >> (dmax + 1)) >= smallest) dmax++;
  r->depth_max = dmax;
  double w[64], total = 0, acc = 0;
  for (int l = 0; l <= dmax; l++)
    total += w[l] = pow((double)r->n / ldexp(1.0, l), 1.0 - r->exponent);
  for (int l = 0; l <= dmax; l++) {
    acc += w[l];
    r->cum[l] = l == dmax ? OV_P_ONE : bal__ov_threshold(acc / total);
  }
  r->weyl0 = bal__ov_mix(r->seed ^ ((uint64_t)OV_TAG_TILE << 56));
}

int bal__ov_rule_init(bal__ov_rule *r, int64_t n, int degree, double exponent, uint64_t seed) {
  memset(r, 0, sizeof *r);
  r->n = n;
  r->degree = degree;
  r->target = (int64_t)degree < n - 1 ? degree : (int)(n - 1);
  r->exponent = exponent;
  r->seed = seed;
  if (r->target == n - 1) {
    r->kind = OV_COMPLETE;
    r->max_degree = r->target;
    return BAL_OK;
  }
  if (r->target <= 2) {
    r->kind = OV_RING;
    r->max_degree = 2;
    return BAL_OK;
  }
  /* Dense graphs (more than a quarter of all pairs) would make the
   * matchings collide constantly; small ones are cheap to do exactly. */
  if (n <= OV_DENSE_MAX_N || (n <= 4 * (int64_t)r->target && n <= (INT64_C(1) << 16))) {
    r->kind = OV_DENSE;
    r->max_degree = (int)(n - 1);
    return bal__ov_calibrate_dense(r);
  }
  r->kind = OV_SPARSE;
  r->inv_n = 1.0 / (double)n;
  r->near = bal__ov_choose_near(r);
  setup_tiling(r);
  return bal__ov_calibrate_sparse(r);
}

void bal__ov_rule_free(bal__ov_rule *r) {
  free(r->keep);
  free(r->round_info);
  r->keep = NULL;
  r->round_info = NULL;
}

static int ring_links(const bal__ov_rule *r, int64_t u, int64_t *buf) {
  if (r->n == 2) {
    buf[0] = 1 - u;
    return 1;
  }
  if (r->n < 3) return 0;
  buf[0] = u == 0 ? r->n - 1 : u - 1;
  buf[1] = u == r->n - 1 ? 0 : u + 1;
  return 2;
}

int bal__ov_rule_neighbors(const bal__ov_rule *r, int64_t u, int64_t *buf) {
  int k = bal__ov_rule_neighbors_raw(r, u, buf);
  return r->kind == OV_SPARSE || r->kind == OV_RING ? bal__ov_sort_unique(buf, k, r->n) : k;
}

int bal__ov_rule_neighbors_raw(const bal__ov_rule *r, int64_t u, int64_t *buf) {
  const int64_t n = r->n;
  int k = 0;
  switch (r->kind) {
  case OV_COMPLETE:
    for (int64_t v = 0; v < n; v++)
      if (v != u) buf[k++] = v;
    return k;
  case OV_RING:
    return ring_links(r, u, buf);
  case OV_DENSE:
    for (int64_t v = 0; v < n; v++) {
      if (v == u) continue;
      int64_t d = bal__ov_ring_dist(n, u, v);
      if (d == 1) {
        buf[k++] = v;
        continue;
      }
      uint64_t a = (uint64_t)(u < v ? u : v), b = (uint64_t)(u < v ? v : u);
      if ((bal__ov_hash(r->seed ^ ((uint64_t)OV_TAG_PAIR << 56), a, b) >> 11) < r->keep[d])
        buf[k++] = v;
    }
    return k;
  case OV_SPARSE:
    for (int64_t d = r->near; d >= 1; d--) buf[k++] = u >= d ? u - d : u - d + n;
    for (int64_t d = 1; d <= r->near; d++) buf[k++] = u + d < n ? u + d : u + d - n;
    for (int round = 0; round < r->rounds; round++) {
      int64_t v = bal__ov_partner(r, round, u);
      if (v < 0 || bal__ov_ring_dist(n, u, v) <= r->near) continue;
      if (round == r->rounds - 1 && !bal__ov_last_round_keeps(r, u, v)) continue;
      buf[k++] = v;
    }
    return k;
  }
  return 0;
}
