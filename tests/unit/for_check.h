/* Test support for the `for` module: a loop body that records how often
 * each index ran, so tests can assert exactly-once execution. */
#ifndef BALLAST_TEST_FOR_CHECK_H
#define BALLAST_TEST_FOR_CHECK_H

#include <ballast/for.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct hit_map {
  int64_t begin, end;
  _Atomic unsigned *hits;     /* one counter per index */
  atomic_int bad_worker_id;   /* bodies that saw an id outside [0, size) */
  int pool_size;
  int64_t sleep_one_in;       /* 0: never sleep; else sleep on ~1/N chunks */
  int64_t max_sleep_ns;
} hit_map;

static inline void hit_map_init(hit_map *m, int64_t begin, int64_t end, int pool_size) {
  m->begin = begin;
  m->end = end;
  m->hits = calloc((size_t)(end - begin) + 1, sizeof *m->hits);
  atomic_init(&m->bad_worker_id, 0);
  m->pool_size = pool_size;
  m->sleep_one_in = 0;
  m->max_sleep_ns = 0;
}

static inline void hit_map_free(hit_map *m) { free((void *)m->hits); }

void hit_body(int64_t begin, int64_t end, void *arg);

/* BALLAST_STRESS_SCALE (docs/CONVENTIONS.md, "Tests"): how many times
 * the stress tests multiply their rounds; 1 when unset or not positive. */
static inline int for_stress_scale(void) {
  const char *s = getenv("BALLAST_STRESS_SCALE");
  int v = s ? atoi(s) : 1;
  return v > 0 ? v : 1;
}

/* Number of indices whose counter is not exactly 1 (0 = exactly once). */
static inline int64_t hit_map_errors(const hit_map *m) {
  int64_t bad = 0;
  for (int64_t i = 0; i < m->end - m->begin; i++)
    if (atomic_load(&m->hits[i]) != 1) bad++;
  return bad;
}

#endif
