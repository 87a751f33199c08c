/* MPI point-to-point transport of the `steal` module (see transport.h). */
#include "transport.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/error.h>

#include "core/clock.h"
#include "core/rng.h"

/* Tags of the barrier's messages, of simulated bulk (SMPI builds) and of
 * the header announcing a long message (split_above); the balancer's own
 * tags are small. */
enum { TAG_BAR_UP = 0x7101, TAG_BAR_DOWN = 0x7102, TAG_BULK = 0x7103, TAG_LONG = 0x7104 };

/* A long message's header: the tag and length of the message that follows
 * it from the same sender (MPI keeps their order). */
typedef struct long_hdr {
  int32_t tag;
  uint32_t pad;
  uint64_t len;
} long_hdr;

#ifdef BALLAST_SMPI
/* Simulated bulk travels in pieces of at most this many bytes, all from and
 * into one buffer that SMPI maps once for every rank (SMPI_SHARED_MALLOC:
 * its pages are shared, so it costs the memory of one rank, and SMPI skips
 * copying shared buffers). Mapped at a rank's first bulk transfer: a run
 * without bulk (small tasks) maps none, and the resident set size, which
 * counts the shared pages once per rank mapping them, stays honest. */
#define BULK_CHUNK ((size_t)1 << 24)

static bool bulk_buf(bal__tp *tp) {
  if (!tp->bulk_buf) tp->bulk_buf = SMPI_SHARED_MALLOC(BULK_CHUNK);
  return tp->bulk_buf != NULL;
}
#endif

/* The test hook of transport.h: true if this MPI call is to fail. */
static bool fault(bal__tp *tp) { return tp->fail_countdown > 0 && --tp->fail_countdown == 0; }

int bal__tp_init(bal__tp *tp, MPI_Comm comm) {
  memset(tp, 0, sizeof *tp);
  tp->comm = comm;
  if (MPI_Comm_rank(comm, &tp->rank) != MPI_SUCCESS || MPI_Comm_size(comm, &tp->size) != MPI_SUCCESS)
    return BAL_EMPI;
  tp->peers = calloc(((size_t)tp->size + 7) / 8, 1);
  return tp->peers ? BAL_OK : BAL_ENOMEM;
}

void bal__tp_free(bal__tp *tp) {
  for (size_t i = 0; i < tp->nsends; i++) free(tp->sends[i].buf);
  free(tp->sends);
  free(tp->peers);
  free(tp->wait_buf);
#ifdef BALLAST_SMPI
  if (tp->bulk_buf) SMPI_SHARED_FREE(tp->bulk_buf);
#endif
  memset(tp, 0, sizeof *tp);
}

void bal__tp_reset_stats(bal__tp *tp) {
  memset(tp->peers, 0, ((size_t)tp->size + 7) / 8);
  tp->npeers = 0;
  tp->messages = tp->bytes = 0;
}

/* Room for k more sends; false when out of memory. */
static bool reserve_sends(bal__tp *tp, size_t k) {
  if (tp->nsends + k <= tp->capsends) return true;
  size_t cap = tp->capsends ? 2 * tp->capsends : 16;
  while (cap < tp->nsends + k) cap *= 2;
  bal__tp_send *n = realloc(tp->sends, cap * sizeof *n);
  if (!n) return false;
  tp->sends = n;
  tp->capsends = cap;
  return true;
}

/* Post one send; buf (owned) is freed once it completes, unless owned is 0. */
static int post_raw(bal__tp *tp, int dest, int tag, void *buf, size_t len, int owned) {
  if (len > INT_MAX) {
    if (owned) free(buf);
    return BAL_ERANGE;
  }
  if (!reserve_sends(tp, 1)) {
    if (owned) free(buf);
    return BAL_ENOMEM;
  }
  bal__tp_send *s = &tp->sends[tp->nsends];
  if (fault(tp) || MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, tp->comm, &s->req) != MPI_SUCCESS) {
    if (owned) free(buf);
    return BAL_EMPI;
  }
  s->buf = owned ? buf : NULL;
  tp->nsends++;
  return BAL_OK;
}

/* post_raw, after a long_hdr when len is past split_above, so that a
 * receiver waiting with a buffer of split_above bytes (bal__tp_wait_msg)
 * never gets more than that unannounced. What can fail before the body
 * is posted is checked before the header is: a header without its body
 * would leave the receiver blocked in MPI_Recv for it (only MPI_Isend
 * itself failing on the body still can, and then the run has failed). */
static int post_send_buf(bal__tp *tp, int dest, int tag, void *buf, size_t len, int owned) {
  if (tp->split_above && len > tp->split_above) {
    long_hdr *h = len <= INT_MAX && reserve_sends(tp, 2) ? malloc(sizeof *h) : NULL;
    int rc = len > INT_MAX ? BAL_ERANGE : BAL_ENOMEM;
    if (h) {
      *h = (long_hdr){.tag = tag, .len = len};
      rc = post_raw(tp, dest, TAG_LONG, h, sizeof *h, 1);
    }
    if (rc != BAL_OK) {
      if (owned) free(buf);
      return rc;
    }
  }
  return post_raw(tp, dest, tag, buf, len, owned);
}

