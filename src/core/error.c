#include <ballast/error.h>

const char *bal_strerror(int code) {
  switch (code) {
  case BAL_OK: return "success";
  case BAL_EINVAL: return "invalid argument";
  case BAL_ENOMEM: return "out of memory";
  case BAL_EIO: return "input/output error";
  case BAL_EFORMAT: return "malformed input";
  case BAL_ENOTSUP: return "not supported";
  case BAL_ESYS: return "system resource unavailable";
  case BAL_ERANGE: return "value out of range";
  case BAL_EMPI: return "MPI error";
  case BAL_EBUSY: return "resource busy";
  case BAL_ECALLBACK: return "application callback failed";
  case BAL_ENOTFOUND: return "not found";
  case BAL_EPERM: return "permission denied";
  case BAL_ETIMEDOUT: return "timed out";
  default: return "unknown error";
  }
}

const char *bal_err_name(int code) {
  switch (code) {
  case BAL_OK: return "BAL_OK";
  case BAL_EINVAL: return "BAL_EINVAL";
  case BAL_ENOMEM: return "BAL_ENOMEM";
  case BAL_EIO: return "BAL_EIO";
  case BAL_EFORMAT: return "BAL_EFORMAT";
  case BAL_ENOTSUP: return "BAL_ENOTSUP";
  case BAL_ESYS: return "BAL_ESYS";
  case BAL_ERANGE: return "BAL_ERANGE";
  case BAL_EMPI: return "BAL_EMPI";
  case BAL_EBUSY: return "BAL_EBUSY";
  case BAL_ECALLBACK: return "BAL_ECALLBACK";
  case BAL_ENOTFOUND: return "BAL_ENOTFOUND";
  case BAL_EPERM: return "BAL_EPERM";
  case BAL_ETIMEDOUT: return "BAL_ETIMEDOUT";
  default: return "BAL_EUNKNOWN";
  }
}
