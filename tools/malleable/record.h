/* What `ballast malleable` keeps of its iterations, in memory bounded
 * whatever the run's length (a run of tiny items makes millions of
 * iterations a second):
 *  - the text report needs only the current phase (iterations with the
 *    same active count): running sums;
 *  - --csv writes one row per iteration as it ends, to the temporary file
 *    that becomes the CSV on success (docs/CONVENTIONS.md: whole or not
 *    at all), so no row is kept;
 *  - --json lists iterations in `per_iteration`: one entry each up to
 *    REC_JSON_MAX entries; past that, neighbouring entries are merged in
 *    pairs, so the list covers the whole run in fixed windows of `window`
 *    iterations each (a power of two; 1 while nothing was merged). */
#ifndef BALLAST_TOOLS_MALLEABLE_RECORD_H
#define BALLAST_TOOLS_MALLEABLE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/output.h"

/* Entries of per_iteration at most: 65,536 x 48 bytes = 3 MiB. */
#define REC_JSON_MAX 65536

/* An iteration, or `count` neighbouring ones merged. */
typedef struct rec_entry {
  int64_t first;  /* index of its first iteration */
  int64_t count;  /* iterations merged (1: one) */
  double t_s;     /* end of its last iteration, from the start of the run */
  double time_s;  /* sum of their durations */
  int active;     /* bal_pool_active() after its last iteration */
  int used;       /* most workers that ran items of one of them */
} rec_entry;

typedef struct record {
  const char *prog;
  int64_t items;     /* per iteration, for rates */
  int64_t n;         /* iterations recorded */
  double last_t_s;   /* end of the last one */
  int last_active;   /* its active count (-1: none yet) */
  /* the current phase: iterations since the active count last changed */
  int64_t phase_first, phase_n;
  double phase_first_time_s, phase_sum_s;
  /* --csv, streamed */
  bool csv;
  out_file csv_out;
  /* --json */
  bool json;
  rec_entry *e;
  int64_t ne, cap, window;
} record;

/* Start a record; csv_path (may be NULL) is opened now. False after
 * printing why (out of memory, or the CSV cannot be created). */
bool rec_init(record *r, const char *prog, int64_t items, const char *csv_path, bool json);

/* One iteration that ended at t_s after time_s, with `active` workers
 * active after it and `used` of them having run items. Returns whether
 * the active count changed (the first iteration counts as a change);
 * before_rate, if it did, receives the items/s of the phase that ended.
 * *ok is false when the JSON entries could not grow (printed); a failed
 * CSV write is found by rec_finish. */
bool rec_add(record *r, double t_s, double time_s, int active, int used, double *before_rate,
             bool *ok);

/* Items per second over the current phase, leaving out its first
 * iteration (the one in which the change landed, or the warm-up) when it
 * has others. */
double rec_phase_rate(const record *r);

/* Commit the CSV (false after printing why), or with keep false discard
 * it; true without --csv. */
bool rec_finish_csv(record *r, bool keep);

/* Free the JSON entries (after the report is printed). */
void rec_free(record *r);

#endif
