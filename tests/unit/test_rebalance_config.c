/* rebalance: the balancer's configuration defaults and the registry of
 * balancer names (ballast/rebalance.h, which needs <mpi.h>; nothing here
 * calls MPI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ballast/rebalance.h>

static void config_defaults_and_balancer_names(void **state) {
  (void)state;
  bal_rebalance_config c;
  assert_int_equal(bal_rebalance_config_init(&c), BAL_OK);
  assert_string_equal(c.balancer, "string");
  assert_int_equal(c.filter, BAL_REBALANCE_FILTER_ADAPTIVE);
  assert_true(c.threshold == 0.10 && c.profitability && c.pipelined);
  assert_int_equal(bal_rebalance_config_init(NULL), BAL_EINVAL);
  /* the registry: the default first, every name distinct, NULL past the end */
  const char *expect[] = {"string", "direct", "none"};
  int nb = 0;
  while (bal_rebalance_balancer_name(nb)) nb++;
  assert_int_equal(nb, 3);
  for (int i = 0; i < nb; i++) {
    assert_string_equal(bal_rebalance_balancer_name(i), expect[i]);
    for (int j = 0; j < i; j++)
      assert_string_not_equal(bal_rebalance_balancer_name(i), bal_rebalance_balancer_name(j));
  }
  assert_null(bal_rebalance_balancer_name(-1));
  assert_null(bal_rebalance_balancer_name(nb));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(config_defaults_and_balancer_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
