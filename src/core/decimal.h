/* Private: strict decimal integers, for values Ballast reads from the
 * environment. Strict as the tools' flags are (docs/CONVENTIONS.md,
 * "Tools"): digits with an optional leading '-', no whitespace, '+',
 * leading zero or "0x", so that a value the user mistyped is refused
 * rather than read as something else. */
#ifndef BALLAST_CORE_DECIMAL_H
#define BALLAST_CORE_DECIMAL_H

#include <stdbool.h>
#include <stdint.h>

/* s is a strict decimal integer in [lo, hi]: store it in *out and return
 * true; else return false with *out untouched (NULL s included). */
bool bal__decimal(const char *s, int64_t lo, int64_t hi, int64_t *out);

#endif
