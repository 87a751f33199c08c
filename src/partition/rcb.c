/* "rcb": weighted recursive coordinate bisection [Berger 1987] for any
 * number of parts. A box holding p parts is cut across its longest
 * dimension into floor(p/2) parts below the plane and ceil(p/2) above,
 * with the weight split in the same proportion.
 *
 * The cut is found by weighted selection, not by sorting: a quickselect
 * with three-way partitioning (below, equal to, above a pivot) narrows to
 * the item at which the running weight crosses the target, in expected
 * O(m) for m items, so the whole call is expected O(n log p) against
 * O(n log n log p) for a sort at every level. Items equal to the pivot may
 * be split between the halves at any point, so ties (a grid's lines of
 * cells) do not limit the balance; the plane then passes through the tied
 * items and both closed boxes contain them. The tied items are sorted by
 * their other coordinates first (O(t log t) for the t items on the plane),
 * so that the boundary takes one step along the plane: split in the order
 * the partitioning left them, a 1000 x 1000 grid into 1024 parts had 23%
 * more cut faces.
 *
 * The items are copied into one array of records (coordinates, weight,
 * index) that the recursion partitions in place: the selection then reads
 * memory in order instead of jumping through an index array.
 *
 * Minimum extent: a box of extents E whose other dimensions hold
 * Q = prod floor(E_e / m_e) minimum boxes can give p1 parts a slab of
 * thickness m_d * ceil(p1 / Q); the plane is kept between the two slabs'
 * limits, and a dimension where they cross is skipped (longest first). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "partition_internal.h"

typedef struct rec {
  double x[3];
  double w;
  int64_t id;
} rec;

typedef struct rcb_priv {
  int *piece;
  bal_partition_region *regions;
} rcb_priv;

typedef struct rcb_run {
  const bal__part_ctx *c;
  rcb_priv *out;
  bal__rng rng;
} rcb_run;

static void swap(rec *a, rec *b) {
  rec t = *a;
  *a = *b;
  *b = t;
}

/* Orders of the items on a cut plane across dimension d: by the other
 * coordinates, lower dimension first. */
static int cmp2(const rec *a, const rec *b, int e, int f) {
  if (a->x[e] != b->x[e]) return a->x[e] < b->x[e] ? -1 : 1;
  return (a->x[f] > b->x[f]) - (a->x[f] < b->x[f]);
}
static int others0(const void *a, const void *b) { return cmp2(a, b, 1, 2); }
static int others1(const void *a, const void *b) { return cmp2(a, b, 0, 2); }
static int others2(const void *a, const void *b) { return cmp2(a, b, 0, 1); }
static int (*const by_others[3])(const void *, const void *) = {others0, others1, others2};

/* Weighted selection along d: reorder r[0..m) so that r[0..k) <= r[k..m)
 * and the weight of r[0..k) is as close to target as the order allows.
 * unit: count items instead of weighing them. Returns k. */
