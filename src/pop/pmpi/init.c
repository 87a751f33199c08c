/* libballast_pop.so's start and end: MPI_Init and MPI_Init_thread start
 * measuring (bal_pop_init), MPI_Finalize gathers the report and, on rank
 * 0, writes it to $BALLAST_POP_OUTPUT (the file `ballast pop` reads: one
 * line per region and rank, format below) or, without that variable,
 * prints the POP table on stderr. Messages go to stderr prefixed
 * "libballast_pop:", as this library speaks for a tool, not for the
 * program.
 *
 * Report file (tab-separated, written whole: a temporary file renamed):
 *   # ballast-pop 1 ranks=P regions=R
 *   REGION<TAB>RANK<TAB>NODE<TAB>ELAPSED_S<TAB>MPI_S<TAB>CALLS   (R x P lines)
 *   # end */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include <ballast/log.h>
#include <ballast/pop.h>

#include "pmpi.h"
#include "table.h"

#define ME "libballast_pop"

static void log_stderr(bal_log_level level, const char *module, const char *msg, void *ud) {
  (void)ud;
  if ((int)level <= (int)BAL_LOG_WARN) fprintf(stderr, ME ": %s: %s\n", module, msg);
}

void pop_start(void) {
  int up = 0;
  if (PMPI_Initialized(&up) != MPI_SUCCESS || !up) return;
  bal_log_set_callback(log_stderr, BAL_LOG_WARN, NULL);
  /* Every rank starts the run's clock together: MPI_Init returns at
   * different times on different ranks, and that skew would count as
   * elapsed time of the first ranks out. */
  PMPI_Barrier(MPI_COMM_WORLD);
  bal_pop_init(); /* a bad BALLAST_LEND is logged; measuring goes on */
}

int MPI_Init(int *argc, char ***argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) pop_start();
  return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) pop_start();
  return rc;
}

static int write_report(FILE *f, const bal_pop_report *rep) {
  int R = bal_pop_report_regions(rep), P = bal_pop_report_ranks(rep);
  fprintf(f, "# ballast-pop 1 ranks=%d regions=%d\n", P, R);
  for (int i = 0; i < R; i++)
    for (int k = 0; k < P; k++) {
      bal_pop_rank_times t;
      bal_pop_report_rank(rep, i, k, &t);
      fprintf(f, "%s\t%d\t%d\t%.9f\t%.9f\t%lld\n", bal_pop_report_region_name(rep, i), k, t.node,
              t.elapsed_s, t.mpi_s, (long long)t.calls);
    }
  return fprintf(f, "# end\n") < 0 ? -1 : 0;
}

/* Write the report to path whole: PATH.tmp.PID, then rename. */
static void save(const char *path, const bal_pop_report *rep) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
    fprintf(stderr, ME ": $BALLAST_POP_OUTPUT: '%s': name too long\n", path);
    return;
  }
  FILE *f = fopen(tmp, "w");
  if (f == NULL) {
    fprintf(stderr, ME ": $BALLAST_POP_OUTPUT: '%s': %s\n", path, strerror(errno));
    return;
  }
  int bad = write_report(f, rep);
  bad |= ferror(f);
  if (fclose(f) != 0) bad = 1;
  if (bad || rename(tmp, path) != 0) {
    fprintf(stderr, ME ": $BALLAST_POP_OUTPUT: '%s': %s\n", path, strerror(errno));
    remove(tmp);
  }
}

static void print(const bal_pop_report *rep) {
  int R = bal_pop_report_regions(rep);
  const char *names[BAL_POP_MAX_REGIONS];
  bal_pop_figures fig[BAL_POP_MAX_REGIONS];
  for (int i = 0; i < R; i++) {
    names[i] = bal_pop_report_region_name(rep, i);
    if (bal_pop_report_figures(rep, i, &fig[i]) != BAL_OK) {
      fprintf(stderr, ME ": no figures for region '%s'\n", names[i]);
      return;
    }
  }
  pop_table_print(stderr, R, names, fig);
}

void pop_finish(void) {
  bal_pop_report *rep = NULL;
  int rc = bal_pop_report_create(MPI_COMM_WORLD, &rep);
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rc != BAL_OK) {
    if (rank == 0) fprintf(stderr, ME ": no report: %s\n", bal_strerror(rc));
  } else if (rank == 0) {
    const char *path = getenv("BALLAST_POP_OUTPUT");
    if (path != NULL && path[0] != '\0')
      save(path, rep);
    else
      print(rep);
  }
  bal_pop_report_destroy(rep);
}

int MPI_Finalize(void) {
  pop_finish();
  return PMPI_Finalize();
}
