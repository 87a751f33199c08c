/* A space-filling-curve string: the items sorted by curve key and cut into
 * consecutive pieces by the chains-on-chains cutter, so that each part is
 * contiguous on the curve and hence compact in space; then the cuts move,
 * within the tolerance, to close coarse aligned blocks (cut_align.c), so
 * that the pieces are unions of whole squares (cubes), not staircases.
 *
 * Keys: each coordinate is scaled to a cell of 2^BAL_PARTITION_CURVE_BITS
 * per dimension over the domain box; the key function of the method
 * (hilbert.c, morton.c) maps the cell to its position on the curve. The
 * sort is a least-significant-digit radix sort on 8-bit digits (stable, so
 * items with equal keys keep their input order): O(n) passes over 16-byte
 * pairs, several times faster than a comparison sort at 10^6 items.
 *
 * Incremental: the current cuts are read from `from` without trusting the
 * labels to follow the curve (a REMAP may have permuted them): each current
 * part is placed on the string at the median position of its items, the
 * parts ordered so, and the current cut k is the number of items of the
 * first k parts. The new piece j inherits the label of the j-th current
 * part, and its cuts are those of cut1d.c's candidates within the
 * tolerance that move the fewest items after REMAP (when configured), so
 * never more than a fresh partition's cuts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/rebalance_plan.h>

#include "partition_internal.h"

typedef struct sfc_priv {
  uint64_t *keys;  /* n keys in curve order */
  int64_t *order;  /* n item indices in curve order */
} sfc_priv;

typedef struct keyed {
  uint64_t key;
  int64_t idx;
} keyed;

/* Sort a[0..n) by key (stable); tmp has room for n. Only the digits that
 * some key uses are sorted on. */
static void radix_sort(keyed *a, keyed *tmp, int64_t n, int bits) {
  int64_t count[256];
  for (int shift = 0; shift < bits; shift += 8) {
    memset(count, 0, sizeof count);
    for (int64_t i = 0; i < n; i++) count[(a[i].key >> shift) & 0xff]++;
    int64_t at = 0;
    for (int b = 0; b < 256; b++) {
      int64_t c = count[b];
      count[b] = at;
      at += c;
    }
    for (int64_t i = 0; i < n; i++) tmp[count[(a[i].key >> shift) & 0xff]++] = a[i];
    keyed *s = a;
    a = tmp;
    tmp = s;
  }
  /* an odd number of passes leaves the result in the scratch buffer */
  if (((bits + 7) / 8) % 2) memcpy(tmp, a, (size_t)n * sizeof *a);
}

static uint32_t cell_of(double x, double lo, double hi) {
  const double cells = (double)(1u << BAL_PARTITION_CURVE_BITS);
  if (!(hi > lo)) return 0;
  double q = floor((x - lo) / (hi - lo) * cells);
  if (q < 0) return 0;
  if (q >= cells) return (1u << BAL_PARTITION_CURVE_BITS) - 1;
  return (uint32_t)q;
}

typedef struct ranked {
  int64_t median;
  int label;
} ranked;

static int by_median(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (a->median != b->median) return a->median < b->median ? -1 : 1;
  return (a->label > b->label) - (a->label < b->label);
}

/* Current cuts and inherited labels from `from` (see the top). */
static int current_cuts(const bal__part_ctx *c, const int64_t *order, int64_t *ref, int *label) {
  int64_t n = c->in->n;
  int p = c->parts;
  int64_t *cnt = calloc((size_t)p, sizeof *cnt);
  int64_t *seen = calloc((size_t)p, sizeof *seen);
  int64_t *median = malloc((size_t)p * sizeof *median);
  if (!cnt || !seen || !median) {
    free(cnt);
    free(seen);
    free(median);
    return BAL_ENOMEM;
  }
  const int *from = c->in->from;
  for (int64_t i = 0; i < n; i++) cnt[from[i]]++;
  for (int k = 0; k < p; k++) median[k] = INT64_MAX; /* empty parts go last */
  for (int64_t j = 0; j < n; j++) {
    int k = from[order[j]];
    if (++seen[k] == (cnt[k] + 1) / 2) median[k] = j;
  }
  ranked *r = malloc((size_t)p * sizeof *r);
  if (!r) {
    free(cnt);
    free(seen);
    free(median);
    return BAL_ENOMEM;
  }
  for (int k = 0; k < p; k++) r[k] = (ranked){median[k], k};
  qsort(r, (size_t)p, sizeof *r, by_median);
  ref[0] = 0;
  for (int j = 0; j < p; j++) {
    label[j] = r[j].label;
    ref[j + 1] = ref[j] + cnt[label[j]];
  }
  free(r);
  free(cnt);
  free(seen);
  free(median);
  return BAL_OK;
}

