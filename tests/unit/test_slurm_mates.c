/* SLURM's pure parts: the guest–mate relation read from a job's
 * AdminComment ("sd:mates=ID,ID") by the SPANK plugin and by slurm-sd
 * (which must read the same relation, or refuse the same text), and the
 * registry name pattern ("%n" the node name), with the malformed inputs
 * each must refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mates.h"
#include "slurmsd.h"

static void test_mates_found(void **state) {
  (void)state;
  int64_t m[4];
  assert_int_equal(bal__slurm_parse_mates("sd:mates=12", m, 4), 1);
  assert_int_equal(m[0], 12);
  assert_int_equal(bal__slurm_parse_mates("sd:malleable sd:mates=3,14,159", m, 4), 3);
  assert_int_equal(m[0], 3);
  assert_int_equal(m[1], 14);
  assert_int_equal(m[2], 159);
  assert_int_equal(bal__slurm_parse_mates("note;sd:mates=7 more words", m, 4), 1);
  assert_int_equal(m[0], 7);
  /* the first occurrence counts */
  assert_int_equal(bal__slurm_parse_mates("sd:mates=1 sd:mates=2,3", m, 4), 1);
  assert_int_equal(m[0], 1);
}

static void test_mates_absent(void **state) {
  (void)state;
  int64_t m[4] = {-5, -5, -5, -5};
  assert_int_equal(bal__slurm_parse_mates(NULL, m, 4), 0);
  assert_int_equal(bal__slurm_parse_mates("", m, 4), 0);
  assert_int_equal(bal__slurm_parse_mates("sd:malleable", m, 4), 0);
  /* the key must start a word */
  assert_int_equal(bal__slurm_parse_mates("xsd:mates=4", m, 4), 0);
  assert_int_equal(m[0], -5);
}

static void test_mates_malformed(void **state) {
  (void)state;
  int64_t m[2];
  const char *bad[] = {"sd:mates=",      "sd:mates=,1",   "sd:mates=1,",       "sd:mates=1,,2",
                       "sd:mates=-1",    "sd:mates=1x",   "sd:mates=+3",       "sd:mates= 1",
                       "sd:mates=1,2,3", /* more than cap */
                       "sd:mates=99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    if (bal__slurm_parse_mates(bad[i], m, 2) != -1) fail_msg("accepted '%s'", bad[i]);
  }
}

/* The daemon's reading of an admin comment (sd_parse_admin) gives the
 * plugin's result, on good and malformed relations alike. */
static void test_daemon_agrees(void **state) {
  (void)state;
  const char *cases[] = {"sd:mates=12", "sd:malleable sd:mates=3,14,159", "note;sd:mates=7 x",
                         "sd:mates=1 sd:mates=2,3", "", "sd:static", "xsd:mates=4",
                         "sd:mates=", "sd:mates=,1", "sd:mates=1,", "sd:mates=1,,2",
                         "sd:mates=-1", "sd:mates=1x", "sd:mates=+3", "sd:mates= 1",
                         "sd:mates=99999999999999999999", "sd:malleable sd:mates=5;junk=1"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int64_t a[BAL_SLURM_MAX_MATES], b[SD_MAX_MATES];
    int na = bal__slurm_parse_mates(cases[i], a, BAL_SLURM_MAX_MATES);
    bool decided, malleable;
    int nb = -2;
    sd_parse_admin(cases[i], &decided, &malleable, b, &nb);
    if (na != nb) fail_msg("'%s': plugin %d mates, daemon %d", cases[i], na, nb);
    for (int k = 0; k < na; k++) assert_int_equal(a[k], b[k]);
  }
}

/* One limit: BAL_SLURM_MAX_MATES (the scheduler's) ids are a relation, one
 * more is malformed, for the plugin and the daemon alike. */
static void test_mates_limit(void **state) {
  (void)state;
  assert_int_equal(BAL_SLURM_MAX_MATES, SD_MAX_MATES);
  char text[512] = "sd:mates=";
  for (int k = 1; k <= BAL_SLURM_MAX_MATES + 1; k++)
    snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", k > 1 ? "," : "", k);
  int64_t m[BAL_SLURM_MAX_MATES];
  bool decided, malleable;
  int n = 0;
  assert_int_equal(bal__slurm_parse_mates(text, m, BAL_SLURM_MAX_MATES), -1);
  sd_parse_admin(text, &decided, &malleable, m, &n);
  assert_int_equal(n, -1);
  assert_true(decided); /* the daemon's own mark: never queued again */
  *strrchr(text, ',') = '\0';
  assert_int_equal(bal__slurm_parse_mates(text, m, BAL_SLURM_MAX_MATES), BAL_SLURM_MAX_MATES);
  assert_int_equal(m[BAL_SLURM_MAX_MATES - 1], BAL_SLURM_MAX_MATES);
}

static void test_registry_name(void **state) {
  (void)state;
  char buf[32];
  assert_int_equal(bal__slurm_registry_name("/ballast-%n", "n12", buf, sizeof buf), 0);
  assert_string_equal(buf, "/ballast-n12");
  assert_int_equal(bal__slurm_registry_name("/a-%n-%n", "x", buf, sizeof buf), 0);
  assert_string_equal(buf, "/a-x-x");
  assert_int_equal(bal__slurm_registry_name("/p%%%n", "n1", buf, sizeof buf), 0);
  assert_string_equal(buf, "/p%n1");
  assert_int_equal(bal__slurm_registry_name("/fixed", "n1", buf, sizeof buf), 0);
  assert_string_equal(buf, "/fixed");
  assert_int_equal(bal__slurm_registry_name("/x%d", "n1", buf, sizeof buf), -1);
  assert_int_equal(bal__slurm_registry_name("/x%", "n1", buf, sizeof buf), -1);
  /* exactly full: 31 characters and the NUL fit, 32 do not */
  assert_int_equal(bal__slurm_registry_name("/%n", "012345678901234567890123456789", buf, sizeof buf), 0);
  assert_int_equal(bal__slurm_registry_name("/%n", "0123456789012345678901234567890", buf, sizeof buf),
                   -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mates_found),
      cmocka_unit_test(test_mates_absent),
      cmocka_unit_test(test_mates_malformed),
      cmocka_unit_test(test_daemon_agrees),
      cmocka_unit_test(test_mates_limit),
      cmocka_unit_test(test_registry_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
