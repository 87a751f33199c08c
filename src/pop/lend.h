/* Private: lending at blocking MPI calls (LeWI-style; docs/node.md,
 * "Lending"). The PMPI wrappers call bal__pop_blocking_enter() on entry to
 * every blocking MPI call and bal__pop_blocking_exit() on its return. With
 * BALLAST_LEND=1 the first lends this process's CPUs through the node
 * registry and the second reclaims them; otherwise both return at once. */
#ifndef BALLAST_POP_LEND_H
#define BALLAST_POP_LEND_H

#include <ballast/defs.h>

/* Read BALLAST_LEND (once per process; later calls return the first
 * result) and, when it is 1, attach to the node registry named by
 * BALLAST_NODE_REGISTRY, sharing the attachment of this process's `for`
 * pools. BAL_OK (also when lending is off); BAL_EINVAL (BALLAST_LEND is
 * neither unset, 0 nor 1: logged, lending stays off); an attach error
 * (logged, lending stays off). Thread-safe. The wrappers may skip it:
 * the first enter calls it. */
BAL_API int bal__pop_lend_init(void);

/* Lend (enter) and reclaim (exit). Nested or concurrent calls from
 * several threads lend once, at the first enter, and reclaim at the last
 * exit; a child forked after init lends nothing. Thread-safe;
 * async-signal-unsafe. */
BAL_API void bal__pop_blocking_enter(void);
BAL_API void bal__pop_blocking_exit(void);

#endif
