/* Flags shared by the programs that run sched's policies on a machine
 * (`ballast slurm-sd`, `ballast slurm-replay`): the policy names from
 * bal_sched_policy_name() and SD-Policy's --max-slowdown value. */
#ifndef BALLAST_TOOLS_SCHED_FLAGS_H
#define BALLAST_TOOLS_SCHED_FLAGS_H

#include <ballast/sched.h>
#include <stdbool.h>
#include <stddef.h>

/* The registered policies joined by sep into buf (n bytes); returns buf. */
const char *sched_policy_list(char *buf, size_t n, const char *sep);

/* True if name is a registered policy. */
bool sched_policy_known(const char *name);

/* CLI_CUSTOM parser of --max-slowdown into a bal_sched_config: a number,
 * inf or dynamic. */
bool sched_parse_max_slowdown(const char *v, void *dest, char *err, size_t n);

#endif