static int post_send(bal__tp *tp, int dest, int tag, void *buf, size_t len) {
  return post_send_buf(tp, dest, tag, buf, len, 1);
}

int bal__tp_send_msg(bal__tp *tp, int dest, int tag, void *buf, size_t len, size_t bulk) {
#ifdef BALLAST_SMPI
  /* Ahead of the message: MPI keeps the order of one sender's messages, so
   * the receiver absorbs the bulk before it sees the message. */
  for (size_t left = bulk; left > 0;) {
    size_t n = left < BULK_CHUNK ? left : BULK_CHUNK;
    int rc = bulk_buf(tp) ? post_send_buf(tp, dest, TAG_BULK, tp->bulk_buf, n, 0) : BAL_ENOMEM;
    if (rc != BAL_OK) {
      free(buf);
      return rc;
    }
    left -= n;
  }
#else
  if (bulk) {
    free(buf);
    return BAL_ERANGE; /* only SMPI builds drop task bytes */
  }
#endif
  int rc = post_send(tp, dest, tag, buf, len);
  if (rc != BAL_OK) return rc;
  tp->messages++;
  tp->bytes += (int64_t)(len + bulk);
  unsigned char bit = (unsigned char)(1u << (dest % 8));
  if (!(tp->peers[dest / 8] & bit)) {
    tp->peers[dest / 8] |= bit;
    tp->npeers++;
  }
  return BAL_OK;
}

int bal__tp_send_ctl(bal__tp *tp, int dest, int tag, void *buf, size_t len) {
  return post_send(tp, dest, tag, buf, len);
}

int bal__tp_sync(bal__tp *tp) {
  return fault(tp) || MPI_Barrier(tp->comm) != MPI_SUCCESS ? BAL_EMPI : BAL_OK;
}

int bal__tp_allgather(bal__tp *tp, const void *mine, size_t bytes, void *all) {
  if (bytes > INT_MAX) return BAL_ERANGE;
  if (fault(tp) || MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                                 tp->comm) != MPI_SUCCESS)
    return BAL_EMPI;
  return BAL_OK;
}

/* A barrier message carries the epoch of its barrier. */
static int send_bar(bal__tp *tp, int dest, int tag) {
  int64_t *e = malloc(sizeof *e);
  if (!e) return BAL_ENOMEM;
  *e = tp->epoch;
  return post_send(tp, dest, tag, e, sizeof *e);
}

/* Receive count bytes from src with tag into a new buffer (*b, NULL when
 * count is 0), or into bulk_buf for simulated bulk (SMPI builds: the
 * transfer is all that matters), *b then NULL. BAL_OK or a BAL_E* code. */
static int recv_exact(bal__tp *tp, int src, int tag, size_t count, void **b) {
  *b = NULL;
  if (count > INT_MAX) return BAL_EMPI;
  void *into = NULL;
#ifdef BALLAST_SMPI
  if (tag == TAG_BULK) {
    if (!bulk_buf(tp)) return BAL_ENOMEM;
    if (count > BULK_CHUNK) return BAL_EMPI;
    into = tp->bulk_buf;
  }
#endif
  if (!into && count > 0 && !(into = *b = malloc(count))) return BAL_ENOMEM;
  if (fault(tp) || MPI_Recv(into, (int)count, MPI_BYTE, src, tag, tp->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    free(*b);
    *b = NULL;
    return BAL_EMPI;
  }
  return BAL_OK;
}

/* One message received whole (b owned, count bytes): receive the message a
 * long header announces, absorb bulk and the barrier's messages, or hand
 * it over. Returns 1 (handed over: the outputs are filled), 0 (absorbed)
 * or a negative BAL_E* code; b is freed unless handed over. */
static int take(bal__tp *tp, int src, int tag, void *b, size_t count, int *osrc, int *otag, void **obuf,
                size_t *olen) {
  if (tag == TAG_LONG) {
    long_hdr h;
    if (count != sizeof h) {
      free(b);
      return BAL_EMPI;
    }
    memcpy(&h, b, sizeof h);
    free(b);
    int rc = recv_exact(tp, src, h.tag, h.len, &b);
    if (rc != BAL_OK) return rc;
    tag = h.tag;
    count = h.len;
  }
#ifdef BALLAST_SMPI
  if (tag == TAG_BULK) {
    free(b); /* NULL: bulk lands in bulk_buf, or stays in wait_buf */
    return 0;
  }
#endif
  if (tp->delay_max_ns > 0)
    bal__sleep_ns((int64_t)(bal__splitmix64(&tp->delay_rng) % (uint64_t)(tp->delay_max_ns + 1)));
  if (tag == TAG_BAR_UP || tag == TAG_BAR_DOWN) {
    int64_t e = 0;
    if (count != sizeof e) {
      free(b);
      return BAL_EMPI;
    }
    memcpy(&e, b, sizeof e);
    free(b);
    if (tag == TAG_BAR_UP)
      tp->bar_up[e & 1]++;
    else
      tp->bar_down[e & 1] = 1;
    return 0;
  }
  *osrc = src;
  *otag = tag;
  *obuf = b;
  *olen = count;
  return 1;
}

int bal__tp_recv_msg(bal__tp *tp, int *src, int *tag, void **buf, size_t *len) {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    if (fault(tp) || MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, tp->comm, &flag, &st) != MPI_SUCCESS) return BAL_EMPI;
    if (!flag) return 0;
    int count = 0;
    if (MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0) return BAL_EMPI;
    void *b;
    int rc = recv_exact(tp, st.MPI_SOURCE, st.MPI_TAG, (size_t)count, &b);
    if (rc != BAL_OK) return rc;
    rc = take(tp, st.MPI_SOURCE, st.MPI_TAG, b, (size_t)count, src, tag, buf, len);
    if (rc != 0) return rc;
  }
}

