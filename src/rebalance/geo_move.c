/* The geometric balancer's mover (bal__rebalance_mover, migrate.c):
 * outgoing packages are lists of local item indices (rb->out[j].items,
 * from the partition's export list), incoming ones are appended after the
 * last item, and both the take-back and the drop of the sent items are
 * one remove call with an ascending index list prepared before the
 * migration (geo_act.c), since neither may fail. */
#include <stdint.h>

#include <ballast/rebalance_geo.h>

#include "geo.h"

static int idx_bytes(bal_rebalance *rb, const bal__rebalance_pkg *p, size_t *bytes) {
  const bal_rebalance_geo *g = rb->ext;
  if (g->cb.pack_size)
    return g->cb.pack_size(p->count, p->items, bytes, g->cb.arg) != 0 ? BAL_ECALLBACK : BAL_OK;
  if ((uint64_t)p->count > SIZE_MAX / g->cb.item_bytes) return BAL_ERANGE;
  *bytes = (size_t)p->count * g->cb.item_bytes;
  return BAL_OK;
}

static int idx_pack(bal_rebalance *rb, const bal__rebalance_pkg *p, void *buf, size_t bytes) {
  const bal_rebalance_geo *g = rb->ext;
  return g->cb.pack(p->count, p->items, buf, bytes, g->cb.arg) != 0 ? BAL_ECALLBACK : BAL_OK;
}

static int idx_unpack(bal_rebalance *rb, const bal__rebalance_pkg *p, const void *buf,
                      size_t bytes) {
  const bal_rebalance_geo *g = rb->ext;
  return g->cb.unpack(p->count, buf, bytes, g->cb.arg) != 0 ? BAL_ECALLBACK : BAL_OK;
}

/* The first k packages were appended in order: they are the items after
 * the old ones, g->back[0..their count). */
static void idx_take_back(bal_rebalance *rb, const bal__rebalance_pkg *in, int k) {
  const bal_rebalance_geo *g = rb->ext;
  int64_t n = 0;
  for (int j = 0; j < k; j++) n += in[j].count;
  if (n > 0) g->cb.remove(n, g->back, g->cb.arg);
}

static void idx_drop_sent(bal_rebalance *rb, const bal__rebalance_pkg *out, int nout) {
  const bal_rebalance_geo *g = rb->ext;
  int64_t n = 0;
  for (int j = 0; j < nout; j++) n += out[j].count;
  if (n > 0) g->cb.remove(n, g->sorted, g->cb.arg);
}

const bal__rebalance_mover bal__rebalance_mover_geo = {idx_bytes, idx_pack, idx_unpack,
                                                       idx_take_back, idx_drop_sent};
