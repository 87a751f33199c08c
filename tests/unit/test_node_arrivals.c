/* Arrivals the admission rule does not cover, as SLURM produces them.
 * bal_node_manager_admit_sibling: the further processes of a job on a node
 * (a guest with two ranks here) take equal parts of what the job holds,
 * each borrowed CPU keeping its lender, so the mates get every CPU back
 * whichever rank ends first. bal_node_manager_admit_mate: a mate arriving
 * after its guest takes the guest's CPUs and lends the rule's share back,
 * so the registry reads as if it had come first. 16 virtual CPUs, SF 0.5,
 * real child processes; then the refusals, which change nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/node.h>

#include "node_assert.h"

typedef node_fixture fixture;

/* Mate A (job 1) holds 0-15; guest B (job 2, 2 ranks) is admitted next to
 * it (8-15), its second rank as a sibling (12-15, B keeps 8-11). Either
 * rank ending gives its borrowed CPUs back to A. */
static void two_rank_guest(void **state) {
  fixture *f = *state;
  node_child a, b1, b2;
  node_child_spawn(&a, f->name, 1, 1, NULL);
  node_assert_attach(f->m, &a, "0-15");
  node_child_spawn(&b1, f->name, 2, 2, NULL);
  node_child_spawn(&b2, f->name, 2, 2, NULL);
  const int64_t mate = 1;
  bal_node_mask g;
  char text[256];
  assert_int_equal(bal_node_manager_admit(f->m, b1.pid, 2, 2, &mate, 1, &g), BAL_OK);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b2.pid, 2, 2, &g), BAL_OK);
  bal_node_mask_format(&g, text, sizeof text);
  assert_string_equal(text, "12-15");
  node_assert_attach(f->m, &b1, "8-11");
  node_assert_attach(f->m, &b2, "12-15");
  ASSERT_MASK(f->m, a.pid, "0-7");
  /* CPU 12 was lent by job 1, and still is */
  bal_node_cpu_info cpus[16];
  assert_int_equal(bal_node_manager_cpus(f->m, cpus, 16), 16);
  assert_int_equal(cpus[12].owner, 1);
  assert_int_equal(cpus[12].pid, b2.pid);
  node_finish(f->m, &b2);
  ASSERT_MASK(f->m, a.pid, "0-7,12-15");
  node_finish(f->m, &b1);
  ASSERT_MASK(f->m, a.pid, "0-15");
  node_finish(f->m, &a);
}

/* Three processes of one owner job share its 16 CPUs: 16, then 8 + 8, then
 * 5 + 6 + 5 (the richest gives its highest CPU first, the lowest slot on
 * ties). */
static void three_owner_ranks(void **state) {
  fixture *f = *state;
  node_child p[3];
  bal_node_mask g;
  for (int i = 0; i < 3; i++) node_child_spawn(&p[i], f->name, 7, 3, NULL);
  assert_int_equal(bal_node_manager_admit(f->m, p[0].pid, 7, 3, NULL, 0, &g), BAL_OK);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, p[1].pid, 7, 3, NULL), BAL_OK);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, p[2].pid, 7, 3, NULL), BAL_OK);
  ASSERT_MASK(f->m, p[0].pid, "0-4");
  ASSERT_MASK(f->m, p[1].pid, "8-13");
  ASSERT_MASK(f->m, p[2].pid, "5-7,14-15");
  assert_true(node_invariant(f->m));
  for (int i = 0; i < 3; i++) {
    assert_int_equal(bal_node_manager_remove(f->m, p[i].pid), BAL_OK);
    node_child_end(&p[i]);
  }
}

static void refused(void **state) {
  fixture *f = *state;
  node_child a, b;
  node_child_spawn(&a, f->name, 1, 1, "3");
  node_assert_attach(f->m, &a, "3");
  node_child_spawn(&b, f->name, 1, 1, NULL);
  /* job 9 has no process here; job 1's one process holds one CPU */
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b.pid, 9, 1, NULL), BAL_ENOTFOUND);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b.pid, 1, 1, NULL), BAL_EBUSY);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, a.pid, 1, 1, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_sibling(NULL, b.pid, 1, 1, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b.pid, -1, 1, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b.pid, 1, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, 0, 1, 1, NULL), BAL_EINVAL);
  ASSERT_MASK(f->m, a.pid, "3");
  ASSERT_MASK(f->m, b.pid, "-");
  node_child_end(&b);
  node_finish(f->m, &a);
}

