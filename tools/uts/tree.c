/* UTS trees (tree.h): the reference's uts.c and rng/brg_sha1.c, with
 * nettle's SHA-1 in place of BRG's. The floating-point expressions are the
 * reference's, in the same order, so that every node draws the same number
 * of children. */
#include "tree.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha1.h>

void uts_params_default(uts_params *p) {
  *p = (uts_params){UTS_BIN, UTS_LINEAR, 6, 4.0, 0, 15.0 / 64.0, 4, 0.5, 1};
}

/* The random number of a state: its last four bytes, big-endian, as a
 * non-negative int (rng_rand), and as a probability in [0, 1) (rng_toProb). */
static int rng_rand(const unsigned char *st) {
  uint32_t b = ((uint32_t)st[16] << 24) | ((uint32_t)st[17] << 16) | ((uint32_t)st[18] << 8) |
               (uint32_t)st[19];
  return (int)(b & 0x7fffffffu);
}

static double to_prob(int n) { return n < 0 ? 0.0 : (double)n / 2147483648.0; }

void uts_root(const uts_params *p, uts_node *root) {
  unsigned char seed[20] = {0};
  seed[16] = (unsigned char)(0xFF & (p->root_seed >> 24));
  seed[17] = (unsigned char)(0xFF & (p->root_seed >> 16));
  seed[18] = (unsigned char)(0xFF & (p->root_seed >> 8));
  seed[19] = (unsigned char)(0xFF & p->root_seed);
  struct sha1_ctx ctx;
  sha1_init(&ctx);
  sha1_update(&ctx, sizeof seed, seed);
  sha1_digest(&ctx, SHA1_DIGEST_SIZE, root->state);
  root->type = p->type;
  root->height = 0;
}

static int children_bin(const uts_params *p, const uts_node *n) {
  double d = to_prob(rng_rand(n->state));
  return d < p->q ? p->m : 0;
}

static int children_geo(const uts_params *p, const uts_node *n) {
  double b_i = p->b0;
  int depth = n->height;
  if (depth > 0) {
    switch (p->shape) {
    case UTS_EXPDEC: /* expected size polynomial in depth */
      b_i = p->b0 * pow((double)depth, -log(p->b0) / log((double)p->depth));
      break;
    case UTS_CYCLIC:
      if (depth > 5 * p->depth) {
        b_i = 0.0;
        break;
      }
      b_i = pow(p->b0, sin(2.0 * 3.141592653589793 * (double)depth / (double)p->depth));
      break;
    case UTS_FIXED: b_i = depth < p->depth ? p->b0 : 0; break;
    case UTS_LINEAR:
    default: b_i = p->b0 * (1.0 - (double)depth / (double)p->depth); break;
    }
  }
  /* The geometric distribution of mean b_i, inverted at a uniform u. */
  double prob = 1.0 / (1.0 + b_i);
  double u = to_prob(rng_rand(n->state));
  double k = floor(log(1 - u) / log(1 - prob));
  /* NaN or out of int's range only for parameters the reference leaves
   * undefined too (a negative b_i); capped like any large count. */
  if (!(k >= 0)) return 0;
  return k > UTS_MAX_CHILDREN ? UTS_MAX_CHILDREN + 1 : (int)k;
}

int uts_num_children(const uts_params *p, const uts_node *n) {
  int nc = 0;
  switch (p->type) {
  case UTS_BIN: nc = n->height == 0 ? (int)floor(p->b0) : children_bin(p, n); break;
  case UTS_GEO: nc = children_geo(p, n); break;
  case UTS_HYBRID:
    nc = n->height < p->shift * p->depth ? children_geo(p, n) : children_bin(p, n);
    break;
  }
  /* Only a binomial root may have more than UTS_MAX_CHILDREN. */
  if (n->height == 0 && n->type == UTS_BIN) {
    int root_bf = (int)ceil(p->b0);
    if (nc > root_bf) nc = root_bf;
  } else if (nc > UTS_MAX_CHILDREN) {
    nc = UTS_MAX_CHILDREN;
  }
  return nc < 0 ? 0 : nc;
}

void uts_child(const uts_params *p, const uts_node *parent, int i, uts_node *child) {
  unsigned char idx[4] = {(unsigned char)(0xFF & (i >> 24)), (unsigned char)(0xFF & (i >> 16)),
                          (unsigned char)(0xFF & (i >> 8)), (unsigned char)(0xFF & i)};
  /* -g repeats the same evaluation: the reference's compute granularity. */
  for (int j = 0; j < p->gran; j++) {
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, 20, parent->state);
    sha1_update(&ctx, sizeof idx, idx);
    sha1_digest(&ctx, SHA1_DIGEST_SIZE, child->state);
  }
  child->height = parent->height + 1;
  if (p->type == UTS_HYBRID)
    child->type = parent->height < p->shift * p->depth ? UTS_GEO : UTS_BIN;
  else
    child->type = p->type;
}

bool uts_push(uts_stack *st, const uts_node *n) {
  if (st->n == st->cap) {
    int64_t cap = st->cap ? 2 * st->cap : 1024;
    uts_node *v = realloc(st->v, (size_t)cap * sizeof *v);
    if (!v) return false;
    st->v = v;
    st->cap = cap;
  }
  st->v[st->n++] = *n;
  return true;
}

int uts_search(const uts_params *p, uts_stack *st, uts_counts *c, int64_t every,
               uts_check_fn check, void *arg) {
  int64_t until = every;
  while (st->n > 0) {
    uts_node n = st->v[--st->n];
    int nc = uts_num_children(p, &n);
    c->nodes++;
    if (n.height > c->max_depth) c->max_depth = n.height;
    if (nc == 0) c->leaves++;
    if (st->n + nc > st->cap) {
      int64_t cap = st->cap ? st->cap : 1024;
      while (cap < st->n + nc) cap *= 2;
      uts_node *v = realloc(st->v, (size_t)cap * sizeof *v);
      if (!v) return -1;
      st->v = v;
      st->cap = cap;
    }
    for (int i = 0; i < nc; i++) uts_child(p, &n, i, &st->v[st->n++]);
    if (check && --until == 0) {
      until = every;
      if (!check(arg, st, c)) return 1;
    }
  }
  return 0;
}
