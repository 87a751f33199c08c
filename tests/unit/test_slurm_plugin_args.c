/* The SPANK plugin's plugstack.conf arguments, read by the plugin and by
 * slurm-sd from the plugin's own line (slurm/common/plugin_args.c): the
 * defaults, the sharing factor's one range, and the files slurm-sd must
 * refuse with a message naming the file and line. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <ballast/share.h>

#include "plugin_args.h"

static void test_args(void **state) {
  (void)state;
  bal__slurm_plugin_args a;
  bal__slurm_plugin_args_init(&a);
  assert_string_equal(a.registry, "/ballast-%n");
  assert_true(a.sharing_factor == BAL_SHARE_FACTOR_DEFAULT);
  assert_int_equal(a.cpus, 0);
  char *good[] = {"registry=/r-%n", "cpus=8", "sharing_factor=1", "group=hpc"};
  int bad = -1;
  assert_int_equal(bal__slurm_plugin_args_parse(&a, 4, good, &bad), 0);
  assert_string_equal(a.registry, "/r-%n");
  assert_int_equal(a.cpus, 8);
  assert_true(a.sharing_factor == 1.0);
  assert_string_equal(a.group, "hpc");
  /* each refused alone, and nothing changes */
  char *refused[] = {"sharing_factor=0", "sharing_factor=1.5", "sharing_factor=nan",
                     "sharing_factor=-0.5", "sharing_factor=", "sharing_factor=0.5x",
                     "cpus=0", "cpus=x", "cpus=", "registry=", "group=", "bogus=1", "cpus"};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    char *av[] = {"cpus=4", refused[i]};
    bad = -1;
    if (bal__slurm_plugin_args_parse(&a, 2, av, &bad) != -1) fail_msg("accepted '%s'", refused[i]);
    assert_int_equal(bad, 1);
    assert_int_equal(a.cpus, 8);
  }
}

/* Write text to a fresh file under dir; returns its path (static buffer per slot). */
static const char *put(const char *dir, const char *name, const char *text) {
  static char paths[4][256];
  static int slot;
  char *p = paths[slot++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

static void test_plugstack(void **state) {
  (void)state;
  char dir[] = "/tmp/bal-plugstack-XXXXXX";
  assert_non_null(mkdtemp(dir));
  bal__slurm_plugin_args a;
  char err[512];
  /* the sandbox's line; other plugins and comments around it */
  const char *p = put(dir, "a.conf",
                      "# comment\noptional /usr/lib/x/other.so x=1\n\n"
                      "optional /opt/b/lib/ballast/ballast_spank.so registry=/b-%n cpus=8 "
                      "sharing_factor=0.25 # trailing\n");
  bal__slurm_plugin_args_init(&a);
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), 1);
  assert_true(a.sharing_factor == 0.25);
  assert_int_equal(a.cpus, 8);
  /* no sharing_factor: the plugin's default */
  p = put(dir, "b.conf", "required ballast_spank.so\n");
  bal__slurm_plugin_args_init(&a);
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), 1);
  assert_true(a.sharing_factor == BAL_SHARE_FACTOR_DEFAULT);
  /* found through include, relative to the including file */
  put(dir, "inc.conf", "optional ballast_spank.so sharing_factor=0.75\n");
  p = put(dir, "c.conf", "include inc.conf\n");
  bal__slurm_plugin_args_init(&a);
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), 1);
  assert_true(a.sharing_factor == 0.75);
  /* no plugin line */
  p = put(dir, "d.conf", "optional other.so\n# ballast_spank.so\n");
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), 0);
  /* refused, naming file and line */
  p = put(dir, "e.conf", "\noptional ballast_spank.so sharing_factor=1.5\n");
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "e.conf:2:"));
  assert_non_null(strstr(err, "sharing_factor=1.5"));
  p = put(dir, "f.conf", "maybe ballast_spank.so\n");
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "f.conf:1:"));
  p = put(dir, "g.conf", "include g.conf\n"); /* includes itself */
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), -1);
  /* an endless line (an include of /dev/zero) stops at its line */
  p = put(dir, "h.conf", "include /dev/zero\n");
  assert_int_equal(bal__slurm_plugstack_read(p, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "/dev/zero:1: line longer than"));
  char missing[300];
  snprintf(missing, sizeof missing, "%s/none.conf", dir);
  assert_int_equal(bal__slurm_plugstack_read(missing, &a, err, sizeof err), -1);
  assert_non_null(strstr(err, "none.conf"));
  const char *names[] = {"a.conf", "b.conf", "c.conf", "d.conf", "e.conf", "f.conf", "g.conf",
                         "h.conf", "inc.conf"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char q[300];
    snprintf(q, sizeof q, "%s/%s", dir, names[i]);
    unlink(q);
  }
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_args),
      cmocka_unit_test(test_plugstack),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
