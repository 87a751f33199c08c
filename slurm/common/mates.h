/* The guest–mate relation as `ballast slurm-sd` writes it into a job's
 * AdminComment ("sd:mates=ID,ID"), read by the SPANK plugin and by the
 * daemon itself after a restart: one parser, one limit, one strictness.
 * Also the plugin's registry name pattern. Pure functions, no SLURM
 * headers: unit-tested without a SLURM (tests/unit/test_slurm_mates.c). */
#ifndef BALLAST_SLURM_MATES_H
#define BALLAST_SLURM_MATES_H

#include <stddef.h>
#include <stdint.h>

#include <ballast/sched.h>

#pragma GCC visibility push(hidden) /* private to the plugin, not exported */

/** Most mates one guest may name: as many as the scheduler gives a guest
 *  (a longer relation is malformed). */
#define BAL_SLURM_MAX_MATES BAL_SCHED_MAX_MATES

/**
 * Find "sd:mates=ID,ID,..." in an admin comment (other text may surround
 * it, separated by spaces or ';'; the first occurrence counts) and parse
 * the job ids.
 * @param comment the AdminComment (NULL or "": no mates).
 * @param out     receives up to cap ids, in the order written.
 * @return the number of ids (0: no relation), or -1 when the relation is
 *         malformed (not a decimal id, empty item, more than cap ids).
 */
int bal__slurm_parse_mates(const char *comment, int64_t *out, int cap);

/**
 * Expand a registry name pattern: "%n" becomes the node name, "%%" a '%'.
 * @return 0; -1 when the result does not fit in size bytes or the pattern
 *         has another '%' sequence.
 */
int bal__slurm_registry_name(const char *pattern, const char *node, char *buf, size_t size);

#pragma GCC visibility pop

#endif
