/* The distribution rule of ballast/node.h against its table (16 virtual
 * CPUs, SF 0.5), exact masks, with every process a real child process;
 * then bad input, which must change nothing, and set with and without
 * waiting for the process to apply the mask. */
#include <fcntl.h>
#include <float.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/node.h>

#include "node_assert.h"

typedef node_fixture fixture;
#define setup node_fixture_setup
#define teardown node_fixture_teardown

/* Admit a child of job `job` (not yet attached), then attach it. */
static void admit(fixture *f, node_child *b, int64_t job, int64_t ranks, const int64_t *next_to, int64_t n,
                  const char *want) {
  node_child_spawn(b, f->name, job, ranks, NULL);
  bal_node_mask granted;
  assert_int_equal(bal_node_manager_admit(f->m, b->pid, job, ranks, next_to, n, &granted), BAL_OK);
  char got[256];
  bal_node_mask_format(&granted, got, sizeof got);
  assert_string_equal(got, want);
  node_assert_attach(f->m, b, want);
}

static void start(fixture *f, node_child *a, int64_t job, int64_t ranks, const char *cpus, const char *want) {
  node_child_spawn(a, f->name, job, ranks, cpus);
  node_assert_attach(f->m, a, want);
}

/* A (1 rank) holds 0-15; admit B: A 0-7, B 8-15; B ends: A 0-15. */
static void one_rank_guest_ends(void **state) {
  fixture *f = *state;
  node_child a, b;
  start(f, &a, 1, 1, NULL, "0-15");
  admit(f, &b, 2, 1, NULL, 0, "8-15");
  node_assert_polls(&a, "0-7");
  ASSERT_MASK(f->m, a.pid, "0-7");
  node_finish(f->m, &b);
  node_assert_polls(&a, "0-15");
  ASSERT_MASK(f->m, b.pid, "-");
  node_finish(f->m, &a);
}

/* Same; A ends while B runs: B 0-15. */
static void owner_ends_first(void **state) {
  fixture *f = *state;
  node_child a, b;
  start(f, &a, 1, 1, NULL, "0-15");
  admit(f, &b, 2, 1, NULL, 0, "8-15");
  node_finish(f->m, &a);
  node_assert_polls(&b, "0-15");
  ASSERT_MASK(f->m, b.pid, "0-15");
  node_finish(f->m, &b);
}

/* A (12 ranks) holds 0-15; admit B: A 0-11, B 12-15; B ends: A 0-15. */
static void ranks_floor(void **state) {
  fixture *f = *state;
  node_child a, b;
  start(f, &a, 1, 12, NULL, "0-15");
  admit(f, &b, 2, 1, NULL, 0, "12-15");
  node_assert_polls(&a, "0-11");
  node_finish(f->m, &b);
  node_assert_polls(&a, "0-15");
  node_finish(f->m, &a);
}

/* A holds 0-7, C holds 8-15; admit B next to both: A 0-3, C 8-11,
 * B 4-7 and 12-15; B ends: A 0-7, C 8-15. */
static void two_mates(void **state) {
  fixture *f = *state;
  node_child a, b, c;
  start(f, &a, 1, 1, "0-7", "0-7");
  start(f, &c, 3, 1, "8-15", "8-15");
  int64_t mates[] = {1, 3};
  admit(f, &b, 2, 1, mates, 2, "4-7,12-15");
  node_assert_polls(&a, "0-3");
  node_assert_polls(&c, "8-11");
  bal_node_cpu_info cpu[16];
  assert_int_equal(bal_node_manager_cpus(f->m, cpu, 16), 16);
  assert_int_equal(cpu[5].owner, 1);
  assert_int_equal(cpu[13].owner, 3);
  assert_int_equal(cpu[2].owner, -1);
  node_finish(f->m, &b);
  node_assert_polls(&a, "0-7");
  node_assert_polls(&c, "8-15");
  node_finish(f->m, &a);
  node_finish(f->m, &c);
}

/* A job whose ranks fill its CPUs lends nothing: admission is BAL_EBUSY
 * and nothing changes. */
static void nothing_to_lend_is_busy(void **state) {
  fixture *f = *state;
  node_child a, b;
  start(f, &a, 1, 16, NULL, "0-15");
  node_child_spawn(&b, f->name, 2, 1, NULL);
  bal_node_mask granted;
  bal_node_mask_zero(&granted);
  assert_int_equal(bal_node_manager_admit(f->m, b.pid, 2, 1, NULL, 0, &granted), BAL_EBUSY);
  assert_int_equal(bal_node_mask_count(&granted), 0);
  ASSERT_MASK(f->m, a.pid, "0-15");
  ASSERT_MASK(f->m, b.pid, "-");
  assert_int_equal(node_child_cmd(&b, 'a', NULL), BAL_EBUSY); /* and no free CPU either */
  node_child_end(&b);
  node_finish(f->m, &a);
}

