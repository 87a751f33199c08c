/* core: status names, version, log callback plumbing, the load-balance
 * figure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ballast/ballast.h>

#include "core/balance.h"
#include "core/log.h"

/* The codes of 0.2, written out here on purpose (not expanded from
 * BAL_STATUS_MAP): their values, names and texts are part of the ABI and
 * must never change, whatever happens to the list. */
static const struct {
  int code, value;
  const char *name, *text;
} published[] = {
    {BAL_OK, 0, "BAL_OK", "success"},
    {BAL_EINVAL, -1, "BAL_EINVAL", "invalid argument"},
    {BAL_ENOMEM, -2, "BAL_ENOMEM", "out of memory"},
    {BAL_EIO, -3, "BAL_EIO", "input/output error"},
    {BAL_EFORMAT, -4, "BAL_EFORMAT", "malformed input"},
    {BAL_ENOTSUP, -5, "BAL_ENOTSUP", "not supported"},
    {BAL_ESYS, -6, "BAL_ESYS", "system resource unavailable"},
    {BAL_ERANGE, -7, "BAL_ERANGE", "value out of range"},
    {BAL_EMPI, -8, "BAL_EMPI", "MPI error"},
    {BAL_EBUSY, -9, "BAL_EBUSY", "resource busy"},
    {BAL_ECALLBACK, -10, "BAL_ECALLBACK", "application callback failed"},
    {BAL_ENOTFOUND, -11, "BAL_ENOTFOUND", "not found"},
    {BAL_EPERM, -12, "BAL_EPERM", "permission denied"},
    {BAL_ETIMEDOUT, -13, "BAL_ETIMEDOUT", "timed out"},
};

static void published_codes_keep_value_name_and_text(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
    assert_int_equal(published[i].code, published[i].value);
    assert_string_equal(bal_err_name(published[i].code), published[i].name);
    assert_string_equal(bal_strerror(published[i].code), published[i].text);
  }
}

/* Every code of the list, the ones added after 0.2 included: named by its
 * identifier (the preprocessor's spelling), a text of its own, and a value
 * no other code has; and C knows no code outside the list. */
static void every_listed_code_is_named_once(void **state) {
  (void)state;
#define LISTED(name, value, text) {BAL_##name, "BAL_" #name, text},
  static const struct {
    int code;
    const char *name, *text;
  } listed[] = {BAL_STATUS_MAP(LISTED)};
#undef LISTED
  size_t n = sizeof listed / sizeof listed[0];
  assert_true(n >= sizeof published / sizeof published[0]);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(bal_err_name(listed[i].code), listed[i].name);
    assert_string_equal(bal_strerror(listed[i].code), listed[i].text);
    assert_string_not_equal(listed[i].text, "unknown error");
    for (size_t j = 0; j < i; j++) {
      assert_int_not_equal(listed[i].code, listed[j].code);
      assert_string_not_equal(listed[i].text, listed[j].text);
    }
  }
  size_t known = 0;
  for (int code = -1000; code <= 1000; code++)
    if (strcmp(bal_err_name(code), "BAL_EUNKNOWN") != 0) known++;
  assert_int_equal(known, n);
  assert_string_equal(bal_strerror(12345), "unknown error");
  assert_string_equal(bal_strerror(-999), "unknown error");
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

/* avg/max: 1 when equal, 1/n when one does all, NaN when nothing;
 * bad input refused with the output untouched. */
static void load_balance_is_avg_over_max(void **state) {
  (void)state;
  double lb = -1, eq[3] = {2, 2, 2}, one[4] = {0, 0, 5, 0}, r[4] = {1, 2, 3, 4};
  assert_int_equal(bal__load_balance(eq, 3, &lb), BAL_OK);
  assert_true(lb == 1.0);
  assert_int_equal(bal__load_balance(one, 4, &lb), BAL_OK);
  assert_true(lb == 0.25);
  assert_int_equal(bal__load_balance(r, 4, &lb), BAL_OK);
  assert_true(fabs(lb - 0.625) < 1e-15);
  double zero[2] = {0, 0};
  assert_int_equal(bal__load_balance(zero, 2, &lb), BAL_OK);
  assert_true(isnan(lb));
  lb = 7;
  double neg[2] = {1, -1}, nan2[2] = {1, NAN}, inf2[2] = {1, INFINITY};
  assert_int_equal(bal__load_balance(neg, 2, &lb), BAL_EINVAL);
  assert_int_equal(bal__load_balance(nan2, 2, &lb), BAL_EINVAL);
  assert_int_equal(bal__load_balance(inf2, 2, &lb), BAL_EINVAL);
  assert_int_equal(bal__load_balance(r, 0, &lb), BAL_EINVAL);
  assert_int_equal(bal__load_balance(NULL, 2, &lb), BAL_EINVAL);
  assert_int_equal(bal__load_balance(r, 2, NULL), BAL_EINVAL);
  assert_true(lb == 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(published_codes_keep_value_name_and_text),
      cmocka_unit_test(every_listed_code_is_named_once),
      cmocka_unit_test(version_matches_header),
      cmocka_unit_test(log_is_silent_by_default_and_filters_levels),
      cmocka_unit_test(log_rejects_bad_level),
      cmocka_unit_test(load_balance_is_avg_over_max),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
