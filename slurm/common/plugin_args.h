/* The SPANK plugin's arguments, as plugstack.conf gives them, read by the
 * plugin (slurm_spank_init) and by `ballast slurm-sd`, which takes the
 * sharing factor from the plugin's own line so the two cannot disagree.
 * Pure functions, no SLURM headers: unit-tested without a SLURM
 * (tests/unit/test_slurm_plugin_args.c). */
#ifndef BALLAST_SLURM_PLUGIN_ARGS_H
#define BALLAST_SLURM_PLUGIN_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include <ballast/node.h>

#pragma GCC visibility push(hidden) /* private to the plugin and the tools */

/** The plugin's file name, as plugstack.conf loads it (any directory). */
#define BAL_SLURM_PLUGIN_FILE "ballast_spank.so"

/* registry=PATTERN cpus=N|real sharing_factor=F group=NAME */
typedef struct bal__slurm_plugin_args {
  char registry[BAL_NODE_NAME_MAX]; /* node registry name pattern, %n the node */
  int64_t cpus;                     /* virtual CPUs of a new registry; 0: the machine's */
  double sharing_factor;            /* of a new registry (bal_share_factor_valid) */
  char group[64];                   /* group of a new registry; "": the creator's only */
} bal__slurm_plugin_args;

/** The defaults: "/ballast-%n", real CPUs, BAL_SHARE_FACTOR_DEFAULT, no group. */
void bal__slurm_plugin_args_init(bal__slurm_plugin_args *a);

/**
 * Parse the arguments of the plugin's plugstack.conf line into a (fields
 * not named keep their value).
 * @return -1 and *bad the index of the first malformed argument (unknown
 *         key, empty or too long value, cpus outside 1 .. BAL_NODE_MAX_CPUS,
 *         a sharing factor bal_share_factor_valid() refuses); else 0.
 */
int bal__slurm_plugin_args_parse(bal__slurm_plugin_args *a, int ac, char *const *av, int *bad);

/**
 * Find the plugin's line in a plugstack.conf (following `include GLOB`
 * lines, as SLURM does) and parse its arguments into a.
 * @param path the plugstack.conf (slurm.conf's PlugStackConfig).
 * @return 1 when found and valid; 0 when no line loads the plugin (a is
 *         left at what it was); -1 when the file cannot be read, a line is
 *         malformed or an argument is refused, with err (n bytes) naming
 *         the file, the line and the cause.
 */
int bal__slurm_plugstack_read(const char *path, bal__slurm_plugin_args *a, char *err, size_t n);

#pragma GCC visibility pop

#endif