/* Bad input gets a clear code and changes nothing. */
static void bad_input_changes_nothing(void **state) {
  fixture *f = *state;
  node_child a, b;
  start(f, &a, 1, 1, "0-7", "0-7");
  start(f, &b, 2, 1, "8-15", "8-15");
  bal_node_mask empty, outside, held;
  bal_node_mask_zero(&empty);
  bal_node_mask_zero(&outside);
  bal_node_mask_add(&outside, 3, 16);
  assert_int_equal(bal_node_mask_parse("0-3,9", &held), BAL_OK);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &empty, 0), BAL_EINVAL);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &outside, 0), BAL_EINVAL);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &held, 0), BAL_EBUSY);
  assert_int_equal(bal_node_manager_set(f->m, 999999999, &held, 0), BAL_ENOTFOUND);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &held, -1.0), BAL_EINVAL);
  assert_int_equal(bal_node_manager_remove(f->m, 999999999), BAL_ENOTFOUND);
  int64_t nobody[] = {42};
  node_child c;
  node_child_spawn(&c, f->name, 5, 1, NULL);
  assert_int_equal(bal_node_manager_admit(f->m, c.pid, 5, 1, nobody, 1, NULL), BAL_ENOTFOUND);
  assert_int_equal(bal_node_manager_admit(f->m, a.pid, 5, 1, NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit(f->m, c.pid, -1, 1, NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit(f->m, c.pid, 5, 0, NULL, 0, NULL), BAL_EINVAL);
  assert_int_equal(bal_node_manager_admit(f->m, c.pid, 5, 1, NULL, 1, NULL), BAL_EINVAL);
  node_child_end(&c); /* reaped: its pid is no live process now */
  assert_int_equal(bal_node_manager_admit(f->m, c.pid, 5, 1, NULL, 0, NULL), BAL_ENOTFOUND);
  ASSERT_MASK(f->m, a.pid, "0-7");
  ASSERT_MASK(f->m, b.pid, "8-15");
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 2);
  bal_node_manager *none = NULL;
  assert_int_equal(bal_node_manager_open("/ballast-test-node-absent-x", &none), BAL_ENOTFOUND);
  assert_null(none);
  assert_int_equal(bal_node_manager_open("a/b", &none), BAL_EINVAL);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = "/ballast-test-node-absent-x";
  bal_node_proc *p = NULL;
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_ENOTFOUND);
  cfg.registry = f->name;
  cfg.ranks = 0;
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_EINVAL);
  assert_null(p);
  node_finish(f->m, &a);
  node_finish(f->m, &b);
}

/* set: a shrink frees CPUs; with a timeout it returns once the process has
 * polled; without a poller it times out, the mask set all the same. */
static void set_and_wait(void **state) {
  fixture *f = *state;
  node_child a;
  start(f, &a, 1, 1, NULL, "0-15");
  bal_node_mask m;
  assert_int_equal(bal_node_mask_parse("0-3", &m), BAL_OK);
  node_child_send(&a, 'w');
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &m, 10.0), BAL_OK);
  char got[256];
  assert_int_equal(node_child_reply(&a, got), BAL_OK);
  assert_string_equal(got, "0-3");
  bal_node_proc_info info;
  assert_int_equal(bal_node_manager_list(f->m, &info, 1), 1);
  assert_true(info.applied);
  assert_int_equal(bal_node_mask_parse("0-5", &m), BAL_OK);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &m, 0.05), BAL_ETIMEDOUT);
  ASSERT_MASK(f->m, a.pid, "0-5");
  node_assert_polls(&a, "0-5");
  /* timeouts past what int64 nanoseconds hold wait (without limit), they
   * do not overflow into an immediate BAL_ETIMEDOUT */
  const double huge[] = {9.3e9, 1e10, 1e300, DBL_MAX};
  for (size_t k = 0; k < sizeof huge / sizeof *huge; k++) {
    assert_int_equal(bal_node_mask_parse(k % 2 ? "0-5" : "0-4", &m), BAL_OK);
    node_child_send(&a, 'w');
    assert_int_equal(bal_node_manager_set(f->m, a.pid, &m, huge[k]), BAL_OK);
    assert_int_equal(node_child_reply(&a, got), BAL_OK);
    assert_string_equal(got, k % 2 ? "0-5" : "0-4");
  }
  assert_int_equal(bal_node_mask_parse("0-5", &m), BAL_OK);
  assert_int_equal(bal_node_manager_set(f->m, a.pid, &m, 0), BAL_OK);
  node_assert_polls(&a, "0-5");
  /* the freed CPUs 6-15 go to the next process that attaches */
  node_child b;
  start(f, &b, 2, 1, NULL, "6-15");
  node_finish(f->m, &a);
  node_finish(f->m, &b);
}

