#include "steal_flags.h"

#include <stddef.h>

const char *const idle_wait_names[] = {"poll", "mpi", NULL};
