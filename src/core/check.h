/* Private: argument checks on doubles shared by every module, so that "a
 * finite, non-negative value" means the same thing (NaN and infinities
 * refused) in every configuration validator. */
#ifndef BALLAST_CORE_CHECK_H
#define BALLAST_CORE_CHECK_H

#include <math.h>
#include <stdbool.h>

/* x is a finite number >= 0 (false for NaN and +-inf). */
static inline bool bal__finite_nonneg(double x) { return isfinite(x) && x >= 0.0; }

/* x is a finite number > 0. */
static inline bool bal__finite_pos(double x) { return isfinite(x) && x > 0.0; }

#endif
