/* Chains-on-chains cuts and integer proportional targets.
 *
 * Cuts: bisection on the bottleneck with a greedy probe. For a fixed
 * processor order, giving each processor the longest prefix that fits
 * B * s[k] is optimal for the question "is bottleneck B feasible?", so the
 * optimum is the smallest feasible B. We bisect on doubles until the
 * failing and the succeeding probe are adjacent (at most ~64 steps from a
 * bracket whose width is one item's cost), then report the bottleneck of
 * the partition actually built, which lies between them. Nicol's exact
 * parametric search costs O(p^2 log^2 n) probes' worth of work; at
 * p = 4096 that is far slower than 64 probes for no practical gain (the
 * costs are measured times, not exact numbers). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include <ballast/rebalance_plan.h>

/* Largest j in [lo, n] with pre[j] <= limit (pre nondecreasing, pre[lo] <= limit). */
static int64_t last_fitting(const double *pre, int64_t lo, int64_t n, double limit) {
  int64_t a = lo, b = n; /* pre[a] <= limit; answer in [a, b] */
  while (a < b) {
    int64_t mid = a + (b - a + 1) / 2;
    if (pre[mid] <= limit)
      a = mid;
    else
      b = mid - 1;
  }
  return a;
}

/* Greedy probe: can the chain be cut with bottleneck B? Fills cuts if so. */
static bool probe(int64_t n, const double *pre, int p, const double *s, double B, int64_t *cuts) {
  int64_t at = 0;
  cuts[0] = 0;
  for (int k = 0; k < p; k++) {
    double cap = B * (s ? s[k] : 1.0);
    if (pre) {
      at = last_fitting(pre, at, n, pre[at] + cap);
    } else {
      double room = floor(cap);
      int64_t left = n - at;
      at += room >= (double)left ? left : (int64_t)room;
    }
    cuts[k + 1] = at;
  }
  return at == n;
}

/* Smallest j in [0, end] with pre[j] >= pre[end] - cap: where a part that
 * ends at `end` may start at the earliest. */
static int64_t first_fitting(const double *pre, int64_t end, double cap) {
  if (!pre) {
    double room = floor(cap);
    return room >= (double)end ? 0 : end - (int64_t)room;
  }
  double limit = pre[end] - cap;
  int64_t a = 0, b = end; /* pre[b] >= limit */
  while (a < b) {
    int64_t mid = a + (b - a) / 2;
    if (pre[mid] >= limit)
      b = mid;
    else
      a = mid + 1;
  }
  return a;
}

static int64_t forward_fit(const double *pre, int64_t at, int64_t n, double cap) {
  if (pre) return last_fitting(pre, at, n, pre[at] + cap);
  double room = floor(cap);
  int64_t left = n - at;
  return at + (room >= (double)left ? left : (int64_t)room);
}

/* Among the partitions with bottleneck <= B, the one whose cuts are, one
 * after the other, closest to ref: cut k+1 must leave room for the rest
 * (>= lo[k+1], from a greedy pass from the end) and fit part k
 * (<= the forward greedy end from cut k). Since cut k respects lo[k], the
 * remaining items fit in the remaining parts, so both bounds always meet
 * (up to rounding, which the caller checks). O(p log n). */
static void nearest(int64_t n, const double *pre, int p, const double *s, double B,
                    const int64_t *ref, int64_t *lo, int64_t *cuts) {
  lo[p] = n;
  for (int k = p - 1; k >= 1; k--) lo[k] = first_fitting(pre, lo[k + 1], B * (s ? s[k] : 1.0));
  cuts[0] = 0;
  for (int k = 0; k + 1 < p; k++) {
    int64_t hi = forward_fit(pre, cuts[k], n, B * (s ? s[k] : 1.0));
    int64_t low = lo[k + 1] > cuts[k] ? lo[k + 1] : cuts[k];
    if (low > hi) low = hi;
    int64_t c = ref[k + 1];
    cuts[k + 1] = c < low ? low : (c > hi ? hi : c);
  }
  cuts[p] = n;
}

static double part_time(const double *pre, const int64_t *cuts, const double *s, int k) {
  double c = pre ? pre[cuts[k + 1]] - pre[cuts[k]] : (double)(cuts[k + 1] - cuts[k]);
  return c / (s ? s[k] : 1.0);
}

