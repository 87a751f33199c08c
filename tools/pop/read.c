/* The report file of libballast_pop.so (format in src/pop/pmpi/init.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "pop_tool.h"

void pop_report_free(pop_report *r) {
  for (int i = 0; r->region && i < r->regions; i++) free(r->region[i].rank);
  free(r->region);
  memset(r, 0, sizeof *r);
}

static bool bad(pop_report *r, const char *path, long line, const char *why) {
  fprintf(stderr, POP_PROG ": report %s: line %ld: %s\n", path, line, why);
  pop_report_free(r);
  return false;
}

/* The figures of every region, from its per-rank times. */
static bool figures(pop_report *r, const char *path) {
  double *el = malloc((size_t)r->ranks * sizeof *el), *us = malloc((size_t)r->ranks * sizeof *us);
  int *node = malloc((size_t)r->ranks * sizeof *node);
  bool ok = el && us && node;
  for (int i = 0; ok && i < r->regions; i++) {
    for (int k = 0; k < r->ranks; k++) {
      el[k] = r->region[i].rank[k].elapsed_s;
      us[k] = fmax(r->region[i].rank[k].useful_s, 0.0);
      node[k] = r->region[i].rank[k].node;
    }
    int rc = bal_pop_figures_compute(r->ranks, el, us, node, &r->region[i].fig);
    if (rc != BAL_OK) {
      fprintf(stderr, POP_PROG ": report %s: region '%s': %s\n", path, r->region[i].name,
              bal_strerror(rc));
      ok = false;
    }
  }
  free(el);
  free(us);
  free(node);
  return ok;
}

bool pop_read(const char *path, pop_report *r) {
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "r");
  if (f == NULL) {
    fprintf(stderr, POP_PROG ": no report from the program (%s): did every rank reach MPI_Finalize?\n",
            strerror(errno));
    return false;
  }
  char buf[512];
  long line = 0;
  bool ended = false;
  int seen = 0; /* rows read */
  while (fgets(buf, sizeof buf, f)) {
    line++;
    if (strchr(buf, '\n') == NULL) return fclose(f), bad(r, path, line, "line too long");
    if (line == 1) {
      if (sscanf(buf, "# ballast-pop 1 ranks=%d regions=%d", &r->ranks, &r->regions) != 2 ||
          r->ranks < 1 || r->regions < 1 || r->regions > BAL_POP_MAX_REGIONS)
        return fclose(f), bad(r, path, line, "not a ballast-pop report");
      r->region = calloc((size_t)r->regions, sizeof *r->region);
      if (r->region == NULL) return fclose(f), bad(r, path, line, "out of memory");
      for (int i = 0; i < r->regions; i++)
        if (!(r->region[i].rank = calloc((size_t)r->ranks, sizeof *r->region[i].rank)))
          return fclose(f), bad(r, path, line, "out of memory");
      continue;
    }
    if (strcmp(buf, "# end\n") == 0) {
      ended = true;
      break;
    }
    char name[BAL_POP_MAX_NAME + 2];
    int rank, node;
    double el, mpi;
    long long calls;
    int i = seen / r->ranks;
    if (i >= r->regions ||
        sscanf(buf, "%64[^\t]\t%d\t%d\t%lf\t%lf\t%lld", name, &rank, &node, &el, &mpi, &calls) != 6 ||
        rank != seen % r->ranks || node < 0 || !(el >= 0) || !(mpi >= 0) || calls < 0 ||
        strlen(name) > BAL_POP_MAX_NAME)
      return fclose(f), bad(r, path, line, "not a row of the report");
    if (rank == 0) memcpy(r->region[i].name, name, strlen(name) + 1);
    else if (strcmp(name, r->region[i].name) != 0)
      return fclose(f), bad(r, path, line, "region names out of order");
    r->region[i].rank[rank] = (bal_pop_rank_times){node, el, mpi, el - mpi, calls};
    seen++;
  }
  fclose(f);
  if (!ended || seen != r->ranks * r->regions) return bad(r, path, line, "report cut short");
  if (!figures(r, path)) {
    pop_report_free(r);
    return false;
  }
  return true;
}
