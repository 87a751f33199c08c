/* The halo exchange, planned from who owns which row. A row needs the rows
 * above and below it; whichever rank holds them sends them. After string
 * moves that is the neighbouring ranks (or further, past ranks left
 * empty); after direct moves a rank's rows may come from anywhere. Both
 * sides order a peer's rows by global index, so no index travels with
 * the values. */
#include <stdlib.h>
#include <string.h>

#include "heat.h"
#include "core/clock.h"

typedef struct pair {
  int peer;
  int64_t gid, local;
} pair;

static int by_peer_gid(const void *a, const void *b) {
  const pair *x = a, *y = b;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  return (x->gid > y->gid) - (x->gid < y->gid);
}

void halo_free(heat_halo *h) {
  free(h->peer);
  free(h->send_cnt);
  free(h->recv_cnt);
  free(h->send_off);
  free(h->recv_off);
  free(h->send_rows);
  free(h->up);
  free(h->down);
  free(h->send_buf);
  free(h->ghost);
  free(h->req);
  memset(h, 0, sizeof *h);
}

/* Peers are the union of ranks we send to and receive from; the halo is
 * symmetric (if I need your row g, you need my row g+-1), but building the
 * union keeps the plan correct without relying on that. */
static int add_peer(heat_halo *h, int peer, int p) {
  for (int k = 0; k < h->npeers; k++)
    if (h->peer[k] == peer) return k;
  if (h->npeers == p) return -1;
  h->peer[h->npeers] = peer;
  return h->npeers++;
}

int halo_build(heat_halo *h, const heat_grid *g, MPI_Comm comm) {
  int me, p;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &p);
  halo_free(h);
  int64_t ny = g->ny, n = g->n;
  int cnt = (int)n, *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs);
  int64_t *all = malloc((size_t)ny * sizeof *all), *local = malloc((size_t)ny * sizeof *local);
  int *owner = malloc((size_t)ny * sizeof *owner);
  pair *need = malloc((size_t)(2 * n + 1) * sizeof *need), *give = malloc((size_t)(2 * n + 1) * sizeof *give);
  h->up = malloc((size_t)(n + 1) * sizeof *h->up);
  h->down = malloc((size_t)(n + 1) * sizeof *h->down);
  h->peer = malloc((size_t)p * sizeof *h->peer);
  h->send_cnt = calloc((size_t)p, sizeof *h->send_cnt);
  h->recv_cnt = calloc((size_t)p, sizeof *h->recv_cnt);
  h->send_off = calloc((size_t)p + 1, sizeof *h->send_off);
  h->recv_off = calloc((size_t)p + 1, sizeof *h->recv_off);
  h->req = malloc((size_t)(2 * p) * sizeof *h->req);
  int rc = -1;
  if (!counts || !displs || !all || !local || !owner || !need || !give || !h->up || !h->down ||
      !h->peer || !h->send_cnt || !h->recv_cnt || !h->send_off || !h->recv_off || !h->req)
    goto out;
  MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, comm);
  for (int r = 0, d = 0; r < p; r++) {
    displs[r] = d;
    d += counts[r];
  }
  MPI_Allgatherv(g->gid, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, comm);
  for (int r = 0; r < p; r++)
    for (int k = 0; k < counts[r]; k++) owner[all[displs[r] + k]] = r;
  for (int64_t gi = 0; gi < ny; gi++) local[gi] = -1;
  for (int64_t i = 0; i < n; i++) local[g->gid[i]] = i;

  /* Rows I need from others, and rows others need from me. */
  int64_t nneed = 0, ngive = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t gi = g->gid[i];
    for (int side = 0; side < 2; side++) {
      int64_t nb = side == 0 ? gi - 1 : gi + 1;
      if (nb < 0 || nb >= ny || owner[nb] == me) continue;
      need[nneed++] = (pair){owner[nb], nb, -1};
      /* my row gi goes to the owner of nb; the same row may be asked for
       * twice by one peer (it holds both gi-1 and gi+1): deduplicated below */
      give[ngive++] = (pair){owner[nb], gi, i};
    }
  }
  qsort(need, (size_t)nneed, sizeof *need, by_peer_gid);
  qsort(give, (size_t)ngive, sizeof *give, by_peer_gid);
  int64_t w = 0;
  for (int64_t k = 0; k < nneed; k++)
    if (!w || need[w - 1].peer != need[k].peer || need[w - 1].gid != need[k].gid) need[w++] = need[k];
  nneed = w;
  w = 0;
  for (int64_t k = 0; k < ngive; k++)
    if (!w || give[w - 1].peer != give[k].peer || give[w - 1].gid != give[k].gid) give[w++] = give[k];
  ngive = w;

  h->send_rows = malloc((size_t)(ngive + 1) * sizeof *h->send_rows);
  h->send_buf = malloc((size_t)(ngive + 1) * (size_t)g->nx * sizeof(double));
  h->ghost = malloc((size_t)(nneed + 2) * (size_t)g->nx * sizeof(double));
  if (!h->send_rows || !h->send_buf || !h->ghost) goto out;
  for (int x = 0; x < g->nx; x++) {
    h->ghost[x] = 100.0;         /* slot 0: the hot edge above row 0 */
    h->ghost[g->nx + x] = 0.0;   /* slot 1: the cold edge below row ny-1 */
  }
  for (int64_t k = 0; k < ngive; k++) {
    int q = add_peer(h, give[k].peer, p);
    h->send_cnt[q]++;
    h->send_rows[k] = give[k].local;
  }
  for (int64_t k = 0; k < nneed; k++) {
    int q = add_peer(h, need[k].peer, p);
    h->recv_cnt[q]++;
    local[need[k].gid] = -(2 + k) - 1; /* ghost slot 2 + k */
  }
  /* Offsets follow the sorted order, which is by peer rank; the peer list
   * is in first-seen order, so compute each peer's offset by search. */
  for (int q = 0; q < h->npeers; q++) {
    int64_t s = 0, r = 0;
    while (s < ngive && give[s].peer != h->peer[q]) s++;
    while (r < nneed && need[r].peer != h->peer[q]) r++;
    h->send_off[q] = (int)s;
    h->recv_off[q] = (int)r;
  }
  for (int64_t i = 0; i < n; i++) {
    int64_t gi = g->gid[i];
    h->up[i] = gi == 0 ? -1 : local[gi - 1];            /* -1: slot 0, hot */
    h->down[i] = gi == ny - 1 ? -2 : local[gi + 1];     /* -2: slot 1, cold */
  }
  rc = 0;
