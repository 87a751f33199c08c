/* The halo of an unstructured decomposition of a structured grid: every
 * rank knows every cell's owner (gathered again after each move), so each
 * pair of ranks derives the same lists of cells to exchange, ascending by
 * global index on both sides, and one message per peer and direction
 * carries them. The five-point stencil then reads own and halo values from
 * one global-size array (simple, O(cells) memory per rank: an example). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, clock_nanosleep (heat_geo.h) */
#endif
#include <stdlib.h>
#include <string.h>

#include "heat_geo.h"

int halo_init(halo *h, const problem *pb, MPI_Comm comm) {
  memset(h, 0, sizeof *h);
  MPI_Comm_rank(comm, &h->rank);
  MPI_Comm_size(comm, &h->size);
  size_t n = (size_t)pb->nx * (size_t)pb->ny, p = (size_t)h->size;
  h->owner = malloc(n * sizeof *h->owner);
  h->val = calloc(n, sizeof *h->val);
  h->peer = malloc(p * sizeof *h->peer);
  h->send_off = malloc((p + 1) * sizeof *h->send_off);
  h->recv_off = malloc((p + 1) * sizeof *h->recv_off);
  h->req = malloc(2 * p * sizeof *h->req);
  return h->owner && h->val && h->peer && h->send_off && h->recv_off && h->req ? 0
                                                                                           : 1;
}

/* The four neighbours of cell g (-1 outside the grid). */
static void neighbours(const problem *pb, int64_t g, int64_t nb[4]) {
  int64_t x = g % pb->nx, y = g / pb->nx;
  nb[0] = x > 0 ? g - 1 : -1;
  nb[1] = x + 1 < pb->nx ? g + 1 : -1;
  nb[2] = y > 0 ? g - pb->nx : -1;
  nb[3] = y + 1 < pb->ny ? g + pb->nx : -1;
}

int halo_rebuild(halo *h, const problem *pb, const cells *c, MPI_Comm comm) {
  const int64_t ncell = (int64_t)pb->nx * pb->ny;
  /* owners: every rank's global indices, gathered */
  int *cnt = malloc((size_t)h->size * sizeof *cnt), *dsp = malloc((size_t)h->size * sizeof *dsp);
  int64_t *all = malloc((size_t)ncell * sizeof *all);
  if (!cnt || !dsp || !all) return 1;
  int mine = (int)c->n;
  MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, comm);
  for (int r = 0, at = 0; r < h->size; r++) {
    dsp[r] = at;
    at += cnt[r];
  }
  MPI_Allgatherv(c->gid, mine, MPI_INT64_T, all, cnt, dsp, MPI_INT64_T, comm);
  for (int r = 0; r < h->size; r++)
    for (int j = 0; j < cnt[r]; j++) h->owner[all[dsp[r] + j]] = r;
  free(all);
  free(cnt);
  free(dsp);
  /* the lists: a cell of mine with a neighbour owned by r goes to r; a
   * cell of r next to one of mine comes from r. Marking by global index
   * gives both in ascending order. */
  unsigned char *to = calloc((size_t)ncell, 1), *from = calloc((size_t)ncell, 1);
  if (!to || !from) return 1;
  int64_t nsend = 0, nrecv = 0;
  h->npeer = 0;
  int *is_peer = calloc((size_t)h->size, sizeof *is_peer);
  if (!is_peer) return 1;
  for (int64_t i = 0; i < c->n; i++) {
    int64_t nb[4];
    neighbours(pb, c->gid[i], nb);
    for (int k = 0; k < 4; k++)
      if (nb[k] >= 0 && h->owner[nb[k]] != h->rank) is_peer[h->owner[nb[k]]] = 1;
  }
  for (int r = 0; r < h->size; r++)
    if (is_peer[r]) h->peer[h->npeer++] = r;
  free(is_peer);
  free(h->send);
  free(h->recv);
  h->send = malloc((size_t)(4 * c->n + 1) * sizeof *h->send);
  h->recv = malloc((size_t)(4 * c->n + 1) * sizeof *h->recv);
  if (!h->send || !h->recv) return 1;
  for (int p = 0; p < h->npeer; p++) {
    int r = h->peer[p];
    h->send_off[p] = nsend;
    h->recv_off[p] = nrecv;
    memset(to, 0, (size_t)ncell);
    memset(from, 0, (size_t)ncell);
    for (int64_t i = 0; i < c->n; i++) {
      int64_t nb[4];
      neighbours(pb, c->gid[i], nb);
      for (int k = 0; k < 4; k++)
        if (nb[k] >= 0 && h->owner[nb[k]] == r) {
          to[c->gid[i]] = 1;
          from[nb[k]] = 1;
        }
    }
    for (int64_t g = 0; g < ncell; g++) {
      if (to[g]) h->send[nsend++] = g;
      if (from[g]) h->recv[nrecv++] = g;
    }
  }
  h->send_off[h->npeer] = nsend;
  h->recv_off[h->npeer] = nrecv;
  free(to);
  free(from);
  free(h->sbuf);
  free(h->rbuf);
  h->sbuf = malloc((size_t)(nsend + 1) * sizeof *h->sbuf);
  h->rbuf = malloc((size_t)(nrecv + 1) * sizeof *h->rbuf);
  return h->sbuf && h->rbuf ? 0 : 1;
}

int64_t halo_exchange(halo *h, const cells *c, MPI_Comm comm) {
  for (int64_t i = 0; i < c->n; i++) h->val[c->gid[i]] = c->u[i];
  int nr = 0;
  for (int p = 0; p < h->npeer; p++) {
    int64_t o = h->recv_off[p], m = h->recv_off[p + 1] - o;
    MPI_Irecv(h->rbuf + o, (int)m, MPI_DOUBLE, h->peer[p], 7, comm, &h->req[nr++]);
  }
  for (int p = 0; p < h->npeer; p++) {
    int64_t o = h->send_off[p], m = h->send_off[p + 1] - o;
    for (int64_t j = 0; j < m; j++) h->sbuf[o + j] = h->val[h->send[o + j]];
    MPI_Isend(h->sbuf + o, (int)m, MPI_DOUBLE, h->peer[p], 7, comm, &h->req[nr++]);
  }
  MPI_Waitall(nr, h->req, MPI_STATUSES_IGNORE);
  int64_t nrecv = h->recv_off[h->npeer];
  for (int64_t j = 0; j < nrecv; j++) h->val[h->recv[j]] = h->rbuf[j];
  return h->send_off[h->npeer];
}

/* Explicit diffusion, the boundary held at 0; neighbours in a fixed order
 * so that every decomposition computes the same bits. */
void halo_diffuse(halo *h, const problem *pb, cells *c) {
  const double alpha = 0.2;
  for (int64_t i = 0; i < c->n; i++) {
    int64_t nb[4];
    neighbours(pb, c->gid[i], nb);
    double s = 0.0;
    for (int k = 0; k < 4; k++) s += nb[k] >= 0 ? h->val[nb[k]] : 0.0;
    c->u[i] = h->val[c->gid[i]] + alpha * (s - 4.0 * h->val[c->gid[i]]);
  }
}

void halo_free(halo *h) {
  free(h->owner);
  free(h->val);
  free(h->peer);
  free(h->send_off);
  free(h->recv_off);
  free(h->send);
  free(h->recv);
  free(h->sbuf);
  free(h->rbuf);
  free(h->req);
}
