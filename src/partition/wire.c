/* A result in one flat buffer, and the handle rebuilt from it (wire.h).
 * Layout: a header, then per piece its region and label, then the
 * boundaries; the neighbour lists and transfers are not sent, they are
 * rebuilt (bal__part_build), the transfers from the items' parts. */
#include "partition/wire.h"

#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

#define WIRE_MAGIC UINT32_C(0x62707731) /* "bpw1" */

typedef struct wire_head {
  uint32_t magic;
  int32_t dim, parts, grid[3];
  char method[32];
  double lo[3], hi[3];
  int64_t nbound;
} wire_head;

static size_t size_of(int parts, int64_t nbound) {
  return sizeof(wire_head) + (size_t)parts * (sizeof(bal_partition_region) + sizeof(int)) +
         (size_t)nbound * sizeof(double);
}

size_t bal__partition_wire_size(const bal_partition_result *r) {
  return size_of(r->parts, r->nbound);
}

void bal__partition_wire_pack(const bal_partition_result *r, unsigned char *buf) {
  wire_head h;
  memset(&h, 0, sizeof h);
  h.magic = WIRE_MAGIC;
  h.dim = r->dim;
  h.parts = r->parts;
  for (int d = 0; d < 3; d++) {
    h.grid[d] = r->grid[d];
    h.lo[d] = r->lo[d];
    h.hi[d] = r->hi[d];
  }
  strncpy(h.method, r->method->name, sizeof h.method - 1);
  h.nbound = r->nbound;
  memcpy(buf, &h, sizeof h);
  unsigned char *at = buf + sizeof h;
  for (int j = 0; j < r->parts; j++, at += sizeof(bal_partition_region))
    memcpy(at, &r->regions[r->label[j]], sizeof(bal_partition_region));
  memcpy(at, r->label, (size_t)r->parts * sizeof(int));
  at += (size_t)r->parts * sizeof(int);
  if (r->nbound > 0) memcpy(at, r->bound, (size_t)r->nbound * sizeof(double));
}

int bal__partition_wire_unpack(const unsigned char *buf, size_t size, int64_t n, const int *from,
                               const int *part, bal_partition_result **out) {
  wire_head h;
  if (!buf || !out || size < sizeof h || (from && !part) || n < 0) return BAL_EFORMAT;
  memcpy(&h, buf, sizeof h);
  h.method[sizeof h.method - 1] = '\0';
  const bal__part_method *m = bal__part_method_find(h.method);
  if (h.magic != WIRE_MAGIC || !m || (h.dim != 2 && h.dim != 3) || h.parts < 1 ||
      h.parts > BAL_PARTITION_MAX_PARTS || h.nbound < 0 ||
      (uint64_t)h.nbound > (SIZE_MAX - size_of(h.parts, 0)) / sizeof(double) ||
      size != size_of(h.parts, h.nbound))
    return BAL_EFORMAT;
  const unsigned char *at = buf + sizeof h;
  bal_partition_region *regions = malloc((size_t)h.parts * sizeof *regions);
  int *label = malloc((size_t)h.parts * sizeof *label);
  double *bound = malloc((size_t)(h.nbound > 0 ? h.nbound : 1) * sizeof *bound);
  unsigned char *seen = calloc((size_t)h.parts, 1);
  int rc = BAL_ENOMEM;
  if (!regions || !label || !bound || !seen) goto done;
  memcpy(regions, at, (size_t)h.parts * sizeof *regions);
  at += (size_t)h.parts * sizeof *regions;
  memcpy(label, at, (size_t)h.parts * sizeof *label);
  at += (size_t)h.parts * sizeof *label;
  if (h.nbound > 0) memcpy(bound, at, (size_t)h.nbound * sizeof *bound);
  /* the labels must be a permutation of the parts, every item's part one
   * of them: what the rebuild indexes by */
  rc = BAL_EFORMAT;
  for (int j = 0; j < h.parts; j++) {
    if (label[j] < 0 || label[j] >= h.parts || seen[label[j]]) goto done;
    seen[label[j]] = 1;
    if (regions[j].kind != m->kind) goto done;
  }
  for (int64_t i = 0; from && i < n; i++)
    if (part[i] < 0 || part[i] >= h.parts || from[i] < 0 || from[i] >= h.parts) goto done;
  int grid[3] = {h.grid[0], h.grid[1], h.grid[2]};
  rc = bal__part_build(m, h.dim, h.parts, grid, h.lo, h.hi, regions, label, bound, h.nbound, n,
                       from, part, out);
done:
  free(regions);
  free(label);
  free(bound);
  free(seen);
  return rc;
}
