/* Memory of a running process group, as the machine pays for it: the sum
 * of the proportional set sizes (PSS, /proc/PID/smaps_rollup) of its
 * processes. The resident set size would overstate SMPI by far: it maps one
 * shared buffer once per simulated rank, and RSS counts every mapping. */
#ifndef SIMDLB_MEMWATCH_H
#define SIMDLB_MEMWATCH_H

#include <sys/types.h>

/* PSS of the processes of process group pgrp, in MiB; 0 if none is found. */
double memwatch_group_pss_mb(pid_t pgrp);

#endif
