/**
 * @file ballast/share.h
 * @brief SD-Policy's sharing rule, stated once: how many CPUs a running
 *        job (a "mate") lends to a guest started next to it, and which
 *        sharing factors are valid.
 *
 * The simulator (ballast/sched.h), the node registry (ballast/node.h), the
 * SPANK plugin and `ballast slurm-sd` all call these, so a value one of them
 * accepts the others accept too, and they compute the same share
 * [D'Amico et al., SD-Policy, docs/REFERENCES.md].
 *
 * The rule: a mate holding C CPUs of a node, running R ranks there, lends
 * min(floor(SF × C), C − R) of them; it always keeps one CPU per rank.
 */
#ifndef BALLAST_SHARE_H
#define BALLAST_SHARE_H

#include <stdbool.h>

#include <ballast/defs.h>

BAL_BEGIN_DECLS

/** The default sharing factor (the paper's SharingFactor of 0.5). */
#define BAL_SHARE_FACTOR_DEFAULT 0.5

/** The valid range of a sharing factor, for messages: "(0, 1]". */
#define BAL_SHARE_FACTOR_RANGE "(0, 1]"

/** The range's bounds, as BAL_SHARE_FACTOR_RANGE writes them: the lower
 *  one excluded (a mate that lends nothing is no mate), the upper one
 *  included (the rule's per-rank floor still keeps a CPU per rank). For
 *  command-line parsers that take a numeric range. */
#define BAL_SHARE_FACTOR_MIN 0.0
#define BAL_SHARE_FACTOR_MAX 1.0

/**
 * Is `sf` a valid sharing factor: a number in (0, 1]? SF = 1 lends all a
 * mate holds but one CPU per rank.
 * @param sf the sharing factor (NaN and infinities are invalid).
 * @return true when valid.
 * Thread-safety: safe from any thread.
 */
BAL_API bool bal_share_factor_valid(double sf);

/**
 * CPUs a mate lends under the sharing rule: min(floor(sf × cpus), cpus −
 * ranks), and 0 when that is negative.
 * @param sf a valid sharing factor (bal_share_factor_valid()).
 * @param cpus CPUs the mate holds on the node (C), >= 0.
 * @param ranks ranks the mate runs there (R), >= 0; each keeps a CPU.
 * @return the number of CPUs lent, in [0, cpus]; BAL_EINVAL (negative) when
 *         sf is invalid or cpus or ranks is negative.
 * Thread-safety: safe from any thread.
 */
BAL_API int64_t bal_share_lend(double sf, int64_t cpus, int64_t ranks);

BAL_END_DECLS

#endif /* BALLAST_SHARE_H */
