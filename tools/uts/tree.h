/* The Unbalanced Tree Search trees [Olivier 2006]: a tree defined by its
 * parameters and a splittable random number generator, so that any rank
 * can expand any node alone. Every node carries a 20-byte state; a child's
 * state is SHA-1(parent state, child index as 4 big-endian bytes) and the
 * root's SHA-1 of 16 zero bytes and the root seed (big-endian), as the
 * reference implementation's BRG SHA-1 RNG (rng/brg_sha1.c) computes them,
 * here with nettle's SHA-1. The number of children of a node comes from the
 * last four bytes of its state as the reference's uts.c draws it, so the
 * trees (and the published sizes of T1, T5, T3, T1L, T3L) are the same. */
#ifndef BALLAST_TOOLS_UTS_TREE_H
#define BALLAST_TOOLS_UTS_TREE_H

#include <stdbool.h>
#include <stdint.h>

/* Tree types and geometric shapes, numbered as UTS's -t and -a. */
typedef enum { UTS_BIN = 0, UTS_GEO = 1, UTS_HYBRID = 2 } uts_type;
typedef enum { UTS_LINEAR = 0, UTS_EXPDEC = 1, UTS_CYCLIC = 2, UTS_FIXED = 3 } uts_shape;

/* Children of a non-root node are capped at this, as in uts.h. */
#define UTS_MAX_CHILDREN 100

typedef struct uts_params {
  uts_type type;   /* -t */
  uts_shape shape; /* -a */
  int depth;       /* -d: gen_mx, the depth of geometric trees */
  double b0;       /* -b: branching factor of the root */
  int root_seed;   /* -r */
  double q;        /* -q: binomial: probability of a non-leaf */
  int m;           /* -m: binomial: children of a non-leaf */
  double shift;    /* -f: hybrid: geometric above shift * depth, binomial below */
  int gran;        /* -g: SHA-1 evaluations per child (compute granularity) */
} uts_params;

/* A node as tasks carry it: 28 bytes. */
typedef struct uts_node {
  int32_t type; /* uts_type of this node (hybrid trees change below the shift) */
  int32_t height;
  unsigned char state[20];
} uts_node;

/* Counts of a searched (part of a) tree. */
typedef struct uts_counts {
  int64_t nodes, leaves;
  int32_t max_depth;
} uts_counts;

/* UTS's defaults (uts.c): binomial, linear, depth 6, b0 4, seed 0, q 15/64,
 * m 4, shift 0.5, granularity 1. */
void uts_params_default(uts_params *p);
void uts_root(const uts_params *p, uts_node *root);
/* The number of children of n (0 .. UTS_MAX_CHILDREN, or ceil(b0) at a
 * binomial root). */
int uts_num_children(const uts_params *p, const uts_node *n);
/* The i-th child of parent (gran SHA-1 evaluations). */
void uts_child(const uts_params *p, const uts_node *parent, int i, uts_node *child);

/* A growable stack of nodes (the top at v[n - 1]). */
typedef struct uts_stack {
  uts_node *v;
  int64_t n, cap;
} uts_stack;

/* Called by uts_search every `every` nodes: may take nodes off the bottom
 * of the stack (to hand them to others); returns false to stop the search. */
typedef bool (*uts_check_fn)(void *arg, uts_stack *st, const uts_counts *c);

/* Depth-first search of the subtrees under the nodes of st, adding to c,
 * calling check (if not NULL) every `every` (>= 1) nodes. Returns 0 when
 * the stack is empty, 1 if check stopped it, -1 if out of memory. */
int uts_search(const uts_params *p, uts_stack *st, uts_counts *c, int64_t every,
               uts_check_fn check, void *arg);
/* Push one node (growing the stack); false if out of memory. */
bool uts_push(uts_stack *st, const uts_node *n);

#endif
