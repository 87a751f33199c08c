/* bal_for_last_stats(): per-worker figures of the last parallel call. */
#include "for/pool.h"

int bal_for_last_stats(const bal_pool *pool, int worker, bal_for_stats *out) {
  if (!pool || !out || worker < -1 || worker >= pool->size) return BAL_EINVAL;
  if (!pool->have_stats) return BAL_ENOTSUP;
  if (worker >= 0) {
    *out = pool->workers[worker].stats;
    out->wall_seconds = pool->last_wall_seconds;
    return BAL_OK;
  }
  bal_for_stats sum = {0};
  for (int i = 0; i < pool->size; i++) {
    const bal_for_stats *s = &pool->workers[i].stats;
    sum.items += s->items;
    sum.chunks += s->chunks;
    sum.steals_attempted += s->steals_attempted;
    sum.steals_won += s->steals_won;
    sum.busy_seconds += s->busy_seconds;
  }
  sum.wall_seconds = pool->last_wall_seconds;
  *out = sum;
  return BAL_OK;
}
