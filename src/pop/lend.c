/* Lending the CPUs of a rank that waits in a blocking MPI call
 * (BALLAST_LEND=1). This build cannot lend: the two calls only return, and
 * a request for lending is answered by one warning. */
#include <stdlib.h>

#include <ballast/error.h>

#include "core/log.h"
#include "pop_internal.h"

int bal__pop_lend_init(void) {
  const char *v = getenv("BALLAST_LEND");
  if (v == NULL || (v[0] == '0' && v[1] == '\0')) return BAL_OK;
  if (v[0] == '1' && v[1] == '\0') {
    bal__log(BAL_LOG_WARN, "pop", "BALLAST_LEND=1: lending CPUs is not available in this build");
    return BAL_OK;
  }
  bal__log(BAL_LOG_ERROR, "pop", "BALLAST_LEND='%s': expected 0 or 1", v);
  return BAL_EINVAL;
}

void bal__pop_blocking_enter(void) {}

void bal__pop_blocking_exit(void) {}