/* Guest B (job 2) came first and took the free 0-15; mate A (job 1)
 * arrives: A 0-7, B 8-15 lent by job 1, as if A had come first. B ends:
 * A 0-15. */
static void late_mate(void **state) {
  fixture *f = *state;
  node_child a, b;
  node_child_spawn(&b, f->name, 2, 1, NULL);
  node_assert_attach(f->m, &b, "0-15");
  node_child_spawn(&a, f->name, 1, 1, NULL);
  bal_node_mask g;
  char text[256];
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 1, 1, 2, &g), BAL_OK);
  bal_node_mask_format(&g, text, sizeof text);
  assert_string_equal(text, "0-7");
  node_assert_attach(f->m, &a, "0-7");
  ASSERT_MASK(f->m, b.pid, "8-15");
  bal_node_cpu_info cpus[16];
  assert_int_equal(bal_node_manager_cpus(f->m, cpus, 16), 16);
  assert_int_equal(cpus[8].owner, 1);  /* lent by the mate */
  assert_int_equal(cpus[0].owner, -1); /* the mate's own */
  node_finish(f->m, &b);
  ASSERT_MASK(f->m, a.pid, "0-15");
  node_finish(f->m, &a);
}

/* The same with a 2-process guest (0-7 and 8-15) and the mate ending
 * first: the guest's processes get 8-11 and 12-15 lent by the mate, then
 * the mate's CPUs go to the guest. */
static void late_mate_two_rank_guest(void **state) {
  fixture *f = *state;
  node_child a, b1, b2;
  node_child_spawn(&b1, f->name, 2, 2, NULL);
  node_child_spawn(&b2, f->name, 2, 2, NULL);
  assert_int_equal(bal_node_manager_admit(f->m, b1.pid, 2, 2, NULL, 0, NULL), BAL_OK);
  assert_int_equal(bal_node_manager_admit_sibling(f->m, b2.pid, 2, 2, NULL), BAL_OK);
  node_assert_attach(f->m, &b1, "0-7");
  node_assert_attach(f->m, &b2, "8-15");
  node_child_spawn(&a, f->name, 1, 1, NULL);
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 1, 1, 2, NULL), BAL_OK);
  node_assert_attach(f->m, &a, "0-7");
  ASSERT_MASK(f->m, b1.pid, "8-11");
  ASSERT_MASK(f->m, b2.pid, "12-15");
  node_finish(f->m, &a);
  ASSERT_MASK(f->m, b1.pid, "0-11");
  ASSERT_MASK(f->m, b2.pid, "12-15");
  node_finish(f->m, &b1);
  node_finish(f->m, &b2);
}

static void late_mate_refused(void **state) {
  fixture *f = *state;
  node_child a, b;
  node_child_spawn(&b, f->name, 2, 1, "5");
  node_assert_attach(f->m, &b, "5");
  node_child_spawn(&a, f->name, 1, 1, NULL);
  /* one CPU: lending it back would leave the mate none */
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 1, 1, 2, NULL), BAL_EBUSY);
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 1, 1, 3, NULL), BAL_ENOTFOUND);
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 2, 1, 2, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_mate(f->m, a.pid, 1, 1, -1, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit_mate(f->m, b.pid, 1, 1, 2, NULL), BAL_EINVAL);
  ASSERT_MASK(f->m, b.pid, "5");
  ASSERT_MASK(f->m, a.pid, "-");
  assert_true(node_invariant(f->m));
  node_child_end(&a);
  node_finish(f->m, &b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(two_rank_guest, node_fixture_setup, node_fixture_teardown),
      cmocka_unit_test_setup_teardown(three_owner_ranks, node_fixture_setup, node_fixture_teardown),
      cmocka_unit_test_setup_teardown(refused, node_fixture_setup, node_fixture_teardown),
      cmocka_unit_test_setup_teardown(late_mate, node_fixture_setup, node_fixture_teardown),
      cmocka_unit_test_setup_teardown(late_mate_two_rank_guest, node_fixture_setup,
                                      node_fixture_teardown),
      cmocka_unit_test_setup_teardown(late_mate_refused, node_fixture_setup, node_fixture_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
