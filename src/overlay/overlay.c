/* Creating overlays (whole graph and local neighbourhood) and reading
 * neighbour lists out of them. */
#include "overlay/handle.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int check_args(int64_t nodes, int degree, double exponent, bal_overlay **out) {
  if (nodes < 1 || nodes > BAL_OVERLAY_MAX_NODES || degree < 2 || !isfinite(exponent) || !out)
    return BAL_EINVAL;
  return BAL_OK;
}

static bal_overlay *new_handle(int64_t nodes, int degree, double exponent, uint64_t seed, int *rc) {
  bal_overlay *ov = calloc(1, sizeof *ov);
  if (!ov) {
    *rc = BAL_ENOMEM;
    return NULL;
  }
  if (exponent <= 0) exponent = BAL_OVERLAY_DEFAULT_EXPONENT;
  *rc = bal__ov_rule_init(&ov->rule, nodes, degree, exponent, seed);
  if (*rc != BAL_OK) {
    free(ov);
    return NULL;
  }
  return ov;
}

int bal_overlay_create(int64_t nodes, int degree, double exponent, uint64_t seed,
                       bal_overlay **out) {
  int rc = check_args(nodes, degree, exponent, out);
  if (rc != BAL_OK) return rc;
  bal_overlay *ov = new_handle(nodes, degree, exponent, seed, &rc);
  if (!ov) return rc;
  ov->local = -1;
  ov->held = nodes;
  rc = bal__ov_build_whole(&ov->rule, &ov->off, &ov->adj);
  if (rc == BAL_OK) ov->edges = ov->off[nodes] / 2;
  if (rc != BAL_OK) {
    bal_overlay_destroy(ov);
    return rc;
  }
  *out = ov;
  return BAL_OK;
}

int bal_overlay_create_local(int64_t nodes, int degree, double exponent, uint64_t seed,
                             int64_t node, bal_overlay **out) {
  int rc = check_args(nodes, degree, exponent, out);
  if (rc != BAL_OK) return rc;
  if (node < 0 || node >= nodes) return BAL_EINVAL;
  bal_overlay *ov = new_handle(nodes, degree, exponent, seed, &rc);
  if (!ov) return rc;
  ov->local = node;
  ov->edges = -1;
  const int maxd = ov->rule.max_degree;
  int64_t *own = malloc(sizeof *own * (size_t)(maxd + 1));
  if (!own) goto nomem;
  int k = bal__ov_rule_neighbors(&ov->rule, node, own);
  /* ids = {node} and its neighbours, kept sorted by insertion. */
  int pos = 0;
  while (pos < k && own[pos] < node) pos++;
  memmove(own + pos + 1, own + pos, sizeof *own * (size_t)(k - pos));
  own[pos] = node;
  ov->ids = own;
  ov->held = k + 1;
  size_t cap = (size_t)(k + 1) * (size_t)maxd;
  ov->off = malloc(sizeof *ov->off * (size_t)(k + 2));
  ov->adj = malloc(sizeof *ov->adj * (cap ? cap : 1));
  if (!ov->off || !ov->adj) goto nomem;
  ov->off[0] = 0;
  for (int i = 0; i <= k; i++) {
    int64_t *list = ov->adj + ov->off[i];
    int len;
    if (i == pos) { /* node's own list: the ids without node */
      memcpy(list, own, sizeof *own * (size_t)pos);
      memcpy(list + pos, own + pos + 1, sizeof *own * (size_t)(k - pos));
      len = k;
    } else {
      len = bal__ov_rule_neighbors(&ov->rule, own[i], list);
    }
    ov->off[i + 1] = ov->off[i] + len;
  }
  *out = ov;
  return BAL_OK;
nomem:
  if (!ov->ids) free(own);
  bal_overlay_destroy(ov);
  return BAL_ENOMEM;
}

void bal_overlay_destroy(bal_overlay *ov) {
  if (!ov) return;
  bal__ov_rule_free(&ov->rule);
  free(ov->ids);
  free(ov->off);
  free(ov->adj);
  free(ov);
}

const int64_t *bal__ov_held_list(const bal_overlay *ov, int64_t node, int *count) {
  int64_t i = node;
  if (ov->ids) {
    int64_t lo = 0, hi = ov->held;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (ov->ids[mid] < node)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo == ov->held || ov->ids[lo] != node) return NULL;
    i = lo;
  }
  *count = (int)(ov->off[i + 1] - ov->off[i]);
  return ov->adj + ov->off[i];
}

const int64_t *bal__ov_list(const bal_overlay *ov, int64_t node, int64_t *scratch, int *count) {
  const int64_t *l = bal__ov_held_list(ov, node, count);
  if (l) return l;
  *count = bal__ov_rule_neighbors(&ov->rule, node, scratch);
  return scratch;
}

int bal_overlay_neighbors(const bal_overlay *ov, int64_t node, const int64_t **nbrs, int *count) {
  if (!ov || !nbrs || !count || node < 0 || node >= ov->rule.n) return BAL_EINVAL;
  int c;
  const int64_t *l = bal__ov_held_list(ov, node, &c);
  if (!l) return BAL_ENOTSUP;
  *nbrs = l;
  *count = c;
  return BAL_OK;
}

int bal_overlay_neighbors_copy(const bal_overlay *ov, int64_t node, int64_t *buf, int cap,
                               int *count) {
  if (!ov || !count || node < 0 || node >= ov->rule.n || cap < 0 || (!buf && cap > 0))
    return BAL_EINVAL;
  int c;
  const int64_t *l = bal__ov_held_list(ov, node, &c);
  if (l) {
    *count = c;
    if (cap < c) return BAL_ERANGE;
    if (c) memcpy(buf, l, sizeof *buf * (size_t)c);
    return BAL_OK;
  }
  if (cap >= ov->rule.max_degree) {
    *count = bal__ov_rule_neighbors(&ov->rule, node, buf);
    return BAL_OK;
  }
  int64_t *tmp = malloc(sizeof *tmp * (size_t)ov->rule.max_degree);
  if (!tmp) return BAL_ENOMEM;
  c = bal__ov_rule_neighbors(&ov->rule, node, tmp);
  *count = c;
  int rc = BAL_ERANGE;
  if (cap >= c) {
    if (c) memcpy(buf, tmp, sizeof *buf * (size_t)c);
    rc = BAL_OK;
  }
  free(tmp);
  return rc;
}

int bal_overlay_get_info(const bal_overlay *ov, bal_overlay_info *out) {
  if (!ov || !out) return BAL_EINVAL;
  out->nodes = ov->rule.n;
  out->degree = ov->rule.degree;
  out->target_degree = ov->rule.target;
  out->exponent = ov->rule.exponent;
  out->seed = ov->rule.seed;
  out->local_node = ov->local;
  out->max_degree = ov->rule.max_degree;
  out->edges = ov->edges;
  return BAL_OK;
}