static int64_t select_split(rcb_run *run, rec *r, int64_t m, int d, double target, bool unit) {
  int64_t lo = 0, hi = m; /* the crossing lies in [lo, hi] */
  double acc = 0.0;       /* weight of r[0..lo) */
  while (hi - lo > 1) {
    double v;
    { /* median of three random items as the pivot */
      double s[3];
      for (int q = 0; q < 3; q++)
        s[q] = r[lo + (int64_t)(bal__rng_next(&run->rng) % (uint64_t)(hi - lo))].x[d];
      if (s[0] > s[1]) { double t = s[0]; s[0] = s[1]; s[1] = t; }
      if (s[1] > s[2]) s[1] = s[2];
      v = s[0] > s[1] ? s[0] : s[1];
    }
    /* three-way partition of [lo, hi): [lo, a) < v, [a, b) == v, [b, hi) > v */
    int64_t a = lo, i = lo, b = hi;
    double wl = 0.0, we = 0.0;
    while (i < b) {
      double x = r[i].x[d];
      if (x < v) {
        wl += unit ? 1.0 : r[i].w;
        swap(&r[a++], &r[i++]);
      } else if (x > v) {
        swap(&r[i], &r[--b]);
      } else {
        we += unit ? 1.0 : r[i].w;
        i++;
      }
    }
    if (acc + wl >= target) {
      hi = a;
    } else if (acc + wl + we >= target) {
      /* inside the equal items: any split point keeps the order; sorted
       * by the other coordinates, the items on the plane that go down
       * form one run (a single step in the boundary), not a scatter */
      qsort(r + a, (size_t)(b - a), sizeof *r, by_others[d]);
      double s = acc + wl;
      int64_t k = a;
      while (k < b && s + (unit ? 1.0 : r[k].w) < target) s += unit ? 1.0 : r[k++].w;
      /* k: weight before it is s < target, after it >= target */
      double with = s + (k < b ? (unit ? 1.0 : r[k].w) : 0.0);
      return (k < b && with - target < target - s) ? k + 1 : k;
    } else {
      acc += wl + we;
      lo = b;
    }
  }
  if (hi - lo == 1) {
    double with = acc + (unit ? 1.0 : r[lo].w);
    return with - target < target - acc ? hi : lo;
  }
  return lo;
}

/* Minimum boxes of side m that fit across extent e. Extents are
 * differences of planes that were placed at lo + k m, so they may fall an
 * ulp short of a multiple of m: a relative slack of 1e-9 counts them whole. */
static double fits(double e, double m) { return floor(e / m * (1.0 + 1e-9)); }

/* Thickness that p parts need along d when the other dimensions of a box
 * of extents e hold q minimum boxes. */
static double need(double m, int p, double q) {
  if (!(m > 0.0) || p < 1) return 0.0;
  double layers = isinf(q) ? 1.0 : ceil((double)p / q);
  return m * (layers < 1.0 ? 1.0 : layers);
}

static int bisect(rcb_run *run, rec *r, int64_t m, double *lo, double *hi, int p, int base) {
  const bal__part_ctx *c = run->c;
  int dim = c->dim;
  if (p == 1) {
    for (int64_t i = 0; i < m; i++) run->out->piece[r[i].id] = base;
    bal_partition_region *g = &run->out->regions[base];
    memset(g, 0, sizeof *g);
    g->kind = BAL_PARTITION_REGION_BOX;
    for (int d = 0; d < dim; d++) {
      g->lo[d] = lo[d];
      g->hi[d] = hi[d];
    }
    return BAL_OK;
  }
  int p1 = p / 2, p2 = p - p1;
  const double *me = c->cfg->min_extent;
  /* dimensions by decreasing extent (ties: lower dimension first) */
  int dims[3] = {0, 1, 2};
  for (int a = 1; a < dim; a++)
    for (int b = a; b > 0 && hi[dims[b]] - lo[dims[b]] > hi[dims[b - 1]] - lo[dims[b - 1]]; b--) {
      int t = dims[b];
      dims[b] = dims[b - 1];
      dims[b - 1] = t;
    }
  int d = -1;
  double cmin = 0.0, cmax = 0.0;
  for (int q = 0; q < dim && d < 0; q++) {
    int e = dims[q];
    double others = 1.0;
    for (int f = 0; f < dim; f++)
      if (f != e) others *= me[f] > 0.0 ? fits(hi[f] - lo[f], me[f]) : INFINITY;
    double a = lo[e] + need(me[e], p1, others), b = hi[e] - need(me[e], p2, others);
    if (a <= b + 1e-9 * me[e]) {
      if (a > b) a = b = lo[e] + (hi[e] - lo[e]) / 2.0; /* an ulp apart */
      d = e;
      cmin = a;
      cmax = b;
    }
  }
  if (d < 0) return BAL_EINVAL; /* the minimum extent leaves no cut */
  double total = 0.0;
  for (int64_t i = 0; i < m; i++) total += r[i].w;
  bool unit = !(total > 0.0);
  double target = (unit ? (double)m : total) * ((double)p1 / (double)p);
  int64_t k = select_split(run, r, m, d, target, unit);
  double plane;
  /* a side left empty by the weight takes the plane to the limit the
   * minimum extent allows; items between the limit and the domain's edge
   * then change sides, as for a clamped plane below */
  bool pinned = k == 0 || k == m;
  if (k == 0) {
    plane = cmin;
  } else if (k == m) {
    plane = cmax;
  } else {
    double below = -INFINITY, above = INFINITY;
    for (int64_t i = 0; i < k; i++) below = r[i].x[d] > below ? r[i].x[d] : below;
    for (int64_t i = k; i < m; i++) above = r[i].x[d] < above ? r[i].x[d] : above;
    plane = below == above ? below : below + (above - below) / 2.0;
  }
  if (pinned || plane < cmin || plane > cmax) {
    /* the minimum extent moves the plane: items strictly below go down */
    plane = plane < cmin ? cmin : plane > cmax ? cmax : plane;
    int64_t a = 0;
    for (int64_t i = 0; i < m; i++)
      if (r[i].x[d] < plane) swap(&r[a++], &r[i]);
    k = a;
  }
  double keep = hi[d];
  hi[d] = plane;
  int rc = bisect(run, r, k, lo, hi, p1, base);
  hi[d] = keep;
  if (rc != BAL_OK) return rc;
  keep = lo[d];
  lo[d] = plane;
  rc = bisect(run, r + k, m - k, lo, hi, p2, base + p1);
  lo[d] = keep;
  return rc;
}

