/* Flags shared by the programs that run sched's policies on a machine
 * (`ballast sched`, `ballast slurm-sd`, `ballast slurm-replay`): the policy names from
 * bal_sched_policy_name() and SD-Policy's --max-slowdown value. */
#ifndef BALLAST_TOOLS_SCHED_FLAGS_H
#define BALLAST_TOOLS_SCHED_FLAGS_H

#include <ballast/sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "share_flag.h"

/* The flags of SD-Policy's shared machinery, as `ballast sched` names
 * them, into the bal_sched_config *cfg (entries of a cli_flag table). */
#define SCHED_SD_FLAGS(cfg)                                                                   \
  CLI_INT("--max-mates", "M", &(cfg)->max_mates, 1, BAL_SCHED_MAX_MATES,                      \
          "sd: most running jobs shrunk for one start (2)"),                                  \
      CLI_CUSTOM("--max-slowdown", "X", (cfg), sched_parse_max_slowdown,                      \
                 "sd: mate cut-off: a number (10), inf or dynamic"),                          \
      SHARE_FACTOR_FLAG(&(cfg)->sharing_factor, "sd: fraction of a mate's cores lent"),         \
      CLI_INT("--ranks-per-node", "R", &(cfg)->ranks_per_node, 0, BAL_SCHED_MAX_NODES,        \
              "sd: MPI ranks a job runs per node; a mate keeps a core\n"                      \
              "per rank (1; 0: one per processor)")

/* The registered policies joined by sep into buf (n bytes); returns buf. */
const char *sched_policy_list(char *buf, size_t n, const char *sep);

/* The help of a --policy flag: the registered policies, then "(default: "
 * dflt ")", into buf (n bytes); returns buf. */
const char *sched_policy_help(char *buf, size_t n, const char *dflt);

/* CLI_CONTINUE if name is a registered policy; else the usage error of
 * program prog naming flag, the value and the registered policies. */
int sched_check_policy(const char *prog, const char *flag, const char *name);

/* CLI_CUSTOM parser of --max-slowdown into a bal_sched_config: a number,
 * inf or dynamic. */
bool sched_parse_max_slowdown(const char *v, void *dest, char *err, size_t n);

#endif
