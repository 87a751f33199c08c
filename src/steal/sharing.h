/* Private: the "sharing" policy's pure part, for its tests (sharing.c). */
#ifndef BALLAST_STEAL_SHARING_H
#define BALLAST_STEAL_SHARING_H

/* Assign p ranks to ceil(p / gsize) groups of at most gsize members with
 * about equal total estimate (largest first, each to the least-loaded
 * group with room). group_of[r] receives rank r's group. Returns the
 * number of groups, or BAL_ENOMEM. Pure, thread-safe. */
int bal__steal_sharing_groups(const double *estimate, int p, int gsize, int *group_of);

#endif
