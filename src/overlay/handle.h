/* Private: the overlay handle, and the map of the `overlay` module
 * (Kleinberg small-world overlays on a ring, greedy routing, victims):
 *   overlay.c    public API: create (whole graph or one node's
 *                neighbourhood), destroy, neighbour lists, info
 *   rule.h       the edge rule, a pure function of (N, degree, exponent,
 *                seed): the graph's shape by size, hashing; rule.c sets it
 *                up and lists one node's neighbours under it
 *   calibrate.c  the rule's free constants, chosen so the average degree
 *                meets the target
 *   partner.c    the sparse graphs' long shortcuts: per round, a node's
 *                partner in a random matching, found from either end
 *   sort.c       sorting neighbour lists, duplicates dropped
 *   build.c      a whole graph at once, round by round, in CSR form
 *   route.c      bal_overlay_next_hop(): greedy routing with
 *                neighbour-of-neighbour lookahead
 *   victim.c     victim selection among a node's neighbours: uniform and
 *                latency-biased
 *
 * The life of one graph. bal_overlay_create() or bal_overlay_create_local()
 * (overlay.c) checks the arguments, and bal__ov_rule_init (rule.c) picks
 * the graph's shape (ring, complete, dense or sparse) and calibrates it
 * (calibrate.c), from the four parameters alone. A whole-graph handle then
 * builds every list (bal__ov_build_whole, build.c); a local handle, what a
 * rank of `steal` makes for itself, computes only its own list and its
 * neighbours' lists (bal__ov_rule_neighbors; in a sparse graph: the ring
 * links up to distance `near`, then one partner per matching round,
 * partner.c). Because every rank derives the same rule from the same
 * parameters, all ranks agree on every edge with no communication. A
 * message from `from` to `to` moves one hop per call: on the rank holding
 * it, bal_overlay_next_hop() (route.c) reads `from`'s list and its
 * neighbours' lists (held) and `to`'s list (computed from the rule unless
 * held), and returns `to` itself, a common neighbour, a neighbour whose
 * list meets `to`'s, or else the neighbour that gets closest to `to` on the
 * ring within two hops; the next rank does the same until the message is
 * at `to` (steal's route.c caches each destination's next hop). Victims
 * (victim.c) are drawn from the node's held list, uniformly or weighted by
 * latency or ring distance.
 *
 * A whole-graph handle holds every node's list in CSR form; a local handle
 * holds the lists of one node and of its neighbours (ids sorted,
 * binary-searched). Lists not held are computed from the rule on demand. */
#ifndef BALLAST_OVERLAY_HANDLE_H
#define BALLAST_OVERLAY_HANDLE_H

#include <ballast/overlay.h>

#include "overlay/rule.h"

struct bal_overlay {
  bal__ov_rule rule;
  int64_t local; /* the local node, -1 for a whole-graph handle */
  int64_t held;  /* number of lists held */
  int64_t *ids;  /* local: sorted node ids of the held lists; whole: NULL */
  int64_t *off;  /* held + 1 offsets into adj */
  int64_t *adj;
  int64_t edges; /* whole: undirected edge count; local: -1 */
};

/* The held list of node (NULL if not held). */
const int64_t *bal__ov_held_list(const bal_overlay *ov, int64_t node, int *count);

/* node's list: the held one, or computed into scratch (capacity
 * ov->rule.max_degree). */
const int64_t *bal__ov_list(const bal_overlay *ov, int64_t node, int64_t *scratch, int *count);

#endif
