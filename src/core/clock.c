#include "core/clock.h"

#include <errno.h>
#include <time.h>

int64_t bal__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void bal__sleep_until_ns(int64_t deadline_ns) {
  if (deadline_ns <= 0) return;
  struct timespec ts = {(time_t)(deadline_ns / 1000000000), (long)(deadline_ns % 1000000000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

void bal__sleep_ns(int64_t ns) {
  if (ns <= 0) return;
  struct timespec req = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
  while (nanosleep(&req, &req) != 0 && errno == EINTR) {
  }
}
