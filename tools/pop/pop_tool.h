/* ballast-pop: runs an unmodified MPI program under libballast_pop.so and
 * prints the POP efficiency metrics of each region at its end
 * (docs/pop.md). Shared declarations of its files:
 *   opts.c    command line
 *   run.c     finding libballast_pop.so, running the command with it
 *             preloaded, the exit status
 *   read.c    the report file the library writes at MPI_Finalize
 *   report.c  the table, --json, --csv
 *   plot.c    --plot: per-rank useful vs MPI time
 *   main.c    the order of the above */
#ifndef BALLAST_POP_TOOL_H
#define BALLAST_POP_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/pop.h>

#define POP_PROG "ballast-pop"
#define POP_MAX_ARGS 4096

typedef struct pop_opts {
  bool json, lend;
  const char *csv, *plot, *region;
  int argc;                 /* the command after "--" */
  char *argv[POP_MAX_ARGS + 1];
} pop_opts;

/* Parse argv. Returns CLI_CONTINUE, or the exit status (0 after --help,
 * 2 after a usage error). */
int pop_parse(int argc, char **argv, pop_opts *o);

/* One region of the report: its per-rank times and figures. */
typedef struct pop_region {
  char name[BAL_POP_MAX_NAME + 1];
  bal_pop_rank_times *rank; /* ranks of them */
  bal_pop_figures fig;
} pop_region;

typedef struct pop_report {
  int ranks, regions;
  pop_region *region;
} pop_report;

/* Read the report at path into r (figures computed with
 * bal_pop_figures_compute). Returns true, or false after printing
 * "ballast-pop: REPORT: line N: ..." (what is wrong with it). */
bool pop_read(const char *path, pop_report *r);
void pop_report_free(pop_report *r);

/* Run o->argv with libballast_pop.so preloaded and BALLAST_POP_OUTPUT set
 * to report_path; its stdout goes to stderr when --json holds stdout.
 * Returns the command's exit status (128 + N if killed by signal N), or -1
 * after printing why it could not start. */
int pop_run(const pop_opts *o, const char *report_path);

/* The outputs; each returns false after printing why (no partial file). */
void pop_print_table(const pop_report *r, int only);
bool pop_print_json(const pop_opts *o, const pop_report *r, int only, int status);
bool pop_write_csv(const char *path, const pop_report *r, int only);
bool pop_plot(const char *png, const pop_report *r, int region);

#endif