/* A registry of the machine's real CPUs: a process attaches with its
 * affinity set, and the poll that sees a new mask binds the polling thread
 * to it. */
static void real_cpus_bind_the_poller(void **state) {
  (void)state;
  char name[64];
  assert_int_equal(node_test_registry(name, 0), BAL_OK);
  bal_node_manager *m;
  assert_int_equal(bal_node_manager_open(name, &m), BAL_OK);
  int64_t ncpus;
  bool is_virtual = true;
  assert_int_equal(bal_node_manager_info(m, &ncpus, &is_virtual), BAL_OK);
  assert_false(is_virtual);
  cpu_set_t aff;
  assert_int_equal(sched_getaffinity(0, sizeof aff, &aff), 0);
  bal_node_mask mine, one;
  bal_node_mask_zero(&mine);
  for (int64_t c = 0; c < ncpus; c++)
    if (CPU_ISSET(c, &aff)) bal_node_mask_add(&mine, c, c);
  char want[256], got[256];
  bal_node_mask_format(&mine, want, sizeof want);
  node_child a;
  node_child_spawn(&a, name, 1, 1, NULL);
  assert_int_equal(node_child_cmd(&a, 'a', NULL), BAL_OK);
  node_assert_polls(&a, want); /* it claimed its affinity set */
  int64_t first = 0;
  while (!bal_node_mask_has(&mine, first)) first++;
  bal_node_mask_zero(&one);
  bal_node_mask_add(&one, first, first);
  node_child_send(&a, 'w');
  assert_int_equal(bal_node_manager_set(m, a.pid, &one, 10.0), BAL_OK);
  assert_int_equal(node_child_reply(&a, NULL), BAL_OK);
  assert_int_equal(node_child_cmd(&a, 'g', got), BAL_OK);
  char want_one[32];
  bal_node_mask_format(&one, want_one, sizeof want_one);
  assert_string_equal(got, want_one); /* bound to the one CPU */
  if (bal_node_mask_count(&mine) > 1) {
    node_child_send(&a, 'w');
    assert_int_equal(bal_node_manager_set(m, a.pid, &mine, 10.0), BAL_OK);
    assert_int_equal(node_child_reply(&a, NULL), BAL_OK);
    assert_int_equal(node_child_cmd(&a, 'g', got), BAL_OK);
    assert_string_equal(got, want);
  }
  assert_int_equal(node_child_cmd(&a, 'd', NULL), BAL_OK);
  node_child_end(&a);
  bal_node_manager_close(m);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
}

/* A manager thread and the polling thread in one process (what TSan can
 * see): the manager's set waits for the poll that applies it. */
typedef struct set_arg {
  bal_node_manager *m;
  int64_t pid;
  bal_node_mask mask;
  int rc;
} set_arg;

static void *set_thread(void *arg) {
  set_arg *a = arg;
  a->rc = bal_node_manager_set(a->m, a->pid, &a->mask, 10.0);
  return NULL;
}

static void manager_thread_and_poller(void **state) {
  fixture *f = *state;
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = f->name;
  cfg.job = 7;
  bal_node_proc *p;
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_OK);
  bal_node_mask m;
  bool changed;
  assert_int_equal(bal_node_poll(p, &m, &changed), BAL_OK);
  assert_true(changed);
  assert_int_equal(bal_node_mask_count(&m), 16);
  for (int round = 0; round < 20; round++) {
    set_arg a = {.m = f->m, .pid = getpid(), .rc = -1000};
    bal_node_mask_zero(&a.mask);
    assert_int_equal(bal_node_mask_add(&a.mask, 0, round % 16), BAL_OK);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, set_thread, &a), 0);
    bool seen = false;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do { /* poll until the new mask shows, for up to 10 s */
      assert_int_equal(bal_node_poll(p, &m, &changed), BAL_OK);
      seen = bal_node_mask_equal(&m, &a.mask);
      clock_gettime(CLOCK_MONOTONIC, &now);
    } while (!seen && now.tv_sec - t0.tv_sec < 10);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(seen);
    assert_int_equal(a.rc, BAL_OK);
  }
  assert_int_equal(bal_node_detach(p), BAL_OK);
  assert_int_equal(bal_node_manager_list(f->m, NULL, 0), 0);
}

/* The registry's name from BALLAST_NODE_REGISTRY, the job id from
 * SLURM_JOB_ID, else the pid; a new registry is private (0600). */
