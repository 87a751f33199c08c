/* Private: a map from rank to int, for what a rank knows of a few others
 * among thousands (route.c: the next hop toward an owner, the route buffer
 * of a destination). An array indexed by rank costs O(P) per rank, O(P^2)
 * per simulation of P ranks in one process (SimGrid SMPI), where it was
 * most of the memory past 3,584 ranks; a rank talks to its overlay
 * neighbours and to the owners of the tasks it ran, tens to hundreds.
 * Open addressing with linear probing, at most half full, so that a
 * lookup touches one or two slots. Hand-written: an int-to-int table is a
 * few lines, and the library takes no dependency for it. Not thread-safe:
 * the progress thread alone uses it. */
#ifndef BALLAST_STEAL_RANKMAP_H
#define BALLAST_STEAL_RANKMAP_H

#include <stdbool.h>

typedef struct bal__steal_rankmap {
  int *keys; /* -1: empty */
  int *vals;
  int cap;   /* a power of two, or 0 before the first put */
  int n;
} bal__steal_rankmap;

/* The value of rank (>= 0) in *val; false if absent. */
bool bal__steal_rankmap_get(const bal__steal_rankmap *m, int rank, int *val);

/* Sets rank's value; BAL_OK, or BAL_ENOMEM (the map unchanged). */
int bal__steal_rankmap_put(bal__steal_rankmap *m, int rank, int val);

/* Releases the map's memory; it is then empty and usable. */
void bal__steal_rankmap_free(bal__steal_rankmap *m);

#endif
