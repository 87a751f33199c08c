/* Measurements of an overlay for `ballast overlay`: degrees, connectivity,
 * route lengths and timings. Not part of the library. */
#ifndef BALLAST_TOOLS_OVERLAY_STATS_H
#define BALLAST_TOOLS_OVERLAY_STATS_H

#include <ballast/overlay.h>
#include <stdbool.h>
#include <stdint.h>

#define OV_MAX_HOPS_HIST 64 /* hop counts >= this land in the last bucket */
#define OV_LEN_BINS 64      /* shortcut lengths, bin b holds [2^b, 2^(b+1)) */

typedef struct ov_stats {
  /* graph (whole handle, or the local samples' own lists with --local-only) */
  double avg_degree;
  int min_degree, max_degree;
  int64_t edges; /* -1 when not known */
  bool connected, connected_known;
  int64_t len_hist[OV_LEN_BINS]; /* shortcut (ring distance >= 2) lengths, each edge once */
  /* routes */
  int64_t pairs, hops_total, max_hops;
  int64_t hop_hist[OV_MAX_HOPS_HIST];
  double route_s; /* time spent in next_hop calls */
  /* local builds */
  int64_t local_samples;
  double local_total_s, local_max_s;
  bool local_checked, local_matches;
} ov_stats;

/* Degree, edge, connectivity and shortcut-length figures of a whole graph. */
int ov_graph_stats(const bal_overlay *ov, ov_stats *st);

/* Route `pairs` random pairs (drawn from seed) through a whole handle. */
int ov_route_stats(const bal_overlay *ov, int64_t pairs, uint64_t seed, ov_stats *st);

/* Time `samples` bal_overlay_create_local() calls on random nodes; compare
 * each with `whole` when it is not NULL; with whole == NULL also fill the
 * degree figures from the samples. */
int ov_local_stats(int64_t nodes, int degree, double exponent, uint64_t seed, int64_t samples,
                   const bal_overlay *whole, ov_stats *st);

/* Route `pairs` random pairs using a fresh local handle at every hop, as
 * distributed ranks would (the handle build is not counted in route_s). */
int ov_route_local_stats(int64_t nodes, int degree, double exponent, uint64_t seed, int64_t pairs,
                         ov_stats *st);


#endif
