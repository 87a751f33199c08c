#include "core/log.h"

#include <ballast/error.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

/* The callback, its threshold and user pointer change together, so they are
 * read and written under a rwlock. The atomic threshold lets the common,
 * silent case return after a single relaxed load. */
static pthread_rwlock_t sink_lock = PTHREAD_RWLOCK_INITIALIZER;
static bal_log_fn sink_fn;
static void *sink_user;
static atomic_int sink_max_level = -1; /* -1: no callback */

int bal_log_set_callback(bal_log_fn fn, bal_log_level max_level, void *user) {
  if ((int)max_level < BAL_LOG_ERROR || (int)max_level > BAL_LOG_DEBUG) return BAL_EINVAL;
  pthread_rwlock_wrlock(&sink_lock);
  sink_fn = fn;
  sink_user = user;
  atomic_store_explicit(&sink_max_level, fn ? (int)max_level : -1, memory_order_relaxed);
  pthread_rwlock_unlock(&sink_lock);
  return BAL_OK;
}

void bal__log(bal_log_level level, const char *module, const char *fmt, ...) {
  if ((int)level > atomic_load_explicit(&sink_max_level, memory_order_relaxed)) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  pthread_rwlock_rdlock(&sink_lock);
  if (sink_fn && (int)level <= atomic_load_explicit(&sink_max_level, memory_order_relaxed))
    sink_fn(level, module, msg, sink_user);
  pthread_rwlock_unlock(&sink_lock);
}

void bal_log_stderr(bal_log_level level, const char *module, const char *msg, void *user) {
  static const char *const names[] = {"error", "warning", "info", "debug"};
  (void)user;
  const char *name = ((int)level >= 0 && (int)level <= BAL_LOG_DEBUG) ? names[level] : "log";
  fprintf(stderr, "ballast[%s] %s: %s\n", module ? module : "?", name, msg);
}