int bal_rebalance_cuts(int64_t n, const double *w, int p, const double *s, const int64_t *ref,
                       int64_t *cuts, double *bottleneck) {
  if (!cuts || n < 0 || p < 1) return BAL_EINVAL;
  if (ref) {
    if (ref[0] != 0 || ref[p] != n) return BAL_EINVAL;
    for (int k = 0; k < p; k++)
      if (ref[k] > ref[k + 1]) return BAL_EINVAL;
  }
  double smin = 1.0, ssum = (double)p, wmax = n > 0 ? 1.0 : 0.0;
  if (s) {
    smin = INFINITY;
    ssum = 0.0;
    for (int k = 0; k < p; k++) {
      if (!isfinite(s[k]) || !(s[k] > 0.0)) return BAL_EINVAL;
      smin = fmin(smin, s[k]);
      ssum += s[k];
    }
  }
  double *pre = NULL;
  double total = (double)n;
  if (w) {
    pre = malloc((size_t)(n + 1) * sizeof *pre);
    if (!pre) return BAL_ENOMEM;
    pre[0] = 0.0;
    wmax = 0.0;
    for (int64_t j = 0; j < n; j++) {
      if (!isfinite(w[j]) || w[j] < 0.0) {
        free(pre);
        return BAL_EINVAL;
      }
      pre[j + 1] = pre[j] + w[j];
      wmax = fmax(wmax, w[j]);
    }
    total = pre[n];
  }
  int64_t *tmp = malloc((size_t)(p + 1) * sizeof *tmp);
  int64_t *lo = malloc((size_t)(p + 1) * sizeof *lo);
  int64_t *pref = ref ? NULL : malloc((size_t)(p + 1) * sizeof *pref);
  if (!tmp || !lo || (!ref && !pref)) {
    free(tmp);
    free(lo);
    free(pref);
    free(pre);
    return BAL_ENOMEM;
  }
  /* lo: perfect balance (a lower bound, probed to check it is infeasible);
   * hi = lo + wmax/smin is always feasible: a processor that stops early has
   * taken more than B*s[k] - wmax >= its proportional share. Doubled until
   * feasible anyway, to be safe against rounding. */
  double blo = total / ssum, bhi = blo + wmax / smin;
  if (probe(n, pre, p, s, blo, cuts)) {
    bhi = blo;
  } else {
    while (!probe(n, pre, p, s, bhi, cuts)) bhi = bhi > 0 ? bhi * 2.0 : 1.0;
    for (int it = 0; it < 200; it++) {
      double mid = blo + (bhi - blo) / 2.0;
      if (!(mid > blo && mid < bhi)) break; /* adjacent doubles */
      if (probe(n, pre, p, s, mid, tmp)) {
        bhi = mid;
        for (int k = 0; k <= p; k++) cuts[k] = tmp[k];
      } else {
        blo = mid;
      }
    }
  }
  double b = 0.0;
  for (int k = 0; k < p; k++) b = fmax(b, part_time(pre, cuts, s, k));
  /* The greedy partition gives every part as much as fits and the last
   * parts what is left. Among the partitions with the same bottleneck take
   * the one nearest the reference (by default the proportional cuts), so
   * that a rebalance moves no more than it must. */
  if (!ref) {
    double acc = 0.0;
    pref[0] = 0;
    for (int k = 1; k < p; k++) {
      acc += s ? s[k - 1] : 1.0;
      double target = total * (acc / ssum);
      int64_t j;
      if (pre) {
        int64_t a = 0, z = n; /* first j with pre[j] >= target */
        while (a < z) {
          int64_t mid = a + (z - a) / 2;
          if (pre[mid] >= target)
            z = mid;
          else
            a = mid + 1;
        }
        j = a;
      } else {
        j = (int64_t)llround(target);
      }
      pref[k] = j < pref[k - 1] ? pref[k - 1] : (j > n ? n : j);
    }
    pref[p] = n;
  }
  nearest(n, pre, p, s, b, ref ? ref : pref, lo, tmp);
  double bn = 0.0;
  for (int k = 0; k < p; k++) bn = fmax(bn, part_time(pre, tmp, s, k));
  if (bn <= b) { /* else rounding broke the bounds: keep the greedy cuts */
    for (int k = 0; k <= p; k++) cuts[k] = tmp[k];
    b = bn;
  }
  if (bottleneck) *bottleneck = b;
  free(tmp);
  free(lo);
  free(pref);
  free(pre);
  return BAL_OK;
}

/* Min-heap of ranks keyed by (t[k] + 1) / rate[k], ties to the lower rank:
 * the next item goes where it raises the step time least. */
typedef struct heap {
  int *a;
  int n;
  const int64_t *t;
  const double *r;
} heap;

static bool before(const heap *h, int x, int y) {
  double kx = (double)(h->t[x] + 1) / (h->r ? h->r[x] : 1.0);
  double ky = (double)(h->t[y] + 1) / (h->r ? h->r[y] : 1.0);
  return kx < ky || (kx == ky && x < y);
}

static void sift_down(heap *h, int i) {
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && before(h, h->a[l], h->a[m])) m = l;
    if (r < h->n && before(h, h->a[r], h->a[m])) m = r;
    if (m == i) return;
    int x = h->a[i];
    h->a[i] = h->a[m];
    h->a[m] = x;
    i = m;
  }
}

int bal_rebalance_targets(int p, int64_t total, const double *rate, int64_t *t) {
  if (p < 1 || total < 0 || !t) return BAL_EINVAL;
  double rsum = 0.0;
  for (int k = 0; k < p; k++) {
    double r = rate ? rate[k] : 1.0;
    if (!isfinite(r) || !(r > 0.0)) return BAL_EINVAL;
    rsum += r;
  }
  if (!isfinite(rsum)) return BAL_EINVAL;
  /* Floors of the proportional shares: some optimum lies above them (moving
   * an item from a rank above its share to one below never raises the max). */
  int64_t given = 0;
  for (int k = 0; k < p; k++) {
    double share = (double)total * ((rate ? rate[k] : 1.0) / rsum);
    int64_t f = (int64_t)floor(share);
    if (f < 0) f = 0;
    if (f > total - given) f = total - given; /* rounding can only overshoot by a hair */
    t[k] = f;
    given += f;
  }
  int64_t left = total - given;
  if (left == 0) return BAL_OK;
  heap h = {malloc((size_t)p * sizeof(int)), p, t, rate};
  if (!h.a) return BAL_ENOMEM;
  for (int k = 0; k < p; k++) h.a[k] = k;
  for (int i = p / 2 - 1; i >= 0; i--) sift_down(&h, i);
  for (; left > 0; left--) {
    t[h.a[0]]++;
    sift_down(&h, 0);
  }
  free(h.a);
  return BAL_OK;
}
