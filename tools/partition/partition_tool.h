/* ballast-partition: partitions a weight grid or a set of weighted points
 * into P parts with bal_partition_compute() and reports the quality of
 * the result (docs/partition.md). Shared declarations of its files:
 *   field.h     the input files: field.c (which reader), grid_read.c,
 *               points_read.c, assign_io.c (--out and --from)
 *   opts.c      command line
 *   run.c       the items handed to the library, the call, the figures
 *   points_halo.c  halo and neighbours of points (the library measures
 *               grids only): pairs closer than the cutoff
 *   report.c    the table and --json
 *   plot.c      --plot: the parts over the field (gnuplot)
 *   main.c      the order of the above
 * The life of one run: opts -> field_read -> (--from) assign_read ->
 * run (compute, quality, moved) -> assign_write (--out) -> plot -> report. */
#ifndef BALLAST_PARTITION_TOOL_H
#define BALLAST_PARTITION_TOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/partition.h>

#include "field.h"

typedef struct part_opts {
  const char *method; /* a bal_partition_method_name() */
  int64_t parts;
  int grid[3];        /* --grid-dims, all 0 when not given */
  double cutoff;      /* --cutoff (> 0); 0 when not given: the default */
  const char *from, *out, *plot, *input;
  bool json;
} part_opts;

/* Parse argv. Returns CLI_CONTINUE, or the exit status (0 after --help,
 * 2 after a usage error, 1 when an output directory is not writable). */
int part_parse(int argc, char **argv, part_opts *o);

/* What a run measured. Undefined figures (no weight at all) are NaN. */
typedef struct part_result {
  int *part;            /* items owners */
  int *from;            /* --from's owners, or NULL */
  int from_parts;
  double seconds;       /* bal_partition_compute() alone */
  double imbalance, max_weight, avg_weight;
  int64_t halo;         /* grid: cut faces; points: points with a point of
                           another part within the cutoff */
  double cutoff;        /* points: the cutoff used */
  int neighbors_max;
  double neighbors_avg;
  int empty_parts;
  int64_t moved_items;  /* relative to --from (-1 without it) */
  double moved_weight, total_weight;
} part_result;

/* Partition f as o says and measure the result. Returns 0, or the exit
 * status after printing why (2 for a usage error found only now, such as
 * more parts than items; 1 for a failure). */
int part_run(const part_opts *o, const part_field *f, part_result *r);
void part_result_free(part_result *r);

/* Halo of points (points_halo.c): r->halo, r->neighbors_max and _avg for
 * the owners r->part. cutoff <= 0 means the default: the side of a square
 * (cube) holding one point on average over the bounding box. Returns
 * false, after printing why, when out of memory. */
bool part_points_halo(const part_field *f, int parts, double cutoff, part_result *r);

void part_print_table(const part_opts *o, const part_field *f, const part_result *r);
bool part_print_json(const part_opts *o, const part_field *f, const part_result *r);

/* --plot: false after printing why (no partial file). */
bool part_plot(const char *png, const part_opts *o, const part_field *f, const part_result *r);

#endif