int bal__part_sfc_plan(const bal__part_ctx *c, bal__part_plan *pl, bal__part_keyfn keyfn) {
  const bal_partition_input *in = c->in;
  int64_t n = in->n;
  int p = c->parts, dim = c->dim;
  sfc_priv *s = calloc(1, sizeof *s);
  keyed *a = malloc((size_t)n * sizeof *a);
  keyed *tmp = malloc((size_t)n * sizeof *tmp);
  double *ws = in->weights ? malloc((size_t)n * sizeof *ws) : NULL;
  int64_t *ref = c->incremental ? malloc((size_t)(p + 1) * sizeof *ref) : NULL;
  int64_t *cuts = malloc((size_t)(p + 1) * sizeof *cuts);
  int64_t *fresh = malloc((size_t)(p + 1) * sizeof *fresh);
  pl->label = malloc((size_t)p * sizeof *pl->label);
  pl->tgt = malloc((size_t)(p + 1) * sizeof *pl->tgt);
  pl->ref = c->incremental ? malloc((size_t)(p + 1) * sizeof *pl->ref) : NULL;
  if (s) {
    s->keys = malloc((size_t)n * sizeof *s->keys);
    s->order = malloc((size_t)n * sizeof *s->order);
  }
  pl->priv = s;
  int rc = BAL_ENOMEM;
  if (!s || !s->keys || !s->order || !a || !tmp || (in->weights && !ws) ||
      (c->incremental && (!ref || !pl->ref)) || !cuts || !fresh || !pl->label || !pl->tgt)
    goto out;
  for (int64_t i = 0; i < n; i++) {
    uint32_t cell[3];
    for (int d = 0; d < dim; d++) cell[d] = cell_of(in->coords[i * dim + d], in->lo[d], in->hi[d]);
    a[i].key = keyfn(dim, cell, 0);
    a[i].idx = i;
  }
  radix_sort(a, tmp, n, dim * BAL_PARTITION_CURVE_BITS);
  double total = 0.0;
  for (int64_t j = 0; j < n; j++) {
    s->keys[j] = a[j].key;
    s->order[j] = a[j].idx;
    if (ws) total += ws[j] = in->weights[a[j].idx];
  }
  if (ws && !(total > 0.0)) { /* all weights 0: balance the counts */
    free(ws);
    ws = NULL;
  }
  if (c->incremental) {
    rc = current_cuts(c, s->order, ref, pl->label);
    if (rc != BAL_OK) goto out;
  } else {
    for (int k = 0; k < p; k++) pl->label[k] = k;
  }
  /* the fresh cuts at coarse blocks, then (incremental) the candidates
   * near the current cuts, the fresh ones among them */
  double best;
  rc = bal_rebalance_cuts(n, ws, p, NULL, NULL, fresh, &best);
  if (rc == BAL_OK)
    rc = bal__part_cut_align(n, ws, s->keys, dim, p, best, c->cfg->tolerance, fresh);
  if (rc == BAL_OK && ref)
    rc = bal__part_cut1d(n, ws, p, ref, c->cfg->tolerance, c->cfg->remap, fresh, cuts);
  else if (rc == BAL_OK)
    memcpy(cuts, fresh, (size_t)(p + 1) * sizeof *cuts);
  if (rc != BAL_OK) goto out;
  for (int k = 0; k <= p; k++) {
    pl->tgt[k] = (double)cuts[k];
    if (ref) pl->ref[k] = (double)ref[k];
  }
  pl->nbound = p + 1;
  pl->blend = c->incremental;
out:
  free(a);
  free(tmp);
  free(ws);
  free(ref);
  free(cuts);
  free(fresh);
  return rc;
}

int bal__part_sfc_place(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
                        bal_partition_region *regions, double *bound) {
  const sfc_priv *s = pl->priv;
  int64_t n = c->in->n;
  int p = c->parts;
  uint64_t end = (uint64_t)1 << (c->dim * BAL_PARTITION_CURVE_BITS); /* <= 2^63 */
  int64_t prev_cut = 0;
  for (int j = 0; j < p; j++) {
    double hi = t >= 1.0 || !pl->ref ? pl->tgt[j + 1]
                                      : pl->ref[j + 1] + t * (pl->tgt[j + 1] - pl->ref[j + 1]);
    int64_t cut = j + 1 == p ? n : (int64_t)llround(hi);
    if (cut < prev_cut) cut = prev_cut;
    if (cut > n) cut = n;
    for (int64_t at = prev_cut; at < cut; at++) piece[s->order[at]] = j;
    if (regions) {
      bal_partition_region *r = &regions[j];
      memset(r, 0, sizeof *r);
      r->kind = BAL_PARTITION_REGION_CURVE;
      /* boundaries on the coarsest block between the items, so that a
       * piece of whole blocks has a region of whole blocks */
      r->key_lo = j == 0 ? 0 : bal__part_cut_key(s->keys, n, prev_cut, end);
      r->key_hi = j + 1 == p ? end : bal__part_cut_key(s->keys, n, cut, end);
    }
    if (bound) bound[j] = (double)prev_cut;
    prev_cut = cut;
  }
  if (bound) bound[p] = (double)n;
  return BAL_OK;
}

void bal__part_sfc_release(void *priv) {
  sfc_priv *s = priv;
  if (!s) return;
  free(s->keys);
  free(s->order);
  free(s);
}
