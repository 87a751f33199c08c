#include "core/decimal.h"

#include <errno.h>
#include <stdlib.h>

bool bal__decimal(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  if (!s) return false;
  const char *d = s[0] == '-' ? s + 1 : s;
  if (d[0] < '0' || d[0] > '9') return false;        /* "", " 3", "+3", "-" */
  if (d[0] == '0' && d[1] != '\0') return false;      /* "03", "0x10", "-0..." */
  if (d[0] == '0' && d != s) return false;            /* "-0" */
  for (const char *p = d; *p; p++)
    if (*p < '0' || *p > '9') return false;
  errno = 0;
  long long v = strtoll(s, NULL, 10);
  if (errno == ERANGE || v < lo || v > hi) return false;
  *out = (int64_t)v;
  return true;
}
