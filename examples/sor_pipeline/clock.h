/* A monotonic clock and absolute sleeps for the example (POSIX only). */
#ifndef SOR_PIPELINE_CLOCK_H
#define SOR_PIPELINE_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Sleep until now_ns() reaches the deadline: an absolute deadline, so the
 * work done before the call counts towards it and signals add nothing. */
static inline void sleep_until_ns(int64_t deadline) {
  struct timespec t = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {
  }
}

#endif
