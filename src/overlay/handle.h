/* Private: the overlay handle. A whole-graph handle holds every node's list
 * in CSR form; a local handle holds the lists of one node and of its
 * neighbours (ids sorted, binary-searched). Lists not held are computed
 * from the rule on demand. */
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
