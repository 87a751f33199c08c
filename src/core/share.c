/* SD-Policy's sharing rule (ballast/share.h): the one place it is written. */
#include <math.h>

#include <ballast/error.h>
#include <ballast/share.h>

bool bal_share_factor_valid(double sf) {
  return sf > BAL_SHARE_FACTOR_MIN && sf <= BAL_SHARE_FACTOR_MAX; /* false for NaN */
}

int64_t bal_share_lend(double sf, int64_t cpus, int64_t ranks) {
  if (!bal_share_factor_valid(sf) || cpus < 0 || ranks < 0) return BAL_EINVAL;
  /* floor(sf × cpus) <= cpus for sf <= 1; the product is exact enough for
   * any CPU count a node has (below 2^53). */
  int64_t lend = (int64_t)floor(sf * (double)cpus);
  if (lend > cpus - ranks) lend = cpus - ranks;
  return lend < 0 ? 0 : lend;
}
