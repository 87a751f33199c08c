/* core: status names, version, log callback plumbing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <ballast/ballast.h>

#include "core/log.h"

static void strerror_names_every_code(void **state) {
  (void)state;
  int codes[] = {BAL_OK,     BAL_EINVAL, BAL_ENOMEM, BAL_EIO,   BAL_EFORMAT,
                 BAL_ENOTSUP, BAL_ESYS,  BAL_ERANGE, BAL_EMPI,  BAL_EBUSY, BAL_ECALLBACK,
                 BAL_ENOTFOUND, BAL_EPERM, BAL_ETIMEDOUT};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    const char *s = bal_strerror(codes[i]);
    assert_non_null(s);
    assert_string_not_equal(s, "unknown error");
    for (size_t j = 0; j < i; j++) assert_string_not_equal(s, bal_strerror(codes[j]));
  }
  assert_string_equal(bal_strerror(12345), "unknown error");
  assert_string_equal(bal_strerror(-999), "unknown error");
}

/* Each code's symbolic name is its identifier: checked against the
 * preprocessor's spelling, so a renumbered or added code cannot go unnamed. */
static void err_name_is_the_identifier(void **state) {
  (void)state;
#define NAMED(code) {code, #code}
  struct { int code; const char *name; } codes[] = {
      NAMED(BAL_OK),      NAMED(BAL_EINVAL), NAMED(BAL_ENOMEM), NAMED(BAL_EIO),
      NAMED(BAL_EFORMAT), NAMED(BAL_ENOTSUP), NAMED(BAL_ESYS),  NAMED(BAL_ERANGE),
      NAMED(BAL_EMPI),    NAMED(BAL_EBUSY),  NAMED(BAL_ECALLBACK),
      NAMED(BAL_ENOTFOUND), NAMED(BAL_EPERM), NAMED(BAL_ETIMEDOUT)};
#undef NAMED
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    assert_string_equal(bal_err_name(codes[i].code), codes[i].name);
  assert_string_equal(bal_err_name(12345), "BAL_EUNKNOWN");
  assert_string_equal(bal_err_name(-999), "BAL_EUNKNOWN");
}

static void version_matches_header(void **state) {
  (void)state;
  char expect[32];
  snprintf(expect, sizeof expect, "%d.%d.%d", BALLAST_VERSION_MAJOR, BALLAST_VERSION_MINOR,
           BALLAST_VERSION_PATCH);
  assert_string_equal(bal_version(), expect);
  assert_string_equal(BALLAST_VERSION_STRING, expect);
}

struct captured {
  int calls;
  int level;
  char module[16];
  char msg[64];
};

static void capture(bal_log_level level, const char *module, const char *msg, void *user) {
  struct captured *c = user;
  c->calls++;
  c->level = level;
  snprintf(c->module, sizeof c->module, "%s", module);
  snprintf(c->msg, sizeof c->msg, "%s", msg);
}

static void log_is_silent_by_default_and_filters_levels(void **state) {
  (void)state;
  struct captured c = {0};
  bal__log(BAL_LOG_ERROR, "core", "nobody listens %d", 1); /* must not crash or print */
  assert_int_equal(bal_log_set_callback(capture, BAL_LOG_WARN, &c), BAL_OK);
  bal__log(BAL_LOG_INFO, "core", "too detailed");
  assert_int_equal(c.calls, 0);
  bal__log(BAL_LOG_WARN, "for", "value %d adjusted", 42);
  assert_int_equal(c.calls, 1);
  assert_int_equal(c.level, BAL_LOG_WARN);
  assert_string_equal(c.module, "for");
  assert_string_equal(c.msg, "value 42 adjusted");
  assert_int_equal(bal_log_set_callback(NULL, BAL_LOG_DEBUG, NULL), BAL_OK);
  bal__log(BAL_LOG_ERROR, "core", "silent again");
  assert_int_equal(c.calls, 1);
}

static void log_rejects_bad_level(void **state) {
  (void)state;
  assert_int_equal(bal_log_set_callback(capture, (bal_log_level)-1, NULL), BAL_EINVAL);
  assert_int_equal(bal_log_set_callback(capture, (bal_log_level)(BAL_LOG_DEBUG + 1), NULL), BAL_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(strerror_names_every_code),
      cmocka_unit_test(err_name_is_the_identifier),
      cmocka_unit_test(version_matches_header),
      cmocka_unit_test(log_is_silent_by_default_and_filters_levels),
      cmocka_unit_test(log_rejects_bad_level),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
