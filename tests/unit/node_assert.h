/* cmocka assertions over node_check.h's children and registries, shared by
 * the node tests (include <cmocka.h> first). Apart from node_check.c, which
 * programs without cmocka link too (tests/mpi/test_lend.c). */
#ifndef BALLAST_TEST_NODE_ASSERT_H
#define BALLAST_TEST_NODE_ASSERT_H

#include <ballast/error.h>

#include "node_check.h"

/* The CPU list of pid in the registry is `want` (node_mask_of). A macro,
 * so that a failure names the test's line. */
#define ASSERT_MASK(m, pid, want)      \
  do {                                 \
    char got_[256];                    \
    node_mask_of((m), (pid), got_);    \
    assert_string_equal(got_, (want)); \
  } while (0)

/* The child polls and sees `want`. */
static inline void node_assert_polls(node_child *c, const char *want) {
  char got[256];
  assert_int_equal(node_child_cmd(c, 'p', got), BAL_OK);
  assert_string_equal(got, want);
}

/* The child (spawned, not attached) attaches, polls and sees `want`; the
 * registry's invariants hold after. */
static inline void node_assert_attach(bal_node_manager *m, node_child *c, const char *want) {
  assert_int_equal(node_child_cmd(c, 'a', NULL), BAL_OK);
  node_assert_polls(c, want);
  assert_true(node_invariant(m));
}

/* The child detaches and ends; the registry's invariants hold after. */
static inline void node_finish(bal_node_manager *m, node_child *c) {
  assert_int_equal(node_child_cmd(c, 'd', NULL), BAL_OK);
  node_child_end(c);
  assert_true(node_invariant(m));
}

#endif
