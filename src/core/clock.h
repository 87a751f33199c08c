/* Private: monotonic clock used for timing and adaptive decisions. */
#ifndef BALLAST_CORE_CLOCK_H
#define BALLAST_CORE_CLOCK_H

#include <stdint.h>

/* Monotonic time in nanoseconds since an arbitrary origin. */
int64_t bal__now_ns(void);

/* The same clock in seconds, for measurements reported to people. */
static inline double bal__now_s(void) { return (double)bal__now_ns() * 1e-9; }

/* Sleep for ns nanoseconds (restarts after signals). */
void bal__sleep_ns(int64_t ns);

#endif
