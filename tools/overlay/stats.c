#include "stats.h"

#include "core/clock.h"
#include "core/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int64_t below(uint64_t *state, int64_t n) {
  return (int64_t)(((bal__u128)bal__splitmix64(state) * (uint64_t)n) >> 64);
}

static int log2_floor(int64_t d) {
  int b = -1;
  while (d) {
    b++;
    d >>= 1;
  }
  return b;
}

static void add_lengths(ov_stats *st, int64_t n, int64_t u, const int64_t *l, int k) {
  for (int i = 0; i < k; i++) {
    if (l[i] <= u) continue; /* each edge once */
    int64_t d = l[i] - u < n - (l[i] - u) ? l[i] - u : n - (l[i] - u);
    if (d >= 2) st->len_hist[log2_floor(d)]++;
  }
}

int ov_graph_stats(const bal_overlay *ov, ov_stats *st) {
  bal_overlay_info info;
  int rc = bal_overlay_get_info(ov, &info);
  if (rc) return rc;
  const int64_t n = info.nodes;
  int64_t sum = 0;
  st->min_degree = -1;
  st->max_degree = 0;
  for (int64_t u = 0; u < n; u++) {
    const int64_t *l;
    int k;
    if ((rc = bal_overlay_neighbors(ov, u, &l, &k))) return rc;
    sum += k;
    if (st->min_degree < 0 || k < st->min_degree) st->min_degree = k;
    if (k > st->max_degree) st->max_degree = k;
    add_lengths(st, n, u, l, k);
  }
  st->avg_degree = (double)sum / (double)n;
  st->edges = info.edges;
  /* Connectivity by breadth-first search from node 0. */
  int64_t *queue = malloc(sizeof *queue * (size_t)n);
  unsigned char *seen = calloc((size_t)n, 1);
  if (!queue || !seen) {
    free(queue);
    free(seen);
    return BAL_ENOMEM;
  }
  int64_t head = 0, tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    const int64_t *l;
    int k;
    bal_overlay_neighbors(ov, queue[head++], &l, &k);
    for (int i = 0; i < k; i++)
      if (!seen[l[i]]) {
        seen[l[i]] = 1;
        queue[tail++] = l[i];
      }
  }
  st->connected = tail == n;
  st->connected_known = true;
  free(queue);
  free(seen);
  return BAL_OK;
}

static void progress(const char *what, int64_t done, int64_t total) {
  if (!isatty(2) || total < 1000 || done % (total / 100) != 0) return;
  fprintf(stderr, "\r%s: %3d%%", what, (int)(100 * done / total));
  if (done + total / 100 > total) fprintf(stderr, "\n");
}

static void count_route(ov_stats *st, int64_t hops) {
  st->pairs++;
  st->hops_total += hops;
  if (hops > st->max_hops) st->max_hops = hops;
  st->hop_hist[hops < OV_MAX_HOPS_HIST ? hops : OV_MAX_HOPS_HIST - 1]++;
}

int ov_route_stats(const bal_overlay *ov, int64_t pairs, uint64_t seed, ov_stats *st) {
  bal_overlay_info info;
  bal_overlay_get_info(ov, &info);
  const int64_t n = info.nodes;
  uint64_t rng = seed ^ 0x5EEDF00Dull;
  double t0 = bal__now_s();
  for (int64_t p = 0; p < pairs; p++) {
    int64_t from = below(&rng, n), to = below(&rng, n), hops = 0;
    while (from != to) {
      from = bal_overlay_next_hop(ov, from, to);
      if (from < 0) return (int)from;
      if (++hops > n) return BAL_ERANGE; /* a route that does not end */
    }
    count_route(st, hops);
    progress("routing", p + 1, pairs);
  }
  st->route_s += bal__now_s() - t0;
  return BAL_OK;
}

static bool same_lists(const bal_overlay *a, const bal_overlay *b, int64_t node) {
  const int64_t *la, *lb;
  int ka, kb;
  if (bal_overlay_neighbors(a, node, &la, &ka) || bal_overlay_neighbors(b, node, &lb, &kb))
    return false;
  if (ka != kb) return false;
  for (int i = 0; i < ka; i++) {
    if (la[i] != lb[i]) return false;
    const int64_t *ma, *mb; /* the held neighbour lists too */
    int ja, jb;
    if (bal_overlay_neighbors(a, la[i], &ma, &ja) || bal_overlay_neighbors(b, la[i], &mb, &jb) ||
        ja != jb || (ja && memcmp(ma, mb, sizeof *ma * (size_t)ja)))
      return false;
  }
  return true;
}

int ov_local_stats(int64_t nodes, int degree, double exponent, uint64_t seed, int64_t samples,
                   const bal_overlay *whole, ov_stats *st) {
  uint64_t rng = seed ^ 0x10CA1ull;
  int64_t sum = 0;
  if (!whole) {
    st->min_degree = -1;
    st->max_degree = 0;
  }
  st->local_checked = whole != NULL && samples > 0;
  st->local_matches = true;
  for (int64_t s = 0; s < samples; s++) {
    int64_t node = below(&rng, nodes);
    bal_overlay *ov;
    double t0 = bal__now_s();
    int rc = bal_overlay_create_local(nodes, degree, exponent, seed, node, &ov);
    double dt = bal__now_s() - t0;
    if (rc) return rc;
    st->local_samples++;
    st->local_total_s += dt;
    if (dt > st->local_max_s) st->local_max_s = dt;
    if (whole && !same_lists(whole, ov, node)) st->local_matches = false;
    if (!whole) {
      const int64_t *l;
      int k;
      bal_overlay_neighbors(ov, node, &l, &k);
      sum += k;
      if (st->min_degree < 0 || k < st->min_degree) st->min_degree = k;
      if (k > st->max_degree) st->max_degree = k;
      add_lengths(st, nodes, node, l, k);
    }
    bal_overlay_destroy(ov);
    progress("local builds", s + 1, samples);
  }
  if (!whole && samples > 0) st->avg_degree = (double)sum / (double)samples;
  return BAL_OK;
}

int ov_route_local_stats(int64_t nodes, int degree, double exponent, uint64_t seed, int64_t pairs,
                         ov_stats *st) {
  uint64_t rng = seed ^ 0x5EEDF00Dull;
  for (int64_t p = 0; p < pairs; p++) {
    int64_t from = below(&rng, nodes), to = below(&rng, nodes), hops = 0;
    while (from != to) {
      bal_overlay *ov;
      int rc = bal_overlay_create_local(nodes, degree, exponent, seed, from, &ov);
      if (rc) return rc;
      double t0 = bal__now_s();
      int64_t next = bal_overlay_next_hop(ov, from, to);
      st->route_s += bal__now_s() - t0;
      bal_overlay_destroy(ov);
      if (next < 0) return (int)next;
      from = next;
      if (++hops > nodes) return BAL_ERANGE;
    }
    count_route(st, hops);
    progress("routing", p + 1, pairs);
  }
  return BAL_OK;
}