static int plan(const bal__part_ctx *c, bal__part_plan *pl) {
  const bal_partition_input *in = c->in;
  int64_t n = in->n;
  int p = c->parts, dim = c->dim;
  rcb_priv *o = calloc(1, sizeof *o);
  pl->priv = o;
  pl->label = malloc((size_t)p * sizeof *pl->label);
  rec *r = malloc((size_t)n * sizeof *r);
  if (o) {
    o->piece = malloc((size_t)n * sizeof *o->piece);
    o->regions = malloc((size_t)p * sizeof *o->regions);
  }
  int rc = BAL_ENOMEM;
  if (!o || !o->piece || !o->regions || !pl->label || !r) goto out;
  for (int64_t i = 0; i < n; i++) {
    for (int d = 0; d < 3; d++) r[i].x[d] = d < dim ? in->coords[i * dim + d] : 0.0;
    r[i].w = bal__part_w(in->weights, i);
    r[i].id = i;
  }
  for (int k = 0; k < p; k++) pl->label[k] = k;
  rcb_run run = {c, o, {{0}}};
  bal__rng_seed(&run.rng, (uint64_t)n * 0x9E3779B97F4A7C15ull + (uint64_t)p);
  double lo[3] = {0}, hi[3] = {0};
  for (int d = 0; d < dim; d++) {
    lo[d] = in->lo[d];
    hi[d] = in->hi[d];
  }
  rc = bisect(&run, r, n, lo, hi, p, 0);
  pl->blend = false;
  pl->nbound = 0;
out:
  free(r);
  return rc;
}

static int place(const bal__part_ctx *c, const bal__part_plan *pl, double t, int *piece,
                 bal_partition_region *regions, double *bound) {
  (void)t;
  (void)bound;
  const rcb_priv *o = pl->priv;
  memcpy(piece, o->piece, (size_t)c->in->n * sizeof *piece);
  if (regions) memcpy(regions, o->regions, (size_t)c->parts * sizeof *regions);
  return BAL_OK;
}

static void release(void *priv) {
  rcb_priv *o = priv;
  if (!o) return;
  free(o->piece);
  free(o->regions);
  free(o);
}

const bal__part_method bal__part_rcb = {"rcb", BAL_PARTITION_REGION_BOX, false, NULL, plan, place, release};
