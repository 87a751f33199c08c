/* "direct": ranks above their target send items from their HIGH end
 * straight to ranks below it, which append them at their HIGH end, in one
 * step (the master-directed moves of [Siegell 1997] §2.1, for codes whose
 * items need no global order). It balances counts: the weights callback is
 * not used, as cutting costs needs contiguous parts. */
#include <stdlib.h>
#include <string.h>

#include "rebalance_internal.h"

static void plan(bal_rebalance *rb) {
  const int P = rb->size;
  memcpy(rb->a, rb->t, (size_t)P * sizeof *rb->a);
  rb->nplan = bal_rebalance_direct_plan(P, rb->n, rb->t, rb->plan);
}

/* A sender's packages leave its HIGH end one after the other: each skips
 * the items of the packages before it. */
static void packages(bal_rebalance *rb, int *nout, int *nin) {
  int i = rb->rank, no = 0, ni = 0;
  int64_t skip = 0;
  for (int k = 0; k < rb->nplan; k++) {
    const bal_rebalance_transfer *x = &rb->plan[k];
    if (x->from == i) {
      rb->out[no++] = (bal__rebalance_pkg){x->to, BAL_REBALANCE_HIGH, skip, x->count, NULL};
      skip += x->count;
    }
    if (x->to == i)
      rb->in[ni++] = (bal__rebalance_pkg){x->from, BAL_REBALANCE_HIGH, 0, x->count, NULL};
  }
  *nout = no;
  *nin = ni;
}

/* A rank only sends or only receives: the difference to its target. */
static int64_t io(const bal_rebalance *rb, int i) { return llabs(rb->n[i] - rb->a[i]); }

/* Each item that changes rank is in one transfer. */
static int64_t moved(const bal_rebalance *rb) {
  int64_t n = 0;
  for (int k = 0; k < rb->nplan; k++) n += rb->plan[k].count;
  return n;
}

const bal__rebalance_balancer bal__rebalance_direct = {
    .name = "direct", .moves = true, .costs = false,
    .plan = plan, .packages = packages, .io = io, .moved = moved};
