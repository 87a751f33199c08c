/* REMAP, as Zoltan's parameter of that name relabels a new partition to
 * keep data in place (Zoltan: [Boman 2012]): the overlap of new piece j
 * with current part l is the weight of the items in both. Pairs are
 * matched greedily, heaviest first (ties: more items, then lower piece,
 * then lower label), each piece and each label once; unmatched pieces take the free labels in increasing order. Greedy
 * matching is within a factor 2 of the best matching, not always as good
 * as the labels the method gave, so the base labels are kept when they
 * leave at least as much weight in place.
 *
 * The overlaps are counted in an open-addressing hash table keyed by the
 * pair, sized from the distinct pairs (about P plus the moved boundaries'
 * worth), not from P^2. O(n + pairs log pairs). */
#include <stdlib.h>
#include <string.h>

#include "partition_internal.h"

typedef struct pair {
  int64_t key; /* piece * parts + label, -1 when empty */
  double w;
  int64_t count;
} pair;

typedef struct table {
  pair *slot;
  int64_t size, used;
} table;

static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int grow(table *t) {
  int64_t size = t->size ? t->size * 2 : 1024;
  pair *s = malloc((size_t)size * sizeof *s);
  if (!s) return BAL_ENOMEM;
  for (int64_t i = 0; i < size; i++) s[i].key = -1;
  for (int64_t i = 0; i < t->size; i++) {
    if (t->slot[i].key < 0) continue;
    int64_t h = (int64_t)(mix((uint64_t)t->slot[i].key) & (uint64_t)(size - 1));
    while (s[h].key >= 0) h = (h + 1) & (size - 1);
    s[h] = t->slot[i];
  }
  free(t->slot);
  t->slot = s;
  t->size = size;
  return BAL_OK;
}

static int add(table *t, int64_t key, double w) {
  if (2 * (t->used + 1) > t->size && grow(t) != BAL_OK) return BAL_ENOMEM;
  int64_t h = (int64_t)(mix((uint64_t)key) & (uint64_t)(t->size - 1));
  while (t->slot[h].key >= 0 && t->slot[h].key != key) h = (h + 1) & (t->size - 1);
  if (t->slot[h].key < 0) {
    t->slot[h] = (pair){key, 0.0, 0};
    t->used++;
  }
  t->slot[h].w += w;
  t->slot[h].count++;
  return BAL_OK;
}

static int heaviest(const void *pa, const void *pb) {
  const pair *a = pa, *b = pb;
  if (a->w != b->w) return a->w > b->w ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  return (a->key > b->key) - (a->key < b->key);
}

int bal__part_remap(int64_t n, const double *w, const int *from, const int *piece, int parts,
                    int *label) {
  table t = {NULL, 0, 0};
  int *greedy = malloc((size_t)parts * sizeof *greedy);
  char *taken = calloc((size_t)parts, 1);
  int rc = BAL_ENOMEM;
  if (!greedy || !taken) goto out;
  for (int64_t i = 0; i < n; i++)
    if (add(&t, (int64_t)piece[i] * parts + from[i], bal__part_w(w, i)) != BAL_OK) goto out;
  int64_t np = 0;
  for (int64_t i = 0; i < t.size; i++)
    if (t.slot[i].key >= 0) t.slot[np++] = t.slot[i];
  qsort(t.slot, (size_t)np, sizeof *t.slot, heaviest);
  for (int j = 0; j < parts; j++) greedy[j] = -1;
  double kept_greedy = 0.0, kept_base = 0.0;
  int64_t items_greedy = 0, items_base = 0;
  for (int64_t q = 0; q < np; q++) {
    int j = (int)(t.slot[q].key / parts), l = (int)(t.slot[q].key % parts);
    if (label[j] == l) {
      kept_base += t.slot[q].w;
      items_base += t.slot[q].count;
    }
    if (greedy[j] >= 0 || taken[l]) continue;
    greedy[j] = l;
    taken[l] = 1;
    kept_greedy += t.slot[q].w;
    items_greedy += t.slot[q].count;
  }
  int next = 0;
  for (int j = 0; j < parts; j++) {
    if (greedy[j] >= 0) continue;
    while (taken[next]) next++;
    greedy[j] = next;
    taken[next] = 1;
  }
  if (kept_greedy > kept_base || (kept_greedy == kept_base && items_greedy > items_base))
    memcpy(label, greedy, (size_t)parts * sizeof *label);
  rc = BAL_OK;
out:
  free(t.slot);
  free(greedy);
  free(taken);
  return rc;
}