out:
  free(counts);
  free(displs);
  free(all);
  free(local);
  free(owner);
  free(need);
  free(give);
  return rc;
}

int halo_exchange(heat_halo *h, const heat_grid *g, MPI_Comm comm, double poll_s) {
  int nx = g->nx, nreq = 0, rc;
  for (int q = 0; q < h->npeers; q++) {
    if (!h->recv_cnt[q]) continue;
    rc = MPI_Irecv(h->ghost + (size_t)(2 + h->recv_off[q]) * (size_t)nx, h->recv_cnt[q] * nx,
                   MPI_DOUBLE, h->peer[q], 7, comm, &h->req[nreq++]);
    if (rc != MPI_SUCCESS) return rc;
  }
  for (int q = 0; q < h->npeers; q++) {
    if (!h->send_cnt[q]) continue;
    double *buf = h->send_buf + (size_t)h->send_off[q] * (size_t)nx;
    for (int k = 0; k < h->send_cnt[q]; k++)
      memcpy(buf + (size_t)k * (size_t)nx, g->u + (size_t)h->send_rows[h->send_off[q] + k] * (size_t)nx,
             (size_t)nx * sizeof(double));
    rc = MPI_Isend(buf, h->send_cnt[q] * nx, MPI_DOUBLE, h->peer[q], 7, comm, &h->req[nreq++]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return heat_wait(nreq, h->req, poll_s);
}

int heat_wait(int n, MPI_Request *req, double poll_s) {
  if (poll_s <= 0) return MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
  /* Open MPI's blocking waits spin; on an oversubscribed machine a waiting
   * rank would take the CPU from a computing one. */
  for (;;) {
    int done = 0;
    int rc = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    bal__sleep_ns((int64_t)(poll_s * 1e9));
  }
}
