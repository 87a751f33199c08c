/* tools/common/launch.h: what `--ranks P` refuses before starting mpiexec,
 * the kill of a child deaf to a forwarded signal, the size check after
 * MPI_Init, and the muting of ranks other than 0. */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
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

/* A process limit that leaves fewer threads than the job's is refused,
 * naming RLIMIT_NPROC (the soft limit, lowered for the test only: the
 * threads already running count against it). */
static void test_fits_nproc(void **state) {
  (void)state;
  struct rlimit saved_rl;
  assert_int_equal(getrlimit(RLIMIT_NPROC, &saved_rl), 0);
  struct rlimit low = saved_rl;
  low.rlim_cur = 8 * LAUNCH_RANK_THREADS;
  if (saved_rl.rlim_max != RLIM_INFINITY && saved_rl.rlim_max < low.rlim_cur) skip();
  assert_int_equal(setrlimit(RLIMIT_NPROC, &low), 0);
  FILE *f = tmpfile();
  assert_non_null(f);
  int saved = dup(STDERR_FILENO);
  dup2(fileno(f), STDERR_FILENO);
  bool fits = launch_fits("t", 8);
  char text[1024];
  stderr_text(f, text, sizeof text);
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(f);
  assert_int_equal(setrlimit(RLIMIT_NPROC, &saved_rl), 0);
  assert_false(fits);
  assert_non_null(strstr(text, "t: --ranks 8: the job needs about 36 processes and threads"));
  assert_non_null(strstr(text, "RLIMIT_NPROC"));
}

/* A child that ignores the forwarded SIGTERM (as mpiexec busy starting
 * ranks did) is killed with its group after LAUNCH_GRACE_S, not waited
 * for forever. */
static void test_wait_kills_deaf_child(void **state) {
  (void)state;
  char *const argv[] = {"/bin/sh", "-c", "trap '' TERM; sleep 120; exit 3", NULL};
  pid_t pid = launch_spawn("t", argv, -1);
  assert_true(pid > 0);
  struct timespec settle = {0, 300 * 1000 * 1000}; /* let sh install its trap */
  nanosleep(&settle, NULL);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  raise(SIGTERM); /* forwarded to the child's group by launch_spawn's handler */
  int status = launch_wait(pid);
  clock_gettime(CLOCK_MONOTONIC, &b);
  double waited = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  assert_int_equal(launch_signal(), SIGTERM);
  assert_int_equal(status, 128 + SIGKILL);
  assert_true(waited >= LAUNCH_GRACE_S - 0.5 && waited < LAUNCH_GRACE_S + 5);
  /* Nothing of its group is left once the killed `sleep`, orphaned, has
   * been reaped by init (a moment). */
  int alive = 0;
  for (int k = 0; k < 100 && (alive = kill(-pid, 0) == 0); k++) nanosleep(&settle, NULL);
  assert_false(alive);
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
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_fits), cmocka_unit_test(test_fits_nproc),
                                     cmocka_unit_test(test_wait_kills_deaf_child),
                                     cmocka_unit_test(test_check_size), cmocka_unit_test(test_mute)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
