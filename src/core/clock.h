/* Private: monotonic clock used for timing and adaptive decisions. */
#ifndef BALLAST_CORE_CLOCK_H
#define BALLAST_CORE_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" { /* in-tree C++ (the for benchmark's TBB schedule) reads it too */
#endif

/* Monotonic time in nanoseconds since an arbitrary origin. */
int64_t bal__now_ns(void);

/* The same clock in seconds, for measurements reported to people. */
static inline double bal__now_s(void) { return (double)bal__now_ns() * 1e-9; }

/* Sleep for ns nanoseconds (restarts after signals). */
void bal__sleep_ns(int64_t ns);

/* Sleep until bal__now_ns() reaches deadline_ns (returns at once if it has).
 * An absolute deadline: work done before the call and late wake-ups after
 * signals do not add up, which is what emulating a cost by sleeping needs. */
void bal__sleep_until_ns(int64_t deadline_ns);

#ifdef __cplusplus
}
#endif

#endif
