/* The CPU-mask value type: a fixed bitmap of BAL_NODE_MAX_CPUS bits, so a
 * mask lives in shared memory and in caller structures without allocation,
 * and copies are plain assignments. */
#include <stdio.h>
#include <string.h>

#include "node_internal.h"

enum { WORDS = BAL_NODE_MAX_CPUS / 64 };

void bal_node_mask_zero(bal_node_mask *m) {
  if (m) memset(m, 0, sizeof *m);
}

int bal_node_mask_add(bal_node_mask *m, int64_t first, int64_t last) {
  if (!m || first < 0 || last < first || last >= BAL_NODE_MAX_CPUS) return BAL_EINVAL;
  for (int64_t c = first; c <= last; c++) m->bits[c / 64] |= 1ull << (c % 64);
  return BAL_OK;
}

bool bal_node_mask_has(const bal_node_mask *m, int64_t cpu) {
  return m && cpu >= 0 && cpu < BAL_NODE_MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64) & 1u);
}

int64_t bal_node_mask_count(const bal_node_mask *m) {
  int64_t n = 0;
  if (m)
    for (int w = 0; w < WORDS; w++) n += __builtin_popcountll(m->bits[w]);
  return n;
}

bool bal_node_mask_equal(const bal_node_mask *a, const bal_node_mask *b) {
  if (!a || !b) return a == b;
  return memcmp(a->bits, b->bits, sizeof a->bits) == 0;
}

/* A decimal CPU id below the limit (no sign, no leading zero but "0"). */
static const char *parse_id(const char *p, int64_t *out) {
  if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9')) return NULL;
  int64_t v = 0;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (*p++ - '0');
    if (v >= BAL_NODE_MAX_CPUS) return NULL;
  }
  *out = v;
  return p;
}

int bal_node_mask_parse(const char *list, bal_node_mask *out) {
  if (!list || !out) return BAL_EINVAL;
  bal_node_mask m;
  bal_node_mask_zero(&m);
  const char *p = list;
  while (*p) {
    int64_t a, b;
    if (!(p = parse_id(p, &a))) return BAL_EINVAL;
    b = a;
    if (*p == '-' && !(p = parse_id(p + 1, &b))) return BAL_EINVAL;
    if (bal_node_mask_add(&m, a, b) != BAL_OK) return BAL_EINVAL;
    if (*p == ',') {
      if (!*++p) return BAL_EINVAL; /* trailing comma */
    } else if (*p) {
      return BAL_EINVAL;
    }
  }
  *out = m;
  return BAL_OK;
}

int bal_node_mask_format(const bal_node_mask *m, char *buf, size_t size) {
  if (!m || !buf) return BAL_EINVAL;
  if (size == 0) return BAL_ERANGE;
  size_t len = 0;
  for (int64_t c = 0; c < BAL_NODE_MAX_CPUS; c++) {
    if (!bal_node_mask_has(m, c)) continue;
    int64_t e = c;
    while (bal_node_mask_has(m, e + 1)) e++;
    char item[32];
    int n = e > c ? snprintf(item, sizeof item, "%s%lld-%lld", len ? "," : "", (long long)c, (long long)e)
                  : snprintf(item, sizeof item, "%s%lld", len ? "," : "", (long long)c);
    if (len + (size_t)n >= size) {
      buf[0] = '\0';
      return BAL_ERANGE;
    }
    memcpy(buf + len, item, (size_t)n);
    len += (size_t)n;
    c = e;
  }
  buf[len] = '\0';
  return (int)len;
}
