/* Status names and texts, both expanded from BAL_STATUS_MAP (ballast/error.h):
 * the one list of codes. */
#include <ballast/error.h>

const char *bal_strerror(int code) {
  switch (code) {
#define BAL__STATUS_TEXT(name, value, text) \
  case BAL_##name:                          \
    return text;
    BAL_STATUS_MAP(BAL__STATUS_TEXT)
#undef BAL__STATUS_TEXT
  default:
    return "unknown error";
  }
}

const char *bal_err_name(int code) {
  switch (code) {
#define BAL__STATUS_NAME(name, value, text) \
  case BAL_##name:                          \
    return "BAL_" #name;
    BAL_STATUS_MAP(BAL__STATUS_NAME)
#undef BAL__STATUS_NAME
  default:
    return "BAL_EUNKNOWN";
  }
}
