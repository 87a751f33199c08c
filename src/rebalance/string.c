/* "string": the global sequence of items (rank 0's, then rank 1's, ...) is
 * cut into contiguous pieces and items cross only the boundaries between
 * neighbours, S[i] of them between rank i and i+1 ([POP LB]; > 0 from i's
 * HIGH end to i+1's LOW end, < 0 back), so the global order is kept. A rank
 * sends only items it holds now (bal_rebalance_shifts_limit()); what a
 * rank would have to forward waits for the next interaction.
 *
 * "none" takes the same decision and never carries it out: the baseline
 * that shows what balancing would have done. */
#include <stdlib.h>

#include "rebalance_internal.h"

static void plan(bal_rebalance *rb) {
  const int P = rb->size;
  bal_rebalance_shifts(P, rb->n, rb->t, rb->shift);
  bal_rebalance_shifts_limit(P, rb->n, rb->shift);
  for (int k = 0; k < P; k++)
    rb->a[k] = rb->n[k] - (k + 1 < P ? rb->shift[k] : 0) + (k > 0 ? rb->shift[k - 1] : 0);
}

static void packages(bal_rebalance *rb, int *nout, int *nin) {
  int i = rb->rank, no = 0, ni = 0;
  if (i > 0 && rb->shift[i - 1] < 0)
    rb->out[no++] = (bal__rebalance_pkg){i - 1, BAL_REBALANCE_LOW, 0, -rb->shift[i - 1], NULL};
  if (i > 0 && rb->shift[i - 1] > 0)
    rb->in[ni++] = (bal__rebalance_pkg){i - 1, BAL_REBALANCE_LOW, 0, rb->shift[i - 1], NULL};
  if (i + 1 < rb->size && rb->shift[i] > 0)
    rb->out[no++] = (bal__rebalance_pkg){i + 1, BAL_REBALANCE_HIGH, 0, rb->shift[i], NULL};
  if (i + 1 < rb->size && rb->shift[i] < 0)
    rb->in[ni++] = (bal__rebalance_pkg){i + 1, BAL_REBALANCE_HIGH, 0, -rb->shift[i], NULL};
  *nout = no;
  *nin = ni;
}

static int64_t io(const bal_rebalance *rb, int i) {
  int64_t n = 0;
  if (i > 0) n += llabs(rb->shift[i - 1]);
  if (i + 1 < rb->size) n += llabs(rb->shift[i]);
  return n;
}

/* Each item that changes rank crosses one boundary. */
static int64_t moved(const bal_rebalance *rb) {
  int64_t n = 0;
  for (int k = 0; k + 1 < rb->size; k++) n += llabs(rb->shift[k]);
  return n;
}

const bal__rebalance_balancer bal__rebalance_string = {
    .name = "string", .moves = true, .costs = true,
    .plan = plan, .packages = packages, .io = io, .moved = moved};

const bal__rebalance_balancer bal__rebalance_none = {
    .name = "none", .moves = false, .costs = true,
    .plan = plan, .packages = packages, .io = io, .moved = moved};
