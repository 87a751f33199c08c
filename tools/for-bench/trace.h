/* ballast-for-bench --trace FILE: who ran what, and when, in one bal_for
 * run per workload, for drawing (bench/for/trace.gp draws it). */
#ifndef BALLAST_BENCH_FOR_TRACE_H
#define BALLAST_BENCH_FOR_TRACE_H

#include <ballast/for.h>
#include <stdbool.h>

#include "kernels.h"

/* Create the trace (written to a temporary file beside `path`, renamed to
 * it by trace_close), for a pool of P workers. Returns false with a message
 * on stderr if the file cannot be created. */
bool trace_open(const char *path, int P);

/* Run bal_for once on pool `on` with the grain (with `loop` non-NULL:
 * bal_for_learn with that loop), recording every body call (worker, start
 * and end time, index range), and append the records to the trace as one
 * data block named "MODE WORKLOAD" (with a loop: "MODE WORKLOAD learn").
 * Returns false (message on stderr) when out of memory or when
 * bal_for_learn fails. */
bool trace_run(bal_pool *on, bal_loop *loop, int64_t grain, const char *mode,
               const char *workload, const bench_job *job);

/* Finish the file: rename it to its path on success, remove it on failure
 * (ok false, or a write error). Returns true if the trace was written. */
bool trace_close(bool ok);

#endif
