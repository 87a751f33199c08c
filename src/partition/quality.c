/* Quality of an assignment of a structured grid's cells, and the items
 * moved between two assignments: the figures `ballast partition` reports
 * and the tests assert. Cut faces are counted once per face, between a
 * cell and its +x, +y (and +z) neighbour. The neighbour count comes from
 * the distinct pairs of parts across cut faces, sorted: O(cells + halo log
 * halo). */
#include <math.h>
#include <stdlib.h>

#include "../core/check.h"
#include "partition_internal.h"

typedef struct pp {
  int a, b;
} pp;

static int by_pair(const void *pa, const void *pb) {
  const pp *a = pa, *b = pb;
  if (a->a != b->a) return a->a < b->a ? -1 : 1;
  return (a->b > b->b) - (a->b < b->b);
}

int bal_partition_grid_quality(int dim, const int64_t cells[3], int64_t n, const double *w,
                               int parts, const int *part, bal_partition_quality *out) {
  if ((dim != 2 && dim != 3) || !cells || !part || !out || parts < 1) return BAL_EINVAL;
  int64_t nc[3] = {1, 1, 1}, total = 1;
  for (int d = 0; d < dim; d++) {
    if (cells[d] < 1) return BAL_EINVAL;
    if (total > INT64_MAX / cells[d]) return BAL_ERANGE;
    nc[d] = cells[d];
    total *= cells[d];
  }
  if (n != total) return BAL_EINVAL;
  for (int64_t i = 0; i < n; i++)
    if (part[i] < 0 || part[i] >= parts || (w && !bal__finite_nonneg(w[i]))) return BAL_EINVAL;
  double *pw = calloc((size_t)parts, sizeof *pw);
  int64_t *pc = calloc((size_t)parts, sizeof *pc);
  int *nb = calloc((size_t)parts, sizeof *nb);
  pp *cut = NULL;
  int64_t ncut = 0, cap = 0;
  int rc = BAL_ENOMEM;
  if (!pw || !pc || !nb) goto out;
  for (int64_t i = 0; i < n; i++) {
    pw[part[i]] += bal__part_w(w, i);
    pc[part[i]]++;
  }
  const int64_t stride[3] = {1, nc[0], nc[0] * nc[1]};
  for (int64_t i = 0; i < n; i++) {
    int64_t c[3] = {i % nc[0], (i / nc[0]) % nc[1], i / (nc[0] * nc[1])};
    for (int d = 0; d < dim; d++) {
      if (c[d] + 1 >= nc[d]) continue;
      int a = part[i], b = part[i + stride[d]];
      if (a == b) continue;
      if (ncut == cap) {
        cap = cap ? 2 * cap : 1024;
        pp *grown = realloc(cut, (size_t)cap * sizeof *cut);
        if (!grown) goto out;
        cut = grown;
      }
      cut[ncut++] = a < b ? (pp){a, b} : (pp){b, a};
    }
  }
  if (ncut > 0) qsort(cut, (size_t)ncut, sizeof *cut, by_pair);
  for (int64_t q = 0; q < ncut; q++) {
    if (q > 0 && cut[q].a == cut[q - 1].a && cut[q].b == cut[q - 1].b) continue;
    nb[cut[q].a]++;
    nb[cut[q].b]++;
  }
  double sum = 0.0, mx = 0.0, nsum = 0.0;
  int nmax = 0, empty = 0;
  for (int k = 0; k < parts; k++) {
    sum += pw[k];
    mx = fmax(mx, pw[k]);
    nsum += nb[k];
    if (nb[k] > nmax) nmax = nb[k];
    empty += pc[k] == 0;
  }
  double avg = sum / parts;
  out->imbalance = sum > 0.0 ? mx / avg : NAN;
  out->max_weight = mx;
  out->avg_weight = avg;
  out->halo_faces = ncut;
  out->neighbors_max = nmax;
  out->neighbors_avg = nsum / parts;
  out->empty_parts = empty;
  rc = BAL_OK;
out:
  free(pw);
  free(pc);
  free(nb);
  free(cut);
  return rc;
}

int bal_partition_moved(int64_t n, const double *w, const int *a, const int *b, int64_t *items,
                        double *weight) {
  if (n < 0 || (n > 0 && (!a || !b))) return BAL_EINVAL;
  int64_t c = 0;
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (w && !bal__finite_nonneg(w[i])) return BAL_EINVAL;
    if (a[i] != b[i]) {
      c++;
      s += bal__part_w(w, i);
    }
  }
  if (items) *items = c;
  if (weight) *weight = s;
  return BAL_OK;
}
