/* Moving packages between ranks through the application's callbacks, so
 * that a failure on any rank leaves every rank's items as they were:
 *   1. pack every outgoing package (items stay in place), exchange the
 *      package sizes, allocate the receive buffers; agree (allreduce).
 *   2. exchange the packages.
 *   3. unpack every incoming package (all-or-nothing per call; a rank
 *      whose unpack fails takes back the ones it already unpacked); agree.
 *      On failure every rank takes back what it unpacked.
 *   4. remove the items that were sent.
 * Steps 1 and 3 end in the same agreement on every rank, so every rank
 * returns the same code. Memory: the outgoing and incoming packages of this
 * migration, nothing more. The protocol is the same for every balancer;
 * a mover (bal__rebalance_mover) makes and takes apart the packages: at
 * the ends of a sequence here, by item indices in geo_move.c. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <ballast/rebalance.h>

#include "rebalance_internal.h"

enum { TAG_SIZE = 1, TAG_DATA = 2 };

int bal__rebalance_agree(MPI_Comm comm, int rank, int err, int *who) {
  /* Encode (rank, code) so that MPI_MIN picks the lowest failing rank. */
  long long v = err ? (long long)rank * 64 + (-err) : LLONG_MAX, m = LLONG_MAX;
  if (MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MIN, comm) != MPI_SUCCESS) return BAL_EMPI;
  if (m == LLONG_MAX) {
    *who = -1;
    return 0;
  }
  *who = (int)(m / 64);
  return -(int)(m % 64);
}

/* ---- the sequence balancers' mover: packages at the ends ---- */

static int ends_bytes(bal_rebalance *rb, const bal__rebalance_pkg *p, size_t *bytes) {
  if (rb->cb.pack_size) {
    if (rb->cb.pack_size(p->end, p->skip, p->count, bytes, rb->cb.arg) != 0) return BAL_ECALLBACK;
  } else {
    if ((uint64_t)p->count > SIZE_MAX / rb->cb.item_bytes) return BAL_ERANGE;
    *bytes = (size_t)p->count * rb->cb.item_bytes;
  }
  return BAL_OK;
}

static int ends_pack(bal_rebalance *rb, const bal__rebalance_pkg *p, void *buf, size_t bytes) {
  return rb->cb.pack(p->end, p->skip, p->count, buf, bytes, rb->cb.arg) != 0 ? BAL_ECALLBACK
                                                                              : BAL_OK;
}

static int ends_unpack(bal_rebalance *rb, const bal__rebalance_pkg *p, const void *buf,
                       size_t bytes) {
  return rb->cb.unpack(p->end, p->count, buf, bytes, rb->cb.arg) != 0 ? BAL_ECALLBACK : BAL_OK;
}

/* Take back the first k unpacked packages (in reverse order). */
static void ends_take_back(bal_rebalance *rb, const bal__rebalance_pkg *in, int k) {
  for (int j = k - 1; j >= 0; j--) rb->cb.remove(in[j].end, in[j].count, rb->cb.arg);
}

/* One call per end: packages from one end are adjacent, skip counted from it. */
static void ends_drop_sent(bal_rebalance *rb, const bal__rebalance_pkg *out, int nout) {
  int64_t per_end[2] = {0, 0};
  for (int j = 0; j < nout; j++) per_end[out[j].end] += out[j].count;
  for (int e = 0; e < 2; e++)
    if (per_end[e] > 0) rb->cb.remove((bal_rebalance_end)e, per_end[e], rb->cb.arg);
}

const bal__rebalance_mover bal__rebalance_mover_ends = {ends_bytes, ends_pack, ends_unpack,
                                                        ends_take_back, ends_drop_sent};

/* ---- the protocol ---- */

