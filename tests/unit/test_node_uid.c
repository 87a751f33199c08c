/* Access to a registry by another user: a 0600 registry refuses a second
 * uid with BAL_EPERM (managers and processes); a group-shared one (0660,
 * group nogroup) lets a member of that group in. Changing uid needs root:
 * otherwise the test exits 77, which CTest reports as skipped. */
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/error.h>
#include <ballast/node.h>

static int counter;

static void make(char name[64], const char *group) {
  snprintf(name, 64, "/ballast-test-node-uid-%ld-%d", (long)getpid(), counter++);
  bal_node_registry_config cfg;
  bal_node_registry_config_init(&cfg);
  cfg.name = name;
  cfg.virtual_cpus = 8;
  cfg.group = group;
  assert_int_equal(bal_node_registry_create(&cfg), BAL_OK);
}

/* In a child running as uid/gid 65534: open as manager and attach; exit
 * status 0 if both returned `want`. */
static int as_nobody(const char *name, int want) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
    bal_node_manager *m = NULL;
    int rc = bal_node_manager_open(name, &m);
    bal_node_manager_close(m);
    if (rc != want) _exit(11);
    bal_node_attach_config cfg;
    bal_node_attach_config_init(&cfg);
    cfg.registry = name;
    bal_node_proc *p = NULL;
    rc = bal_node_attach(&cfg, &p);
    bal_node_detach(p);
    _exit(rc == want ? 0 : 12);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}

static void private_registry_refuses_others(void **state) {
  (void)state;
  char name[64];
  make(name, NULL);
  assert_int_equal(as_nobody(name, BAL_EPERM), 0);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
}

static void group_registry_admits_the_group(void **state) {
  (void)state;
  struct group *g = getgrgid(65534);
  if (!g) skip();
  char name[64];
  make(name, g->gr_name);
  int fd = shm_open(name, O_RDONLY, 0);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  close(fd);
  assert_int_equal(st.st_mode & 0777, 0660);
  assert_int_equal(st.st_gid, 65534);
  assert_int_equal(as_nobody(name, BAL_OK), 0);
  assert_int_equal(bal_node_registry_destroy(name), BAL_OK);
}

static void unknown_group_is_not_found(void **state) {
  (void)state;
  bal_node_registry_config cfg;
  bal_node_registry_config_init(&cfg);
  char name[64];
  snprintf(name, 64, "/ballast-test-node-uid-%ld-nogrp", (long)getpid());
  cfg.name = name;
  cfg.virtual_cpus = 8;
  cfg.group = "ballast-no-such-group";
  assert_int_equal(bal_node_registry_create(&cfg), BAL_ENOTFOUND);
  assert_int_equal(bal_node_registry_destroy(name), BAL_ENOTFOUND); /* nothing left behind */
}

int main(void) {
  if (geteuid() != 0) {
    fprintf(stderr, "test_node_uid: needs root to run a child as another uid; skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(private_registry_refuses_others),
      cmocka_unit_test(group_registry_admits_the_group),
      cmocka_unit_test(unknown_group_is_not_found),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
