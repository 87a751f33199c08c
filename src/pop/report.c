/* The collective report (ballast/pop.h): every rank's region totals,
 * gathered on every rank with the PMPI_ entry points (the report's own
 * messages are not the program's communication). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/log.h"
#include "pop_internal.h"

/* Per region and rank: elapsed_ns, mpi_ns, calls. */
enum { REC_ELAPSED, REC_MPI, REC_CALLS, REC_N };

struct bal_pop_report {
  int ranks, regions;
  char (*name)[BAL_POP_MAX_NAME + 1];
  int *node;        /* per rank */
  int64_t *rec;     /* [rank][region][REC_N] */
};

/* FNV-1a of a region name. */
static uint64_t name_hash(const char *name) {
  uint64_t h = 1469598103934665603ull;
  for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return h;
}

/* Same regions on every rank? The first index where they differ, or -1.
 * Two reductions, however many regions: the counts, then the hash of each
 * name, both as the maximum of the value and of its complement (whose
 * complement is the minimum), so that a name differs where the two
 * disagree. */
static int first_difference(MPI_Comm comm, int *rc) {
  int n[2] = {bal__pop.nregions, -bal__pop.nregions}, nmax[2];
  *rc = BAL_OK;
  if (PMPI_Allreduce(n, nmax, 2, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS) {
    *rc = BAL_EMPI;
    return -1;
  }
  int hi = nmax[0], lo = -nmax[1];
  unsigned long long h[2 * BAL_POP_MAX_REGIONS], hmax[2 * BAL_POP_MAX_REGIONS];
  for (int i = 0; i < lo; i++) {
    h[2 * i] = name_hash(bal__pop.region[i].name);
    h[2 * i + 1] = ~h[2 * i];
  }
  if (PMPI_Allreduce(h, hmax, 2 * lo, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm) != MPI_SUCCESS) {
    *rc = BAL_EMPI;
    return -1;
  }
  for (int i = 0; i < lo; i++)
    if (hmax[2 * i] != ~hmax[2 * i + 1]) return i;
  return lo != hi ? lo : -1;
}

/* Each rank's node, numbered from 0 in the order of the nodes' first ranks:
 * the lowest rank of comm sharing memory with it. */
static int nodes_of(MPI_Comm comm, int rank, int *node, int ranks) {
  MPI_Comm local;
  if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local) != MPI_SUCCESS)
    return BAL_EMPI;
  int leader = rank;
  int rc = PMPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, local);
  PMPI_Comm_free(&local);
  if (rc != MPI_SUCCESS) return BAL_EMPI;
  if (PMPI_Allgather(&leader, 1, MPI_INT, node, 1, MPI_INT, comm) != MPI_SUCCESS) return BAL_EMPI;
  /* leaders are ranks: renumber them densely in order of appearance */
  int next = 0;
  for (int k = 0; k < ranks; k++) {
    if (node[k] == k) {
      node[k] = -1 - next++; /* mark as renumbered (negative) */
    } else {
      node[k] = node[node[k]]; /* its leader is lower, already renumbered */
    }
  }
  for (int k = 0; k < ranks; k++) node[k] = -1 - node[k];
  return BAL_OK;
}

