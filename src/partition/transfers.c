/* Import/export lists: the items whose owner changes, grouped by (from,
 * to). One array of transfers sorted by (from, to) serves the exports of
 * every part; the imports are pointers into the same array sorted by (to,
 * from), so that a sender's export list and its receiver's import list are
 * the same struct by construction. The moved items are ordered by (from,
 * to, index) with two stable counting sorts (by receiver, then by sender):
 * O(n + P). */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

/* Stable counting sort of src[0..m) into dst by key[src[q]] in [0, p). */
static void counting_sort(int64_t *src, int64_t m, const int *key, int p, int64_t *pos,
                          int64_t *dst) {
  memset(pos, 0, (size_t)(p + 1) * sizeof *pos);
  for (int64_t q = 0; q < m; q++) pos[key[src[q]] + 1]++;
  for (int k = 0; k < p; k++) pos[k + 1] += pos[k];
  for (int64_t q = 0; q < m; q++) dst[pos[key[src[q]]]++] = src[q];
}

int bal__part_transfers(bal_partition_result *r, int64_t n, const int *from, const int *part) {
  int p = r->parts;
  int64_t moved = 0;
  for (int64_t i = 0; i < n; i++) moved += from[i] != part[i];
  size_t room = (size_t)(moved > 0 ? moved : 1);
  r->xoff = calloc((size_t)p + 1, sizeof *r->xoff);
  r->ioff = calloc((size_t)p + 1, sizeof *r->ioff);
  r->items = malloc(room * sizeof *r->items);
  int64_t *tmp = malloc(room * sizeof *tmp);
  int64_t *pos = malloc(((size_t)p + 1) * sizeof *pos);
  int rc = BAL_ENOMEM;
  if (!r->xoff || !r->ioff || !r->items || !tmp || !pos) goto out;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++)
    if (from[i] != part[i]) r->items[m++] = i;
  counting_sort(r->items, m, part, p, pos, tmp);
  counting_sort(tmp, m, from, p, pos, r->items);
  int64_t nx = 0;
  for (int64_t q = 0; q < m; q++)
    nx += q == 0 || from[r->items[q]] != from[r->items[q - 1]] ||
          part[r->items[q]] != part[r->items[q - 1]];
  r->xfer = malloc((size_t)(nx > 0 ? nx : 1) * sizeof *r->xfer);
  r->imp = malloc((size_t)(nx > 0 ? nx : 1) * sizeof *r->imp);
  if (!r->xfer || !r->imp) goto out;
  int64_t x = 0;
  for (int64_t q = 0; q < m;) {
    int f = from[r->items[q]], to = part[r->items[q]];
    int64_t e = q;
    while (e < m && from[r->items[e]] == f && part[r->items[e]] == to) e++;
    r->xfer[x++] = (bal_partition_transfer){f, to, e - q, r->items + q};
    r->xoff[f + 1]++;
    r->ioff[to + 1]++;
    q = e;
  }
  for (int k = 0; k < p; k++) {
    r->xoff[k + 1] += r->xoff[k];
    r->ioff[k + 1] += r->ioff[k];
  }
  /* imports: in (from, to) order, each receiver's senders come ascending */
  memset(pos, 0, (size_t)(p + 1) * sizeof *pos);
  for (int64_t y = 0; y < nx; y++) {
    int to = r->xfer[y].to;
    r->imp[r->ioff[to] + pos[to]++] = &r->xfer[y];
  }
  rc = BAL_OK;
out:
  free(tmp);
  free(pos);
  return rc;
}
