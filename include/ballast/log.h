/**
 * @file ballast/log.h
 * @brief Diagnostics: Ballast is silent unless a log callback is installed.
 */
#ifndef BALLAST_LOG_H
#define BALLAST_LOG_H

#include <ballast/defs.h>

BAL_BEGIN_DECLS

/** Severity of a diagnostic message. */
typedef enum bal_log_level {
  BAL_LOG_ERROR = 0, /**< an operation failed; the return code says which */
  BAL_LOG_WARN = 1,  /**< something was adjusted or ignored */
  BAL_LOG_INFO = 2,  /**< coarse progress information */
  BAL_LOG_DEBUG = 3  /**< detailed tracing for developers */
} bal_log_level;

/**
 * Log callback: receives one formatted message (no trailing newline).
 * @param level  one of #bal_log_level
 * @param module the module that emitted it ("core", "for", ...)
 * @param msg    the message; valid only during the call
 * @param user   the pointer given to bal_log_set_callback()
 * The callback may be invoked concurrently from several threads.
 */
typedef void (*bal_log_fn)(bal_log_level level, const char *module, const char *msg, void *user);

/**
 * Install (or, with fn == NULL, remove) the process-wide log callback.
 * @param fn        callback, or NULL for silence (the default)
 * @param max_level messages with level > max_level are not formatted
 * @param user      passed through to the callback
 * @return BAL_OK, or BAL_EINVAL if max_level is not a #bal_log_level.
 * Thread-safety: safe; messages already being delivered may still reach the
 * previous callback.
 */
BAL_API int bal_log_set_callback(bal_log_fn fn, bal_log_level max_level, void *user);

/**
 * A ready-made callback that writes "ballast[module] LEVEL: msg" to stderr.
 * Convenience for tools and examples; the library never installs it itself.
 * Thread-safety: safe (one fprintf per message, so lines do not interleave).
 */
BAL_API void bal_log_stderr(bal_log_level level, const char *module, const char *msg, void *user);

BAL_END_DECLS

#endif /* BALLAST_LOG_H */
