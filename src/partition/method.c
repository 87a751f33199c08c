/* The registry of partition methods: a new method is one file defining a
 * bal__part_method plus one line here; bal_partition_method_name() lists
 * them for the tool, the tests and the benchmark. */
#include <string.h>

#include "partition_internal.h"

extern const bal__part_method bal__part_hilbert, bal__part_morton, bal__part_rcb,
    bal__part_tensor, bal__part_staggered;

static const bal__part_method *const methods[] = {&bal__part_hilbert, &bal__part_morton,
                                                  &bal__part_rcb, &bal__part_tensor,
                                                  &bal__part_staggered};
#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

const bal__part_method *bal__part_method_find(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NMETHODS; i++)
    if (strcmp(methods[i]->name, name) == 0) return methods[i];
  return NULL;
}

const char *bal_partition_method_name(int i) {
  return i >= 0 && i < NMETHODS ? methods[i]->name : NULL;
}
