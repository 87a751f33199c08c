/**
 * @file ballast/rebalance_plan.h
 * @brief The building blocks of the `rebalance` module, without MPI:
 *        chains-on-chains cuts, proportional targets, string shifts, direct
 *        transfer plans, the rate filter, the move decision, period
 *        selection and the grain size of pipelined loops ([POP LB],
 *        [Siegell 1997]).
 *
 * These are the pieces the balancer of ballast/rebalance.h is made of, for
 * programs that plan their own redistribution (or only model it) and for
 * tests. This header needs no <mpi.h>, and the functions are in libballast
 * in every build, with or without MPI: compile with any C compiler. (With
 * an MPI build, the shared library itself still links libmpi: see
 * docs/rebalance.md.) ballast/rebalance.h includes this header.
 *
 * Every function here is pure (no global state, no I/O; its outputs depend
 * only on its arguments) and reentrant, so it is safe to call from any
 * thread at once, as long as threads do not share output buffers or a
 * filter state; bal_rebalance_time_min() also reads the clock and calls
 * the function it is given.
 */
#ifndef BALLAST_REBALANCE_PLAN_H
#define BALLAST_REBALANCE_PLAN_H

#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>

BAL_BEGIN_DECLS

/** How raw rates are filtered before decisions ([Siegell 1997] §6.1). */
typedef enum bal_rebalance_filter {
  BAL_REBALANCE_FILTER_ADAPTIVE = 0, /**< state machine: trusts slow-downs sooner (default) */
  BAL_REBALANCE_FILTER_FIXED = 1,    /**< constant history fraction (config filter_h) */
  BAL_REBALANCE_FILTER_NONE = 2      /**< raw rates */
} bal_rebalance_filter;

/** Why the last interaction did or did not move items. */
typedef enum bal_rebalance_verdict {
  BAL_REBALANCE_MOVE = 0,         /**< items were (or are to be) moved */
  BAL_REBALANCE_BALANCED = 1,     /**< reduction below the threshold */
  BAL_REBALANCE_UNPROFITABLE = 2, /**< predicted cost exceeds the weighted benefit */
  BAL_REBALANCE_NO_DATA = 3,      /**< no rank has a usable rate, or no items */
  BAL_REBALANCE_DISABLED = 4      /**< the balancer "none" would have moved */
} bal_rebalance_verdict;

/** States of the adaptive filter (the direction and length of the trend
 *  of raw rates relative to the filtered rate). */
typedef enum bal_rebalance_filter_fstate {
  BAL_REBALANCE_FS_STEADY = 0, /**< within the dead band */
  BAL_REBALANCE_FS_DOWN1 = 1,  /**< first drop */
  BAL_REBALANCE_FS_DOWN2 = 2,  /**< second drop in a row or more */
  BAL_REBALANCE_FS_UP1 = 3,    /**< first rise */
  BAL_REBALANCE_FS_UP2 = 4,    /**< second rise in a row */
  BAL_REBALANCE_FS_UP3 = 5     /**< third rise in a row or more */
} bal_rebalance_filter_fstate;

/** Short name of a filter ("adaptive", "fixed", "none"), or NULL for a
 *  value that is not a filter. Thread-safety: safe (pure, reentrant). */
BAL_API const char *bal_rebalance_filter_name(bal_rebalance_filter filter);
/** Parse a filter name as bal_rebalance_filter_name() prints it.
 *  @return BAL_OK; BAL_EINVAL if a pointer is NULL or the name unknown
 *  (*out untouched). Thread-safety: safe (pure, reentrant). */
BAL_API int bal_rebalance_filter_parse(const char *name, bal_rebalance_filter *out);

/* ------------------------------------------------------------------ */
/* Targets and plans                                                   */
/* ------------------------------------------------------------------ */

