/* Node identities for public states: which job holds each node. The
 * simulator needs only counts (sim.c never allocates these arrays); a live
 * scheduler needs names. Each node sits in exactly one doubly linked list
 * through node_next/node_prev: the free list (free_head, taken from the
 * front, returned to the front) or the chain of the job holding it (a
 * static job, a mate, or a guest for the nodes it inherited from mates
 * that ended), so every move is O(1) per node and splices are O(1). */
#include "sim.h"

static void unlink_free(bal__sched_sim *s, int32_t v) {
  int32_t p = s->node_prev[v], n = s->node_next[v];
  if (p >= 0) s->node_next[p] = n;
  else s->free_head = n;
  if (n >= 0) s->node_prev[n] = p;
}

static void push_back(bal__sched_sim *s, int32_t j, int32_t v) {
  s->node_prev[v] = s->ntail[j];
  s->node_next[v] = -1;
  if (s->ntail[j] >= 0) s->node_next[s->ntail[j]] = v;
  else s->nhead[j] = v;
  s->ntail[j] = v;
}

void bal__sched_nodes_take(bal__sched_sim *s, int32_t j, int64_t n, const int64_t *which) {
  for (int64_t i = 0; i < n; i++) {
    int32_t v = which ? (int32_t)which[i] : s->free_head;
    unlink_free(s, v);
    s->node_owner[v] = j;
    push_back(s, j, v);
  }
}

void bal__sched_nodes_release(bal__sched_sim *s, int32_t j) {
  int32_t h = s->nhead[j], t = s->ntail[j];
  if (h < 0) return;
  for (int32_t v = h; v >= 0; v = s->node_next[v]) s->node_owner[v] = -1;
  s->node_next[t] = s->free_head;
  if (s->free_head >= 0) s->node_prev[s->free_head] = t;
  s->node_prev[h] = -1;
  s->free_head = h;
  s->nhead[j] = s->ntail[j] = -1;
}

void bal__sched_nodes_pass(bal__sched_sim *s, int32_t m, int32_t g) {
  int32_t h = s->nhead[m];
  if (h < 0) return;
  for (int32_t v = h; v >= 0; v = s->node_next[v]) s->node_owner[v] = g;
  s->node_prev[h] = s->ntail[g];
  if (s->ntail[g] >= 0) s->node_next[s->ntail[g]] = h;
  else s->nhead[g] = h;
  s->ntail[g] = s->ntail[m];
  s->nhead[m] = s->ntail[m] = -1;
}

int64_t bal__sched_nodes_append(const bal__sched_sim *s, int32_t j, int64_t *out) {
  int64_t k = 0;
  for (int32_t v = s->nhead[j]; v >= 0; v = s->node_next[v]) out[k++] = v;
  return k;
}
