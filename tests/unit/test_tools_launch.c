/* tools/common/launch.h: what `--ranks P` refuses before starting mpiexec,
 * the size check after MPI_Init, and the muting of ranks other than 0. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/launch.h"

static long cores(void) {
  cpu_set_t set;
  assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
  return CPU_COUNT(&set);
}

/* Read what fd 2 received into buf (the test redirects stderr to a file). */
static void stderr_text(FILE *f, char *buf, size_t n) {
  fflush(stderr);
  rewind(f);
  size_t k = fread(buf, 1, n - 1, f);
  buf[k] = '\0';
}

/* One rank fits anywhere this test runs; one more than the per-core bound
 * never does, and the refusal is one line naming --ranks. */
static void test_fits(void **state) {
  (void)state;
  assert_true(launch_fits("t", 1));
  FILE *f = tmpfile();
  assert_non_null(f);
  int saved = dup(STDERR_FILENO);
  dup2(fileno(f), STDERR_FILENO);
  long long over = cores() * LAUNCH_MAX_RANKS_PER_CORE + 1;
  bool fits = launch_fits("t", over);
  bool huge = launch_fits("t", 1LL << 40); /* 16 EB for Open MPI alone */
  char text[1024];
  stderr_text(f, text, sizeof text);
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(f);
  assert_false(fits);
  assert_false(huge);
  char want[64];
  snprintf(want, sizeof want, "t: --ranks %lld: ", over);
  assert_true(strncmp(text, want, strlen(want)) == 0);
  const char *second = strchr(text, '\n');
  assert_non_null(second);
  assert_non_null(strstr(second + 1, "t: --ranks 1099511627776: the job needs about"));
  assert_non_null(strstr(second + 1, "GB of memory"));
}

static void test_check_size(void **state) {
  (void)state;
  assert_int_equal(launch_check_size("t", 0, 5, 0), 0); /* no --ranks */
  assert_int_equal(launch_check_size("t", 5, 5, 3), 0);
  assert_int_equal(launch_check_size("t", 4, 5, 3), 2); /* rank 3 says nothing */
}

/* A rank other than 0 prints nothing between begin and end; rank 0 and a
 * process outside mpirun print as usual; what follows end is printed. */
static void test_mute(void **state) {
  (void)state;
  FILE *f = tmpfile();
  assert_non_null(f);
  int saved = dup(STDERR_FILENO);
  dup2(fileno(f), STDERR_FILENO);
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  launch_mute_begin();
  fprintf(stderr, "rank1-muted\n");
  launch_mute_end();
  fprintf(stderr, "rank1-after\n");
  setenv("OMPI_COMM_WORLD_RANK", "0", 1);
  launch_mute_begin();
  fprintf(stderr, "rank0-speaks\n");
  launch_mute_end();
  unsetenv("OMPI_COMM_WORLD_RANK");
  char text[1024];
  stderr_text(f, text, sizeof text);
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(f);
  assert_null(strstr(text, "rank1-muted"));
  assert_non_null(strstr(text, "rank1-after"));
  assert_non_null(strstr(text, "rank0-speaks"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fits), cmocka_unit_test(test_check_size),
                                     cmocka_unit_test(test_mute)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