/**
 * Chains-on-chains partitioning: cut a chain of n items with costs w[j] into
 * p consecutive parts, part k for a processor of speed s[k], minimising the
 * bottleneck max_k (cost of part k) / s[k]. Optimal to within rounding
 * (bisection on the bottleneck down to adjacent doubles between a greedy
 * probe that fails and one that succeeds). Among the partitions with that
 * bottleneck it returns the one whose cuts are, one after the other, closest
 * to `ref` (e.g. the current cuts, so that a rebalance moves no more than
 * it must), or to the proportional cuts (part k's share of the total cost
 * equal to its share of the speed) when ref is NULL. A probe is O(p log n)
 * (binary search in prefix sums; O(p) when w is NULL); the whole call
 * O(n + p log n log(1/eps)), at most about 64 probes.
 * @param n     number of items (>= 0).
 * @param w     n costs (finite, >= 0), or NULL for unit costs.
 * @param p     number of parts (>= 1).
 * @param s     p speeds (finite, > 0), or NULL for equal speeds.
 * @param ref   p+1 nondecreasing reference cuts from 0 to n, or NULL.
 * @param cuts  receives p+1 indices: part k is items [cuts[k], cuts[k+1]),
 *              cuts[0] = 0, cuts[p] = n.
 * @param bottleneck receives the partition's bottleneck; may be NULL.
 * @return BAL_OK; BAL_EINVAL on a NULL cuts, n < 0, p < 1, a bad cost,
 *         speed or reference; BAL_ENOMEM.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_cuts(int64_t n, const double *w, int p, const double *s,
                               const int64_t *ref, int64_t *cuts, double *bottleneck);

/**
 * Integer item counts proportional to rates: the counts t[k] (sum = total)
 * that minimise max_k t[k] / rate[k] (the projected step time), and among
 * those the ones filled greedily from the proportional floors (ties to the
 * lower rank). O(p log p).
 * @param p      number of ranks (>= 1).
 * @param total  items to distribute (>= 0).
 * @param rate   p rates (finite, > 0), or NULL for equal rates.
 * @param t      receives p counts.
 * @return BAL_OK; BAL_EINVAL on bad arguments; BAL_ENOMEM.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_targets(int p, int64_t total, const double *rate, int64_t *t);

/**
 * The shifts between neighbours of [POP LB] from prefix sums: S[i] for i in
 * [0, p-1) is the number of items that must cross the boundary between
 * rank i and rank i+1 (> 0: from i to i+1, < 0: from i+1 to i) for the
 * counts n to become the targets t along a string:
 * S[i] = (n[0] + ... + n[i]) - (t[0] + ... + t[i]). O(p).
 * @param p      number of ranks (>= 1).
 * @param n, t   p current and target counts (>= 0, equal sums).
 * @param shifts receives p-1 values (may be NULL when p is 1).
 * @return BAL_OK; BAL_EINVAL on bad arguments or different sums;
 *         BAL_ERANGE if a prefix sum overflows.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_shifts(int p, const int64_t *n, const int64_t *t, int64_t *shifts);

/**
 * Limit shifts so that one neighbour step can perform them: every rank
 * sends only items it holds now (what it sends left plus right <= n[i]).
 * Shifts keep their sign and only shrink (a rank that would have to
 * forward items it has yet to receive sends a proportional share of what
 * it holds); the rest is left to the next rebalance. One O(p) pass.
 * @param p      number of ranks (>= 1).
 * @param n      p current counts (>= 0).
 * @param shifts p-1 shifts as bal_rebalance_shifts() gives them (updated;
 *               may be NULL when p is 1).
 * @return the number of shifts reduced (>= 0); BAL_EINVAL on bad arguments.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_shifts_limit(int p, const int64_t *n, int64_t *shifts);

/** One transfer of a direct plan: `count` items from rank `from` to rank `to`. */
typedef struct bal_rebalance_transfer {
  int from;
  int to;
  int64_t count;
} bal_rebalance_transfer;

/**
 * Direct plan: transfers from ranks above their target to
 * ranks below it, matched in rank order (senders and receivers each taken
 * in increasing rank), so each rank either only sends or only receives and
 * there are at most (senders + receivers - 1) <= p - 1 transfers. O(p).
 * @param p    number of ranks (>= 1).
 * @param n, t p current and target counts (>= 0, equal sums).
 * @param out  room for p-1 transfers (may be NULL when p is 1).
 * @return the number of transfers (>= 0); BAL_EINVAL on bad arguments or
 *         different sums.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_direct_plan(int p, const int64_t *n, const int64_t *t,
                                      bal_rebalance_transfer *out);

/* ------------------------------------------------------------------ */
/* Rates, decisions, period and grain                                  */
/* ------------------------------------------------------------------ */