static void names_from_the_environment(void **state) {
  fixture *f = *state;
  struct stat st;
  int fd = shm_open(f->name, O_RDONLY, 0);
  assert_true(fd >= 0);
  assert_int_equal(fstat(fd, &st), 0);
  close(fd);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(setenv(BAL_NODE_REGISTRY_ENV, f->name, 1), 0);
  assert_int_equal(setenv("SLURM_JOB_ID", "4242", 1), 0);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg); /* registry NULL, job -1 */
  bal_node_proc *p;
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_OK);
  bal_node_manager *m;
  assert_int_equal(bal_node_manager_open(NULL, &m), BAL_OK);
  bal_node_proc_info info;
  assert_int_equal(bal_node_manager_list(m, &info, 1), 1);
  assert_int_equal(info.job, 4242);
  assert_int_equal(info.pid, getpid());
  assert_int_equal(bal_node_detach(p), BAL_OK);
  const char *bad_ids[] = {"42x", "", " 42", "042", "+42", "\t42", "-1", "99999999999999999999"};
  for (size_t k = 0; k < sizeof bad_ids / sizeof *bad_ids; k++) {
    assert_int_equal(setenv("SLURM_JOB_ID", bad_ids[k], 1), 0);
    assert_int_equal(bal_node_attach(&cfg, &p), BAL_EINVAL);
  }
  assert_int_equal(unsetenv("SLURM_JOB_ID"), 0);
  assert_int_equal(bal_node_attach(&cfg, &p), BAL_OK);
  assert_int_equal(bal_node_manager_list(m, &info, 1), 1);
  assert_int_equal(info.job, getpid());
  assert_int_equal(bal_node_detach(p), BAL_OK);
  bal_node_manager_close(m);
  assert_int_equal(unsetenv(BAL_NODE_REGISTRY_ENV), 0);
  assert_int_equal(bal_node_manager_open(NULL, &m), BAL_EINVAL); /* no name at all */
  /* control characters garble every message that names the registry */
  const char *bad_names[] = {"a\nb", "a\tb", "\x1b[31mred", "a\x7f", "/\x01"};
  bal_node_registry_config rc;
  bal_node_registry_config_init(&rc);
  rc.virtual_cpus = 2;
  for (size_t k = 0; k < sizeof bad_names / sizeof *bad_names; k++) {
    assert_int_equal(bal_node_manager_open(bad_names[k], &m), BAL_EINVAL);
    assert_int_equal(bal_node_registry_destroy(bad_names[k]), BAL_EINVAL);
    rc.name = bad_names[k];
    assert_int_equal(bal_node_registry_create(&rc), BAL_EINVAL);
  }
}

static void masks_parse_and_format(void **state) {
  (void)state;
  bal_node_mask m;
  char buf[64];
  assert_int_equal(bal_node_mask_parse("8,0-3,9,1023", &m), BAL_OK);
  assert_int_equal(bal_node_mask_count(&m), 7);
  assert_int_equal(bal_node_mask_format(&m, buf, sizeof buf), (int)strlen("0-3,8-9,1023"));
  assert_string_equal(buf, "0-3,8-9,1023");
  assert_int_equal(bal_node_mask_format(&m, buf, 5), BAL_ERANGE);
  assert_string_equal(buf, "");
  assert_int_equal(bal_node_mask_parse("", &m), BAL_OK);
  assert_int_equal(bal_node_mask_count(&m), 0);
  const char *bad[] = {"1024", "0-1024", "3-1", "1,", ",1", "01", "-1", "1 ", "a", "1--2", "+1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(bal_node_mask_parse(bad[i], &m), BAL_EINVAL);
  assert_int_equal(bal_node_mask_add(&m, 0, BAL_NODE_MAX_CPUS), BAL_EINVAL);
  assert_int_equal(bal_node_mask_add(&m, -1, 3), BAL_EINVAL);
  assert_false(bal_node_mask_has(&m, BAL_NODE_MAX_CPUS));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(one_rank_guest_ends, setup, teardown),
      cmocka_unit_test_setup_teardown(owner_ends_first, setup, teardown),
      cmocka_unit_test_setup_teardown(ranks_floor, setup, teardown),
      cmocka_unit_test_setup_teardown(two_mates, setup, teardown),
      cmocka_unit_test_setup_teardown(nothing_to_lend_is_busy, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_input_changes_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(set_and_wait, setup, teardown),
      cmocka_unit_test(real_cpus_bind_the_poller),
      cmocka_unit_test_setup_teardown(manager_thread_and_poller, setup, teardown),
      cmocka_unit_test_setup_teardown(names_from_the_environment, setup, teardown),
      cmocka_unit_test(masks_parse_and_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
