/* Thread-level load balance of a `for` pool (ballast/pop.h). */
#include <stdlib.h>

#include "core/balance.h"
#include "pop_internal.h"

int bal_pop_pool_load_balance(const bal_pool *pool, double *lb) {
  if (pool == NULL || lb == NULL) return BAL_EINVAL;
  int n = bal_pool_size(pool);
  if (n < 1) return BAL_EINVAL;
  double *busy = malloc((size_t)n * sizeof *busy);
  if (busy == NULL) return BAL_ENOMEM;
  int rc = BAL_OK;
  for (int k = 0; k < n && rc == BAL_OK; k++) {
    bal_for_stats st;
    rc = bal_for_last_stats(pool, k, &st);
    if (rc == BAL_OK) busy[k] = st.busy_seconds;
  }
  if (rc == BAL_OK) rc = bal__load_balance(busy, n, lb);
  free(busy);
  return rc;
}