/** Dead band of the adaptive filter: a raw rate within this relative
 *  distance of the filtered rate counts as steady. Equal to the default
 *  threshold: a change this small on one rank cannot by itself project a
 *  larger reduction of the step time. */
#define BAL_REBALANCE_FILTER_BAND 0.10

/** State of one rate filter; initialise with bal_rebalance_filter_init(). */
typedef struct bal_rebalance_filter_state {
  double rate;  /**< filtered rate (0 before the first sample) */
  double h;     /**< history fraction used by the last step */
  bal_rebalance_filter_fstate fstate; /**< the adaptive state machine's state */
  int64_t samples; /**< samples seen */
} bal_rebalance_filter_state;

/** Reset a filter. @return BAL_OK; BAL_EINVAL if st is NULL.
 *  Thread-safety: safe; one thread at a time per filter state. */
BAL_API int bal_rebalance_filter_init(bal_rebalance_filter_state *st);

/**
 * History fraction h of the adaptive filter in a state (the table of
 * docs/rebalance.md): STEADY 0.75, DOWN1 0.8, DOWN2 0, UP1 1 (ignored),
 * UP2 0.5, UP3 0.
 * @param state a #bal_rebalance_filter_fstate.
 * @param h     receives the history fraction, in [0, 1]; untouched on error.
 * @return BAL_OK; BAL_EINVAL for a value that is not a state or a NULL h.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_filter_h(bal_rebalance_filter_fstate state, double *h);

/**
 * Filter one raw rate: out = (1 - h) * raw + h * previous, with h from the
 * state machine (ADAPTIVE: the input is DOWN if raw < previous*(1-band),
 * UP if raw > previous*(1+band), else STEADY; DOWN moves STEADY/UP* to
 * DOWN1 and DOWN1/DOWN2 to DOWN2; UP moves to UP1, UP2, UP3 in a row;
 * STEADY to STEADY), h = fixed_h (FIXED) or 0 (NONE). The first sample is
 * taken as is.
 * @param st      filter state (updated).
 * @param kind    filter kind.
 * @param fixed_h h of the FIXED filter, in [0, 1).
 * @param raw     raw rate (finite, >= 0).
 * @param out     receives the filtered rate; may be NULL.
 * @return BAL_OK; BAL_EINVAL on bad arguments (st unchanged).
 * Thread-safety: safe; one thread at a time per filter state.
 */
BAL_API int bal_rebalance_filter_step(bal_rebalance_filter_state *st, bal_rebalance_filter kind,
                                      double fixed_h, double raw, double *out);

/**
 * Projected step time of a distribution: max_k n[k] / rate[k].
 * @return BAL_OK; BAL_EINVAL on bad arguments (p < 1, NULL, negative
 *         count, rate not finite and > 0).
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_step_time(int p, const int64_t *n, const double *rate, double *out);

/**
 * The move decision ([Siegell 1997] §6.2 threshold, §6.3 profitability).
 * The reduction fraction is r = (t_now - t_new) / t_now. Verdict BALANCED
 * if r <= threshold (or t_now <= 0); else UNPROFITABLE if profitability
 * is checked and cost_s > benefit_weight * r * horizon_s (the benefit
 * being the time saved over the expected stable time); else MOVE.
 * @param t_now, t_new projected step times before and after (>= 0).
 * @param threshold    in [0, 1).
 * @param cost_s       predicted movement cost (s, >= 0).
 * @param horizon_s    expected stable time (s, >= 0).
 * @param benefit_weight > 0; <= 0 disables the profitability check.
 * @param verdict      receives a #bal_rebalance_verdict.
 * @param reduction    receives r; may be NULL.
 * @return BAL_OK; BAL_EINVAL on bad arguments.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_decide(double t_now, double t_new, double threshold, double cost_s,
                                 double horizon_s, double benefit_weight,
                                 bal_rebalance_verdict *verdict, double *reduction);

/** Inputs of bal_rebalance_period() ([Siegell 1997] §5.2). */
typedef struct bal_rebalance_period_in {
  double interact_s;    /**< cost of one interaction (s) */
  double f_interact;    /**< fraction of time interactions may take, (0, 1] */
  double move_s;        /**< average cost of a move (s; 0 if none yet) */
  double workscale;     /**< periods a move's cost is spread over (>= 1) */
  double quantum_s;     /**< scheduler quantum (s) */
  double quantum_scale; /**< quanta per period */
  double iter_s;        /**< time of one iteration (s, > 0; the slowest rank's) */
  int64_t max_interval; /**< upper bound of the result (>= 1) */
} bal_rebalance_period_in;