int bal_pop_report_create(MPI_Comm comm, bal_pop_report **out) {
  if (!bal__pop.initialized) return BAL_ENOTSUP;
  if (out == NULL) return BAL_EINVAL;
  int64_t now = bal__now_ns();
  double ns_per_tick = bal__pop_ns_per_tick(now); /* one ratio for every region */
  int rank, ranks, rc;
  if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &ranks) != MPI_SUCCESS)
    return BAL_EMPI;
  int diff = first_difference(comm, &rc);
  if (rc != BAL_OK) return rc;
  if (diff >= 0) {
    bal__log(BAL_LOG_ERROR, "pop", "report: the ranks' regions differ from region %d ('%s' on rank %d)",
             diff, diff < bal__pop.nregions ? bal__pop.region[diff].name : "(none)", rank);
    return BAL_EINVAL;
  }
  int R = bal__pop.nregions;
  bal_pop_report *rep = calloc(1, sizeof *rep);
  int64_t *mine = malloc((size_t)R * REC_N * sizeof *mine);
  if (rep != NULL) {
    rep->ranks = ranks;
    rep->regions = R;
    rep->name = malloc((size_t)R * sizeof *rep->name);
    rep->node = malloc((size_t)ranks * sizeof *rep->node);
    rep->rec = malloc((size_t)ranks * R * REC_N * sizeof *rep->rec);
  }
  /* Out of memory on one rank must not leave the others in the gathers. */
  int ok = rep && mine && rep->name && rep->node && rep->rec, all_ok = 0;
  if (PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
    rc = BAL_EMPI;
  } else if (!all_ok) {
    rc = BAL_ENOMEM;
  } else {
    for (int i = 0; i < R; i++) {
      memcpy(rep->name[i], bal__pop.region[i].name, sizeof rep->name[i]);
      bal__pop_region_now(&bal__pop.region[i], now, &mine[i * REC_N + REC_ELAPSED],
                          &mine[i * REC_N + REC_MPI], &mine[i * REC_N + REC_CALLS]);
      mine[i * REC_N + REC_MPI] = (int64_t)((double)mine[i * REC_N + REC_MPI] * ns_per_tick);
    }
    rc = nodes_of(comm, rank, rep->node, ranks);
    if (rc == BAL_OK && PMPI_Allgather(mine, R * REC_N, MPI_INT64_T, rep->rec, R * REC_N,
                                       MPI_INT64_T, comm) != MPI_SUCCESS)
      rc = BAL_EMPI;
  }
  free(mine);
  if (rc != BAL_OK) {
    bal_pop_report_destroy(rep);
    return rc;
  }
  *out = rep;
  return BAL_OK;
}

void bal_pop_report_destroy(bal_pop_report *rep) {
  if (rep == NULL) return;
  free(rep->name);
  free(rep->node);
  free(rep->rec);
  free(rep);
}

int bal_pop_report_regions(const bal_pop_report *rep) { return rep ? rep->regions : BAL_EINVAL; }

int bal_pop_report_ranks(const bal_pop_report *rep) { return rep ? rep->ranks : BAL_EINVAL; }

const char *bal_pop_report_region_name(const bal_pop_report *rep, int region) {
  if (rep == NULL || region < 0 || region >= rep->regions) return NULL;
  return rep->name[region];
}

int bal_pop_report_rank(const bal_pop_report *rep, int region, int rank, bal_pop_rank_times *out) {
  if (rep == NULL || out == NULL || region < 0 || region >= rep->regions || rank < 0 ||
      rank >= rep->ranks)
    return BAL_EINVAL;
  const int64_t *r = &rep->rec[((size_t)rank * rep->regions + region) * REC_N];
  out->node = rep->node[rank];
  out->elapsed_s = (double)r[REC_ELAPSED] * 1e-9;
  out->mpi_s = (double)r[REC_MPI] * 1e-9;
  out->useful_s = (double)(r[REC_ELAPSED] - r[REC_MPI]) * 1e-9;
  out->calls = r[REC_CALLS];
  return BAL_OK;
}

int bal_pop_report_figures(const bal_pop_report *rep, int region, bal_pop_figures *out) {
  if (rep == NULL || out == NULL || region < 0 || region >= rep->regions) return BAL_EINVAL;
  double *el = malloc((size_t)rep->ranks * sizeof *el);
  double *us = malloc((size_t)rep->ranks * sizeof *us);
  int rc = BAL_ENOMEM;
  if (el && us) {
    for (int k = 0; k < rep->ranks; k++) {
      bal_pop_rank_times t;
      bal_pop_report_rank(rep, region, k, &t);
      el[k] = t.elapsed_s;
      us[k] = fmax(t.useful_s, 0.0);
    }
    rc = bal_pop_figures_compute(rep->ranks, el, us, rep->node, out);
  }
  free(el);
  free(us);
  return rc;
}
