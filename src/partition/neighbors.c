/* Neighbour lists of a result, as CSR arrays by label, from a list of
 * touching pairs (the curve methods' pairs come from curve_nbr.c).
 *
 * Boxes: two parts are neighbours when their closed boxes intersect (a
 * face, an edge or a corner). Boxes that tile the domain share their planes
 * exactly (both sides store the same double), so the test is exact. A
 * sweep along x (boxes sorted by lower x; each compared with the following
 * boxes until one starts beyond its upper x) avoids comparing boxes far
 * apart: O(P log P + touching pairs) for grids of boxes, O(P^2) at worst
 * (slabs all spanning x). */
#include <stdlib.h>

#include "partition_internal.h"

typedef bal__part_edge edge;
typedef bal__part_edges edges;

int bal__part_edge_push(edges *s, int a, int b) {
  if (s->n == s->cap) {
    int64_t cap = s->cap ? 2 * s->cap : 256;
    edge *e = realloc(s->e, (size_t)cap * sizeof *e);
    if (!e) return BAL_ENOMEM;
    s->e = e;
    s->cap = cap;
  }
  s->e[s->n++] = (edge){a, b};
  return BAL_OK;
}

static int by_edge(const void *pa, const void *pb) {
  const edge *a = pa, *b = pb;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

int bal__part_edges_to_csr(bal_partition_result *r, edges *s) {
  int p = r->parts;
  int64_t m = s->n;
  for (int64_t i = 0; i < m; i++)
    if (bal__part_edge_push(s, s->e[i].b, s->e[i].a) != BAL_OK) return BAL_ENOMEM;
  if (s->n > 0) qsort(s->e, (size_t)s->n, sizeof *s->e, by_edge);
  r->nbr_off = calloc((size_t)p + 1, sizeof *r->nbr_off);
  r->nbr = malloc((size_t)(s->n > 0 ? s->n : 1) * sizeof *r->nbr);
  if (!r->nbr_off || !r->nbr) return BAL_ENOMEM;
  int64_t k = 0;
  for (int64_t i = 0; i < s->n; i++) {
    if (i > 0 && s->e[i].a == s->e[i - 1].a && s->e[i].b == s->e[i - 1].b) continue;
    r->nbr[k++] = s->e[i].b;
    r->nbr_off[s->e[i].a + 1]++;
  }
  for (int j = 0; j < p; j++) r->nbr_off[j + 1] += r->nbr_off[j];
  return BAL_OK;
}

/* Merge sort of the labels by lower x (qsort has no context argument, and
 * a global would make concurrent calls unsafe). */
static int sort_by_lower_x(int *ord, int p, const bal_partition_region *g) {
  int *tmp = malloc((size_t)p * sizeof *tmp);
  if (!tmp) return BAL_ENOMEM;
  for (int w = 1; w < p; w *= 2) {
    for (int a = 0; a < p; a += 2 * w) {
      int mid = a + w < p ? a + w : p, end = a + 2 * w < p ? a + 2 * w : p;
      int i = a, j = mid, k = a;
      while (i < mid && j < end) tmp[k++] = g[ord[j]].lo[0] < g[ord[i]].lo[0] ? ord[j++] : ord[i++];
      while (i < mid) tmp[k++] = ord[i++];
      while (j < end) tmp[k++] = ord[j++];
    }
    for (int i = 0; i < p; i++) ord[i] = tmp[i];
  }
  free(tmp);
  return BAL_OK;
}

int bal__part_neighbors_boxes(bal_partition_result *r) {
  int p = r->parts, dim = r->dim;
  const bal_partition_region *g = r->regions;
  int *ord = malloc((size_t)p * sizeof *ord);
  edges s = {NULL, 0, 0};
  int rc = BAL_ENOMEM;
  if (!ord) goto out;
  for (int k = 0; k < p; k++) ord[k] = k;
  if (sort_by_lower_x(ord, p, g) != BAL_OK) goto out;
  for (int i = 0; i < p; i++) {
    const bal_partition_region *a = &g[ord[i]];
    for (int j = i + 1; j < p && g[ord[j]].lo[0] <= a->hi[0]; j++) {
      const bal_partition_region *b = &g[ord[j]];
      bool touch = true;
      for (int d = 1; d < dim && touch; d++) touch = a->lo[d] <= b->hi[d] && b->lo[d] <= a->hi[d];
      if (touch && bal__part_edge_push(&s, ord[i], ord[j]) != BAL_OK) goto out;
    }
  }
  rc = bal__part_edges_to_csr(r, &s);
out:
  free(ord);
  free(s.e);
  return rc;
}
