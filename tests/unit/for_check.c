#include "for_check.h"

#include <time.h>

#include "core/rng.h"

void hit_body(int64_t begin, int64_t end, void *arg) {
  hit_map *m = arg;
  int id = bal_worker_id();
  if (id < 0 || id >= m->pool_size) atomic_fetch_add(&m->bad_worker_id, 1);
  for (int64_t i = begin; i < end; i++)
    atomic_fetch_add_explicit(&m->hits[i - m->begin], 1, memory_order_relaxed);
  if (m->sleep_one_in > 0) {
    /* Random delays, derived from the chunk so runs are reproducible. */
    uint64_t h = (uint64_t)begin * 0x9E3779B97F4A7C15ull ^ (uint64_t)end;
    uint64_t r = bal__splitmix64(&h);
    if ((int64_t)(r % (uint64_t)m->sleep_one_in) == 0) {
      struct timespec ts = {0, (long)((r >> 20) % (uint64_t)m->max_sleep_ns)};
      nanosleep(&ts, NULL);
    }
  }
}
