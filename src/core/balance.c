/* The load-balance figure (balance.h). */
#include "balance.h"

#include <stddef.h>

#include <ballast/error.h>

#include "check.h"

int bal__load_balance(const double *t, int64_t n, double *lb) {
  if (t == NULL || lb == NULL || n < 1) return BAL_EINVAL;
  double sum = 0.0, max = 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (!bal__finite_nonneg(t[i])) return BAL_EINVAL;
    sum += t[i];
    if (t[i] > max) max = t[i];
  }
  *lb = bal__load_balance_of(sum, max, n);
  return BAL_OK;
}