int bal__rebalance_migrate(bal_rebalance *rb, const bal__rebalance_mover *mv,
                           const bal__rebalance_pkg *out, int nout, const bal__rebalance_pkg *in,
                           int nin, int64_t expect, int64_t *moved) {
  int err = 0, who = -1, rc;
  /* Bookkeeping arrays come from the balancer (allocated at creation), so
   * no rank can drop out of the size exchange below for lack of them. */
  unsigned char **obuf = rb->obuf, **ibuf = rb->ibuf;
  uint64_t *osz = rb->osz, *isz = rb->isz;
  MPI_Request *req = rb->req_mig;
  for (int j = 0; j < nout; j++) obuf[j] = NULL, osz[j] = 0;
  for (int j = 0; j < nin; j++) ibuf[j] = NULL, isz[j] = 0;

  /* 1. the count this rank reported must still hold (pipelined mode: the
   * application must not change it between the exchange and now) */
  int64_t cnt = -1;
  if (!err && rb->cb.count(&cnt, rb->cb.arg) != 0) err = BAL_ECALLBACK;
  if (!err && cnt != expect) err = BAL_EINVAL;
  for (int j = 0; j < nout && !err; j++) {
    size_t b = 0;
    if ((err = mv->bytes(rb, &out[j], &b)) != BAL_OK) break;
    if (b > (size_t)INT_MAX) { /* one MPI message per package */
      err = BAL_ERANGE;
      break;
    }
    obuf[j] = malloc(b ? b : 1);
    if (!obuf[j]) {
      err = BAL_ENOMEM;
      break;
    }
    if ((err = mv->pack(rb, &out[j], obuf[j], b)) != BAL_OK) break;
    osz[j] = b;
  }
  /* Sizes are exchanged even after a local failure (as 0) so that every
   * message is matched; the agreement below then cancels the migration. */
  int nr = 0, mpi_ok = 1;
  for (int j = 0; j < nin; j++)
    mpi_ok &= MPI_Irecv(&isz[j], 1, MPI_UINT64_T, in[j].peer, TAG_SIZE, rb->comm, &req[nr++]) ==
              MPI_SUCCESS;
  for (int j = 0; j < nout; j++)
    mpi_ok &= MPI_Isend(&osz[j], 1, MPI_UINT64_T, out[j].peer, TAG_SIZE, rb->comm, &req[nr++]) ==
              MPI_SUCCESS;
  mpi_ok &= MPI_Waitall(nr, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
  if (!mpi_ok) {
    rc = BAL_EMPI;
    goto done;
  }
  for (int j = 0; j < nin && !err; j++) {
    ibuf[j] = malloc(isz[j] ? (size_t)isz[j] : 1);
    if (!ibuf[j]) err = BAL_ENOMEM;
  }
  rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
  if (rc != 0) goto done;

  /* 2. the packages */
  nr = 0;
  for (int j = 0; j < nin; j++)
    mpi_ok &= MPI_Irecv(ibuf[j], (int)isz[j], MPI_BYTE, in[j].peer, TAG_DATA, rb->comm,
                        &req[nr++]) == MPI_SUCCESS;
  for (int j = 0; j < nout; j++)
    mpi_ok &= MPI_Isend(obuf[j], (int)osz[j], MPI_BYTE, out[j].peer, TAG_DATA, rb->comm,
                        &req[nr++]) == MPI_SUCCESS;
  mpi_ok &= MPI_Waitall(nr, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS;
  if (!mpi_ok) {
    rc = BAL_EMPI;
    goto done;
  }

  /* 3. unpack, all or nothing across ranks */
  int done_in = 0;
  for (; done_in < nin; done_in++)
    if ((err = mv->unpack(rb, &in[done_in], ibuf[done_in], (size_t)isz[done_in])) != BAL_OK)
      break;
  rc = bal__rebalance_agree(rb->comm, rb->rank, err, &who);
  if (rc != 0) {
    mv->take_back(rb, in, done_in);
    goto done;
  }

  /* 4. the sent items leave */
  int64_t items = 0;
  double bytes = 0.0;
  for (int j = 0; j < nout; j++) {
    items += out[j].count;
    bytes += (double)osz[j];
    rb->st.bytes_sent += (size_t)osz[j];
    rb->st.items_sent += out[j].count;
  }
  for (int j = 0; j < nin; j++) {
    items += in[j].count;
    bytes += (double)isz[j];
    rb->st.items_received += in[j].count;
  }
  mv->drop_sent(rb, out, nout);
  rb->last_move_bytes = bytes;
  *moved = items;
done:
  if (who >= 0) rb->st.error_rank = who;
  for (int j = 0; j < nout; j++) free(obuf[j]);
  for (int j = 0; j < nin; j++) free(ibuf[j]);
  return rc;
}
