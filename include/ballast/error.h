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

/** Ballast status codes. New codes are only ever appended. */
enum bal_status {
  BAL_OK = 0,        /**< success */
  BAL_EINVAL = -1,   /**< invalid argument (NULL pointer, out-of-range value) */
  BAL_ENOMEM = -2,   /**< memory allocation failed */
  BAL_EIO = -3,      /**< input/output error (file cannot be opened or read) */
  BAL_EFORMAT = -4,  /**< malformed input data */
  BAL_ENOTSUP = -5,  /**< operation not supported in this build or context */
  BAL_ESYS = -6,     /**< an operating-system resource could not be obtained (threads, ...) */
  BAL_ERANGE = -7,   /**< a value does not fit the representable range */
  BAL_EMPI = -8,     /**< an MPI call failed */
  BAL_EBUSY = -9,    /**< the object is in use and the operation cannot proceed */
  BAL_ECALLBACK = -10, /**< an application callback reported failure */
  BAL_ENOTFOUND = -11, /**< the named object (registry, process, job) does not exist */
  BAL_EPERM = -12,     /**< the caller is not allowed to access the object */
  BAL_ETIMEDOUT = -13  /**< a wait ran out of time (the operation itself was done) */
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
