/* DLB_Bench pictures: Chrome trace-event timeline and the gnuplot PNG of
 * the work distribution (rank 0 writes both from gathered data). */
#ifndef DLB_REPORT_H
#define DLB_REPORT_H

#include <stdbool.h>

/* One trace event: kind (bal_steal_event), begin/end (s), peer rank. */
typedef struct dlb_event {
  double kind, t0, t1, peer;
} dlb_event;

/* Write ev[0..n) where rank_of_event[i] gives the rank; returns false and
 * prints a message on failure. */
bool dlb_write_trace(const char *path, const dlb_event *ev, const int *rank_of, long long n,
                     int ranks, const char *policy);

/* Plot the initial work per rank and the final work per rank of each run
 * (series[k][r], names[k]); returns false and prints why on failure. */
bool dlb_write_plot(const char *path, int ranks, const double *initial, int nseries,
                    const double *const *series, const char *const *names);

#endif
