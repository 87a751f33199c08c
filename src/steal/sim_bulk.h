/* Private: task inputs under SimGrid SMPI.
 *
 * SMPI runs every simulated rank inside one process, so thousands of ranks
 * with megabytes of task input each would not fit in memory. In an SMPI
 * build (BALLAST_SMPI defined, see docs/steal.md) only the first
 * BALLAST_SMPI_TASK_BYTES_KEPT bytes of a task input are stored and carried
 * in messages; the rest (the bulk) is represented by its length. It still
 * crosses the simulated network -- the transport sends it from a buffer
 * shared by all ranks (SMPI_SHARED_MALLOC), so transfer times and
 * contention are simulated -- but its content is not kept: the task
 * function sees the kept prefix followed by unspecified bytes. In any
 * other build every byte is stored and these helpers are identities. */
#ifndef BALLAST_STEAL_SIM_BULK_H
#define BALLAST_STEAL_SIM_BULK_H

#include <stddef.h>

#include <ballast/steal.h>

/* Bytes of a task input of logical length len that are stored and sent. */
static inline size_t bal__steal_stored_len(size_t len) {
#ifdef BALLAST_SMPI
  return len < (size_t)BALLAST_SMPI_TASK_BYTES_KEPT ? len : (size_t)BALLAST_SMPI_TASK_BYTES_KEPT;
#else
  return len;
#endif
}

#endif
