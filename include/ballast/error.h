/**
 * @file ballast/error.h
 * @brief Error codes returned by every fallible Ballast function.
 *
 * Return convention (all modules): a fallible function returns `int`, either
 * #BAL_OK (0) or one of the negative `BAL_E*` codes below. Functions that
 * return a count or an index return it as a non-negative value and errors as
 * a negative code. On error, output parameters are left untouched and no
 * state is changed unless the function's documentation says otherwise.
 * Ballast never calls exit() or abort() on bad input and never prints
 * unless a log callback was installed (see ballast/log.h).
 */
#ifndef BALLAST_ERROR_H
#define BALLAST_ERROR_H

#include <ballast/defs.h>

BAL_BEGIN_DECLS

/**
 * Every Ballast status code, once: `X(NAME, VALUE, TEXT)` for each, in value
 * order. The enum below, bal_strerror() (TEXT), bal_err_name() ("BAL_" NAME)
 * and the Fortran binding's parameters (generated from this list when the
 * binding is built) all come from it, so a code is added here and nowhere
 * else. Codes are only ever appended; a value never changes meaning.
 * Users may expand it too (as libuv's UV_ERRNO_MAP), e.g. to build a table.
 */
#define BAL_STATUS_MAP(X)                                                                  \
  X(OK, 0, "success")                                                                      \
  /* NULL pointer, out-of-range value */                                                   \
  X(EINVAL, -1, "invalid argument")                                                        \
  /* memory allocation failed */                                                           \
  X(ENOMEM, -2, "out of memory")                                                           \
  /* input/output error (file cannot be opened or read) */                                 \
  X(EIO, -3, "input/output error")                                                         \
  /* malformed input data */                                                               \
  X(EFORMAT, -4, "malformed input")                                                        \
  /* operation not supported in this build or context */                                   \
  X(ENOTSUP, -5, "not supported")                                                          \
  /* an operating-system resource could not be obtained (threads, ...) */                  \
  X(ESYS, -6, "system resource unavailable")                                               \
  /* a value does not fit the representable range */                                       \
  X(ERANGE, -7, "value out of range")                                                      \
  /* an MPI call failed */                                                                 \
  X(EMPI, -8, "MPI error")                                                                 \
  /* the object is in use and the operation cannot proceed */                              \
  X(EBUSY, -9, "resource busy")                                                            \
  /* an application callback reported failure */                                           \
  X(ECALLBACK, -10, "application callback failed")                                         \
  /* the named object (registry, process, job) does not exist */                           \
  X(ENOTFOUND, -11, "not found")                                                           \
  /* the caller is not allowed to access the object */                                     \
  X(EPERM, -12, "permission denied")                                                       \
  /* a wait ran out of time (the operation itself was done) */                             \
  X(ETIMEDOUT, -13, "timed out")

/** Ballast status codes: BAL_OK and the BAL_E* codes of #BAL_STATUS_MAP. */
enum bal_status {
#define BAL__STATUS_ENUM(name, value, text) BAL_##name = (value),
  BAL_STATUS_MAP(BAL__STATUS_ENUM)
#undef BAL__STATUS_ENUM
};

/**
 * Name a status code.
 * @param code a `BAL_*` status code (any int is accepted).
 * @return a static, NUL-terminated English description; "unknown error"
 *         for values that are not Ballast codes. Never NULL.
 * Thread-safety: safe from any thread.
 */
BAL_API const char *bal_strerror(int code);

/**
 * Symbolic name of a status code, for logs and bindings (as libuv's
 * uv_err_name beside uv_strerror).
 * @param code a `BAL_*` status code (any int is accepted).
 * @return a static string equal to the code's identifier ("BAL_EINVAL");
 *         "BAL_EUNKNOWN" for values that are not Ballast codes. Never NULL.
 * Thread-safety: safe from any thread.
 */
BAL_API const char *bal_err_name(int code);

BAL_END_DECLS

#endif /* BALLAST_ERROR_H */