/**
 * Target period = max(interact_s / f_interact, move_s / workscale,
 * quantum_s * quantum_scale), converted to iterations:
 * interval = clamp(ceil(period / iter_s), 1, max_interval).
 * @param in       inputs (times finite and >= 0).
 * @param period_s receives the target period (s); may be NULL.
 * @param interval receives the interval (iterations); may be NULL.
 * @return BAL_OK; BAL_EINVAL on bad arguments.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_period(const bal_rebalance_period_in *in, double *period_s,
                                 int64_t *interval);

/**
 * Grain size of a pipelined (DOACROSS) loop ([Siegell 1997] §4.2.4): an m
 * iteration loop, split into M blocks of b = ceil(m/M) iterations, runs on p
 * processors in M + p - 1 phases, with a boundary shift costing
 * t_fixed + t_incr * b between phases:
 *   t_total(M) = (M + p - 1) t_seq / (p M) + (M + p - 2)(t_fixed + t_incr m / M).
 * The minimum is at M* = sqrt((t_seq (1 - 1/p) + t_incr m (p - 2)) / t_fixed);
 * the result is the better of the integer block sizes around it, within
 * [1, m] (M = m when t_fixed is 0; M = 1 when p is 1).
 * @param t_seq   sequential time of the whole loop (s, > 0).
 * @param m       iterations of the pipelined loop (>= 1).
 * @param p       processors (>= 1).
 * @param t_fixed per-message cost (s, >= 0).
 * @param t_incr  per-element cost (s, >= 0).
 * @param blocks  receives M (= ceil(m / b)); may be NULL.
 * @param block_size receives b; may be NULL.
 * @param t_total receives the modelled time for that block size; may be NULL.
 * @return BAL_OK; BAL_EINVAL on bad arguments.
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_grain(double t_seq, int64_t m, int p, double t_fixed, double t_incr,
                                int64_t *blocks, int64_t *block_size, double *t_total);

/**
 * The grain model of bal_rebalance_grain() evaluated at a given block size
 * b, with the real number of blocks M = ceil(m / b), e.g. to draw the whole
 * curve beside measurements.
 * @param t_seq, m, p, t_fixed, t_incr as for bal_rebalance_grain().
 * @param block_size b, in [1, m].
 * @param blocks  receives M; may be NULL.
 * @param t_total receives the modelled time; may be NULL.
 * @return BAL_OK; BAL_EINVAL on bad arguments (nothing written).
 * Thread-safety: safe (pure, reentrant).
 */
BAL_API int bal_rebalance_grain_time(double t_seq, int64_t m, int p, double t_fixed,
                                     double t_incr, int64_t block_size, int64_t *blocks,
                                     double *t_total);

/**
 * Measure the minimum time of a piece of work: on a loaded processor the
 * smallest of several measurements approximates the dedicated time
 * ([Siegell 1997] §4.2.4 estimates t_seq so), e.g. of one block of the
 * pipelined loop.
 * @param fn   the work; called reps times.
 * @param arg  passed to fn.
 * @param reps repetitions (>= 1).
 * @param min_s receives the smallest wall time (s).
 * @return BAL_OK; BAL_EINVAL on bad arguments.
 * Thread-safety: safe (reads the monotonic clock; fn runs on the calling
 * thread, so it must be safe wherever it is called from).
 */
BAL_API int bal_rebalance_time_min(void (*fn)(void *arg), void *arg, int reps, double *min_s);

BAL_END_DECLS

#endif /* BALLAST_REBALANCE_PLAN_H */
