/* libballast-gomp.so (src/node/gomp/preload.c): an unmodified OpenMP
 * program, preloaded with it, sizes each parallel region's team from its
 * node registry mask: 8 threads on its own 8 CPUs, 16 once another
 * process lends its 8, 8 again after the reclaim — for `parallel`, for
 * `parallel for` with dynamic, guided and runtime schedules and for
 * `parallel sections` (each a different libgomp entry). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/ballast.h>

#include "core/clock.h"
#include "node_check.h"

typedef node_fixture fixture;
#define setup node_fixture_setup
#define teardown node_fixture_teardown

/* Read team sizes from the program until one equals want (10 s at most). */
static bool until(FILE *in, int want) {
  int64_t t0 = bal__now_ns();
  int n;
  while (bal__now_ns() - t0 < 10000000000 && fscanf(in, "%d", &n) == 1)
    if (n == want) return true;
  return false;
}

static void follows_lending(fixture *f, const char *construct) {
  node_child a;
  node_child_spawn(&a, f->name, 1, 1, "0-7");
  assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
  int out[2];
  assert_int_equal(pipe(out), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    setenv("LD_PRELOAD", GOMP_PRELOAD, 1);
    setenv(BAL_NODE_REGISTRY_ENV, f->name, 1);
    unsetenv("OMP_NUM_THREADS");
    execl(OMP_PROG, OMP_PROG, construct, "5000", (char *)NULL);
    _exit(127);
  }
  close(out[1]);
  FILE *in = fdopen(out[0], "r");
  bool own = until(in, 8); /* it attached with the free CPUs, 8-15 */
  assert_int_equal(node_child_cmd(&a, 'l', NULL), 8);
  bool borrowed = until(in, 16);
  assert_int_equal(node_child_cmd(&a, 'r', NULL), 8);
  bool back = until(in, 8);
  assert_true(node_invariant(f->m));
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  fclose(in);
  node_child_end(&a);
  if (!own || !borrowed || !back)
    fprintf(stderr, "%s: own %d borrowed %d back %d\n", construct, own, borrowed, back);
  assert_true(own);
  assert_true(borrowed);
  assert_true(back);
}

static void parallel(void **state) { follows_lending(*state, "parallel"); }
static void loop_dynamic(void **state) { follows_lending(*state, "dynamic"); }
static void loop_guided(void **state) { follows_lending(*state, "guided"); }
static void loop_runtime(void **state) { follows_lending(*state, "runtime"); }
static void sections(void **state) { follows_lending(*state, "sections"); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(parallel, setup, teardown),
      cmocka_unit_test_setup_teardown(loop_dynamic, setup, teardown),
      cmocka_unit_test_setup_teardown(loop_guided, setup, teardown),
      cmocka_unit_test_setup_teardown(loop_runtime, setup, teardown),
      cmocka_unit_test_setup_teardown(sections, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
