/* Private: how library code emits diagnostics (see ballast/log.h). */
#ifndef BALLAST_CORE_LOG_H
#define BALLAST_CORE_LOG_H

#include <ballast/log.h>

/* Format and deliver a message to the installed callback, if any and if
 * level passes its threshold. Cheap (one atomic load) when silent. */
void bal__log(bal_log_level level, const char *module, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
