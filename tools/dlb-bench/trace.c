/* ballast-dlb-bench's --trace: every rank records its balancer's events
 * (bal_steal_config.trace), rank 0 gathers them after the last run and
 * writes a Chrome trace-event timeline (dlb_write_trace(), report.c). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "dlb.h"

void dlb_on_event(void *arg, bal_steal_event ev, double t0, double t1, int peer) {
  ctx *c = arg;
  pthread_mutex_lock(&c->mu);
  if (c->nev == c->capev) {
    long long cap = c->capev ? 2 * c->capev : 4096;
    dlb_event *n = realloc(c->ev, (size_t)cap * sizeof *n);
    if (!n) { /* counted, so that the trace is not written as if whole */
      c->lost++;
      pthread_mutex_unlock(&c->mu);
      return;
    }
    c->ev = n;
    c->capev = cap;
  }
  c->ev[c->nev++] = (dlb_event){(double)ev, t0, t1, (double)peer};
  pthread_mutex_unlock(&c->mu);
}

/* Rank 0's answer to "could you allocate?", shared so that no rank enters
 * a collective that rank 0 will not join. */
static bool all_agree(int rank, bool ok_on_0) {
  int ok = rank == 0 ? ok_on_0 : 1;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

/* Gather the last run's events to rank 0 and write the trace. A trace that
 * misses events (no memory to record or gather them) is not written: it
 * would show idle time that was work. */
bool dlb_gather_trace(const opts *o, ctx *c, int rank, int p, const char *policy) {
  const long long most = INT_MAX / 4; /* doubles per rank in one MPI_Gatherv */
  long long lost = c->lost + (c->nev > most ? c->nev - most : 0), lost_all = 0;
  int n = (int)(c->nev > most ? most : c->nev);
  MPI_Reduce(&lost, &lost_all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int *counts = NULL, *displs = NULL, *rcounts = NULL, *rank_of = NULL;
  dlb_event *all = NULL;
  long long total = 0;
  bool ok = false;
  if (rank == 0) {
    counts = malloc((size_t)p * sizeof *counts);
    displs = malloc((size_t)p * sizeof *displs);
    rcounts = malloc((size_t)p * sizeof *rcounts);
  }
  if (!all_agree(rank, counts && displs && rcounts)) goto out;
  MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < p; r++) {
      displs[r] = (int)(total * 4);
      rcounts[r] = counts[r] * 4;
      total += counts[r];
    }
    all = malloc((size_t)(total ? total : 1) * sizeof *all);
    rank_of = malloc((size_t)(total ? total : 1) * sizeof *rank_of);
  }
  if (!all_agree(rank, all && rank_of)) goto out;
  if (rank == 0) {
    long long k = 0;
    for (int r = 0; r < p; r++)
      for (int i = 0; i < counts[r]; i++) rank_of[k++] = r;
  }
  MPI_Gatherv(c->ev, n * 4, MPI_DOUBLE, all, rcounts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ok = true;
out:
  if (rank == 0) {
    if (!ok || lost_all) {
      fprintf(stderr, PROG ": --trace %s: out of memory, %lld events not recorded; no trace written\n",
              o->trace, lost_all);
      ok = false;
    } else {
      ok = dlb_write_trace(o->trace, all, rank_of, total, p, policy);
    }
  }
  free(counts);
  free(displs);
  free(rcounts);
  free(all);
  free(rank_of);
  return ok;
}
