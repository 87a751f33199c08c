/* A map from rank to int (rankmap.h). */
#include "rankmap.h"

#include <ballast/error.h>
#include <stdint.h>
#include <stdlib.h>

/* Fibonacci hashing: neighbouring ranks land far apart. */
static int slot_of(int rank, int cap) {
  return (int)(((uint32_t)rank * UINT32_C(2654435769)) & (uint32_t)(cap - 1));
}

static int find(const bal__steal_rankmap *m, int rank) {
  int i = slot_of(rank, m->cap);
  while (m->keys[i] != -1 && m->keys[i] != rank) i = (i + 1) & (m->cap - 1);
  return i;
}

bool bal__steal_rankmap_get(const bal__steal_rankmap *m, int rank, int *val) {
  if (m->cap == 0) return false;
  int i = find(m, rank);
  if (m->keys[i] != rank) return false;
  *val = m->vals[i];
  return true;
}

static int grow(bal__steal_rankmap *m) {
  if (m->cap > (1 << 29)) return BAL_ENOMEM;
  int cap = m->cap ? 2 * m->cap : 16;
  int *keys = malloc((size_t)cap * sizeof *keys), *vals = malloc((size_t)cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return BAL_ENOMEM;
  }
  for (int i = 0; i < cap; i++) keys[i] = -1;
  bal__steal_rankmap bigger = {keys, vals, cap, m->n};
  for (int i = 0; i < m->cap; i++)
    if (m->keys[i] != -1) {
      int j = find(&bigger, m->keys[i]);
      keys[j] = m->keys[i];
      vals[j] = m->vals[i];
    }
  free(m->keys);
  free(m->vals);
  *m = bigger;
  return BAL_OK;
}

int bal__steal_rankmap_put(bal__steal_rankmap *m, int rank, int val) {
  if (m->cap > 0) {
    int i = find(m, rank);
    if (m->keys[i] == rank) {
      m->vals[i] = val;
      return BAL_OK;
    }
  }
  if (2 * (m->n + 1) > m->cap) {
    int rc = grow(m);
    if (rc != BAL_OK) return rc;
  }
  int i = find(m, rank);
  m->keys[i] = rank;
  m->vals[i] = val;
  m->n++;
  return BAL_OK;
}

void bal__steal_rankmap_free(bal__steal_rankmap *m) {
  free(m->keys);
  free(m->vals);
  *m = (bal__steal_rankmap){NULL, NULL, 0, 0};
}