int bal__tp_wait_msg(bal__tp *tp, int *src, int *tag, void **buf, size_t *len) {
  if (!tp->split_above || tp->split_above > INT_MAX) return BAL_EINVAL;
  tp->waits++;
  if (!tp->wait_buf && !(tp->wait_buf = malloc(tp->split_above))) return BAL_ENOMEM;
  MPI_Status st;
  int count = 0;
  if (fault(tp) || MPI_Recv(tp->wait_buf, (int)tp->split_above, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, tp->comm,
                            &st) != MPI_SUCCESS ||
      MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
    return BAL_EMPI;
  void *b = NULL;
#ifdef BALLAST_SMPI
  if (st.MPI_TAG != TAG_BULK)
#endif
    if (count > 0) {
      if (!(b = malloc((size_t)count))) return BAL_ENOMEM;
      memcpy(b, tp->wait_buf, (size_t)count);
    }
  return take(tp, st.MPI_SOURCE, st.MPI_TAG, b, (size_t)count, src, tag, buf, len);
}

int bal__tp_progress(bal__tp *tp) {
  size_t j = 0;
  for (size_t i = 0; i < tp->nsends; i++) {
    int done = 0;
    if (fault(tp) || MPI_Test(&tp->sends[i].req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return BAL_EMPI;
    if (done)
      free(tp->sends[i].buf);
    else
      tp->sends[j++] = tp->sends[i];
  }
  tp->nsends = j;
  return BAL_OK;
}

int bal__tp_wait_sends(bal__tp *tp) {
  for (size_t i = 0; i < tp->nsends; i++) {
    if (fault(tp) || MPI_Wait(&tp->sends[i].req, MPI_STATUS_IGNORE) != MPI_SUCCESS) return BAL_EMPI;
    free(tp->sends[i].buf);
  }
  tp->nsends = 0;
  return BAL_OK;
}

/* Binary tree rooted at rank 0: a rank reports to its parent once all its
 * children have reported and it has entered itself; the root then releases
 * its children, which release theirs. Barrier e+1 can start on a rank
 * before its children have seen the release of barrier e, hence the
 * counters indexed by epoch parity (e+2 cannot start before they have). */
int bal__tp_barrier_start(bal__tp *tp) {
  tp->epoch++;
  tp->bar_active = 1;
  tp->bar_up_sent = 0;
  return BAL_OK;
}

int bal__tp_barrier_test(bal__tp *tp, int *done) {
  *done = 0;
  if (!tp->bar_active) return BAL_OK;
  int par = (int)(tp->epoch & 1), rc;
  int children = 0;
  for (int c = 2 * tp->rank + 1; c <= 2 * tp->rank + 2 && c < tp->size; c++) children++;
  if (!tp->bar_up_sent) {
    if (tp->bar_up[par] < children) return BAL_OK;
    tp->bar_up_sent = 1;
    if (tp->rank == 0)
      tp->bar_down[par] = 1;
    else if ((rc = send_bar(tp, (tp->rank - 1) / 2, TAG_BAR_UP)) != BAL_OK)
      return rc;
  }
  if (!tp->bar_down[par]) return BAL_OK;
  for (int c = 2 * tp->rank + 1; c <= 2 * tp->rank + 2 && c < tp->size; c++)
    if ((rc = send_bar(tp, c, TAG_BAR_DOWN)) != BAL_OK) return rc;
  tp->bar_up[par] = 0;
  tp->bar_down[par] = 0;
  tp->bar_active = 0;
  *done = 1;
  return BAL_OK;
}
