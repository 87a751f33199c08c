/* src/pop/lend.c: BALLAST_LEND is read once and strictly (as
 * BALLAST_NUM_THREADS is): unset or 0 lends nothing and touches no
 * registry; 1 attaches through the pools' shared attachment and lends at
 * enter, reclaims at exit (nested calls once), and through
 * bal_pop_mpi_enter() but never bal_pop_mpi_poll_enter(); anything else is
 * BAL_EINVAL with a message naming the variable, and lending stays off.
 * Each case runs in a forked child, since the variable is read once per
 * process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/ballast.h>

#include "node_check.h"
#include "pop/lend.h"

static char g_msg[512];
static void capture(bal_log_level level, const char *module, const char *msg, void *user) {
  (void)level;
  (void)user;
  snprintf(g_msg, sizeof g_msg, "%s: %s", module, msg);
}

/* Run fn in a child with BALLAST_LEND=value (NULL: unset); its exit code. */
static int in_child(const char *value, int (*fn)(const char *), const char *arg) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    if (value) setenv("BALLAST_LEND", value, 1);
    else unsetenv("BALLAST_LEND");
    bal_log_set_callback(capture, BAL_LOG_ERROR, NULL);
    _exit(fn(arg));
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

/* A bad value: BAL_EINVAL, the message names it, enter/exit do nothing. */
static int refused(const char *value) {
  if (bal__pop_lend_init() != BAL_EINVAL) return 1;
  char want[128];
  snprintf(want, sizeof want, "BALLAST_LEND='%s': expected 1", value);
  if (!strstr(g_msg, want)) return 2;
  bal__pop_blocking_enter();
  bal__pop_blocking_exit();
  return bal__pop_lend_init() == BAL_EINVAL ? 0 : 3; /* read once */
}

static void bad_values(void **state) {
  (void)state;
  const char *bad[] = {"", "2", "-1", "01", " 1", "1 ", "yes", "+1", "0x1", "true"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    int rc = in_child(bad[i], refused, bad[i]);
    if (rc != 0) fprintf(stderr, "BALLAST_LEND='%s': child %d\n", bad[i], rc);
    assert_int_equal(rc, 0);
  }
}

/* Unset or 0: off, and no registry is needed (none is named). */
static int off(const char *unused) {
  (void)unused;
  unsetenv(BAL_NODE_REGISTRY_ENV);
  if (bal__pop_lend_init() != BAL_OK) return 1;
  bal__pop_blocking_enter();
  bal__pop_blocking_exit();
  return g_msg[0] ? 2 : 0;
}

static void off_values(void **state) {
  (void)state;
  assert_int_equal(in_child(NULL, off, NULL), 0);
  assert_int_equal(in_child("0", off, NULL), 0);
}

/* 1: a pool attached first; enter lends its CPUs (the manager sees them
 * lent), nested enter/exit reclaim only at the last exit. */
static int on(const char *reg) {
  bal_node_mask cpus;
  bal_node_mask_zero(&cpus);
  bal_node_mask_add(&cpus, 0, 3);
  bal_pool *pool;
  if (node_test_pool_on(reg, 2, &cpus, &pool) != BAL_OK) return 1;
  setenv(BAL_NODE_REGISTRY_ENV, reg, 1);
  if (bal__pop_lend_init() != BAL_OK) return 2;
  bal_node_manager *m;
  if (bal_node_manager_open(reg, &m) != BAL_OK) return 3;
  bal_node_cpu_info cpu[16];
  bal__pop_blocking_enter();
  bal__pop_blocking_enter();
  bal_node_manager_cpus(m, cpu, 16);
  if (!cpu[0].lent || !cpu[3].lent || cpu[4].pid != -1) return 4;
  bal__pop_blocking_exit();
  bal_node_manager_cpus(m, cpu, 16);
  if (!cpu[0].lent) return 5; /* still inside the outer call */
  bal__pop_blocking_exit();
  bal_node_manager_cpus(m, cpu, 16);
  if (cpu[0].lent || cpu[0].user != getpid()) return 6;
  /* Through the measuring calls the wrappers make: a blocking call lends,
   * a poll (MPI_Test, MPI_Iprobe) never does, even around a blocking one. */
  if (bal_pop_init() != BAL_OK) return 9;
  bal_pop_mpi_poll_enter();
  bal_node_manager_cpus(m, cpu, 16);
  if (cpu[0].lent) return 10;
  bal_pop_mpi_enter(); /* nested in the poll: counts as the poll */
  bal_node_manager_cpus(m, cpu, 16);
  if (cpu[0].lent) return 11;
  bal_pop_mpi_exit();
  bal_pop_mpi_exit();
  bal_pop_mpi_enter();
  bal_node_manager_cpus(m, cpu, 16);
  if (!cpu[0].lent) return 12;
  bal_pop_mpi_exit();
  bal_node_manager_cpus(m, cpu, 16);
  if (cpu[0].lent || cpu[0].user != getpid()) return 13;
  /* A forked child lends nothing and does not release the parent's
   * attachment when it exits. */
  pid_t child = fork();
  if (child == 0) {
    bal__pop_blocking_enter();
    exit(0); /* runs the atexit handlers */
  }
  int st;
  if (child < 0 || waitpid(child, &st, 0) != child || !WIFEXITED(st)) return 7;
  bal_node_manager_cpus(m, cpu, 16);
  if (cpu[0].lent || cpu[0].pid != getpid()) return 8;
  bal_node_manager_close(m);
  bal_pool_destroy(pool);
  return 0;
}

static void on_value(void **state) {
  (void)state;
  char name[64];
  assert_int_equal(node_test_registry(name, 16), BAL_OK);
  int rc = in_child("1", on, name);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
  assert_int_equal(rc, 0);
}

/* 1 with no registry reachable: the attach error, logged, lending off. */
static int no_registry(const char *unused) {
  (void)unused;
  setenv(BAL_NODE_REGISTRY_ENV, "ballast-test-no-such-registry", 1);
  if (bal__pop_lend_init() != BAL_ENOTFOUND) return 1;
  if (!strstr(g_msg, "BALLAST_LEND=1 but this process could not attach")) return 2;
  bal__pop_blocking_enter();
  bal__pop_blocking_exit();
  return 0;
}

static void on_without_registry(void **state) {
  (void)state;
  assert_int_equal(in_child("1", no_registry, NULL), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bad_values),
      cmocka_unit_test(off_values),
      cmocka_unit_test(on_value),
      cmocka_unit_test(on_without_registry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
