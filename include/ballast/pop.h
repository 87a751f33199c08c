/**
 * @file ballast/pop.h
 * @brief pop: the POP efficiency metrics of an MPI program, per code region.
 *
 * The POP methodology ([POP metrics], the metrics TALP of BSC's DLB reports
 * online [Lopez 2021]) splits a run's parallel efficiency into factors:
 *
 *   useful time (a rank)    = time outside MPI
 *   load balance       LB   = average useful / maximum useful   (over ranks)
 *   communication eff. CE   = maximum useful / elapsed
 *   parallel efficiency PE  = LB x CE = average useful / elapsed
 *   LB within nodes   LB_in  = max over nodes of the node's average useful
 *                               / maximum useful
 *   LB across nodes   LB_out = average useful
 *                               / max over nodes of the node's average useful
 *
 * so that LB = LB_in x LB_out, as TALP splits it. Elapsed is the longest
 * rank's time in the region.
 *
 * A process measures MPI time through bal_pop_mpi_enter()/bal_pop_mpi_exit(),
 * which the interposition library libballast_pop.so calls around every
 * blocking MPI call of an unmodified program, and
 * bal_pop_mpi_poll_enter()/bal_pop_mpi_exit() around its tests and probes
 * (docs/pop.md lists them); a program may also call them itself. Named regions (bal_pop_region_*)
 * split the run; the whole run from bal_pop_init() is the implicit region
 * BAL_POP_GLOBAL ("global"). bal_pop_report_create() gathers every rank's
 * times into a report, collectively.
 *
 * Only the thread that called bal_pop_init() is measured: MPI time spent by
 * other threads is not counted (their calls still pass through).
 *
 * Cost measured (docs/BENCHMARKS.md, "pop: interception overhead"): one
 * enter/exit pair, through libballast_pop.so, adds 78 ns (median of three
 * runs; 71-125 ns on a loaded 2-core VM) to an MPI call: two reads of the
 * invariant TSC (clock_gettime where there is none). Each run times MPI_
 * against PMPI_ in the same process: `mpiexec -n 1 -x
 * LD_PRELOAD=$PWD/build/src/pop/pmpi/libballast_pop.so
 * build/bench/bench_pop_overhead 1000000 11`.
 */
#ifndef BALLAST_POP_H
#define BALLAST_POP_H

#include <stdint.h>

#include <mpi.h>

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/for.h>

BAL_BEGIN_DECLS

/** Regions a process may register, the implicit one included. */
#define BAL_POP_MAX_REGIONS 64
/** Longest region name, in bytes (without the terminating NUL). */
#define BAL_POP_MAX_NAME 63
/** The id of the implicit region that spans the whole run ("global"). */
#define BAL_POP_GLOBAL 0

/**
 * Start measuring: starts BAL_POP_GLOBAL now; the calling thread becomes
 * the measured one. libballast_pop.so calls it right after MPI_Init; a
 * program that measures itself calls it after MPI_Init too. Calls after
 * the first do nothing, so a program that calls it also runs under the
 * interposition library. Reads BALLAST_LEND (docs/pop.md).
 * @return BAL_OK; BAL_EINVAL if BALLAST_LEND is set to something other
 *         than 0 or 1 (logged with the variable's name; measuring is on,
 *         lending off); with BALLAST_LEND=1, the error of attaching to the
 *         node registry (BALLAST_NODE_REGISTRY; e.g. BAL_ENOTFOUND), logged,
 *         measuring on and lending off (docs/node.md, "Lending").
 * Thread-safety: not thread-safe; call before the other calls.
 */
BAL_API int bal_pop_init(void);

/**
 * The calling thread enters a blocking MPI call (or the wait of a
 * non-blocking one). Nested calls count once: only the outermost pair
 * measures. Does nothing on threads other than bal_pop_init()'s, or
 * before bal_pop_init().
 * Thread-safety: safe (per-thread state); cheap: one clock read.
 */
BAL_API void bal_pop_mpi_enter(void);

/**
 * The calling thread enters an MPI call that returns at once, a test or a
 * probe (MPI_Test*, MPI_Iprobe, MPI_Improbe): its time is MPI time, as
 * with bal_pop_mpi_enter(), but the call never lends CPUs (BALLAST_LEND
 * lends at blocking calls only). Close it with bal_pop_mpi_exit(). Nested
 * calls count once, as bal_pop_mpi_enter()'s.
 * Thread-safety: as bal_pop_mpi_enter().
 */
BAL_API void bal_pop_mpi_poll_enter(void);

/**
 * The calling thread leaves the MPI call bal_pop_mpi_enter() or
 * bal_pop_mpi_poll_enter() announced: the time since is added to the MPI
 * time of every running region (and, after bal_pop_mpi_enter() with
 * BALLAST_LEND=1, the CPUs lent are reclaimed).
 * Thread-safety: as bal_pop_mpi_enter().
 */
BAL_API void bal_pop_mpi_exit(void);

/**
 * Register a named region, or find the one already registered under name.
 * @param name 1 to BAL_POP_MAX_NAME bytes, no control characters (tab,
 *             newline, ...); "global" names BAL_POP_GLOBAL.
 * @return the region's id (>= 0); BAL_EINVAL if name is NULL, empty, too
 *         long or holds a control character; BAL_ERANGE if BAL_POP_MAX_REGIONS are registered already;
 *         BAL_ENOTSUP before bal_pop_init().
 * Thread-safety: the measured thread only.
 */
BAL_API int bal_pop_region_register(const char *name);

/**
 * Start a region: its elapsed and MPI time run from now until
 * bal_pop_region_stop(). Regions nest (a region may start inside another,
 * and both count the time); a region may run many times, and its times add
 * up over the runs.
 * @return BAL_OK; BAL_EINVAL if id is not a registered region or is
 *         BAL_POP_GLOBAL (which bal_pop_init() starts); BAL_EBUSY if the
 *         region is running already; BAL_ENOTSUP before bal_pop_init().
 * Thread-safety: the measured thread only.
 */
BAL_API int bal_pop_region_start(int id);

/**
 * Stop a running region.
 * @return BAL_OK; BAL_EINVAL if id is not a registered region, is
 *         BAL_POP_GLOBAL, or is not running (stopped twice, never
 *         started); BAL_ENOTSUP before bal_pop_init().
 * Thread-safety: the measured thread only.
 */
BAL_API int bal_pop_region_stop(int id);

/** The POP figures of one region over the ranks (seconds; NaN when
 *  undefined: no useful time at all, or a zero elapsed time). */
typedef struct bal_pop_figures {
  int ranks;                       /**< ranks measured */
  int nodes;                       /**< distinct nodes among them */
  double elapsed_s;                /**< the longest rank's time in the region */
  double useful_avg_s;             /**< average useful time */
  double useful_max_s;             /**< maximum useful time */
  double load_balance;             /**< LB = useful_avg_s / useful_max_s */
  double load_balance_in;          /**< LB_in, within nodes */
  double load_balance_out;         /**< LB_out, across nodes */
  double communication_efficiency; /**< CE = useful_max_s / elapsed_s */
  double parallel_efficiency;      /**< PE = LB x CE */
} bal_pop_figures;

/**
 * The POP figures from per-rank times: the one implementation of the
 * formulas above, used by bal_pop_report_create() and by `ballast pop`.
 * @param ranks     number of ranks, >= 1.
 * @param elapsed_s each rank's elapsed time in the region, >= 0.
 * @param useful_s  each rank's useful time, in [0, elapsed_s[k]] (a value
 *                  above elapsed_s[k] by clock rounding is accepted).
 * @param node      each rank's node as a small integer (ranks with the
 *                  same value share a node), >= 0; NULL: all on one node.
 * @param out       receives the figures.
 * @return BAL_OK; BAL_EINVAL if a pointer (but node) is NULL, ranks < 1, or
 *         a time is negative or not finite, or a node negative.
 * Thread-safety: safe (pure function).
 */
BAL_API int bal_pop_figures_compute(int ranks, const double *elapsed_s, const double *useful_s,
                                    const int *node, bal_pop_figures *out);

/** One rank's times in one region. */
typedef struct bal_pop_rank_times {
  int node;         /**< the rank's node, numbered from 0 in order of first rank */
  double elapsed_s; /**< time in the region (sum over its runs) */
  double mpi_s;     /**< of which inside MPI */
  double useful_s;  /**< elapsed_s - mpi_s */
  int64_t calls;    /**< MPI calls measured in the region */
} bal_pop_rank_times;

/** The times of every region on every rank of a communicator. */
typedef struct bal_pop_report bal_pop_report;

/**
 * Gather every rank's region times into a report, on every rank of comm.
 * Collective over comm. Running regions (BAL_POP_GLOBAL included) count
 * up to now and keep running. Regions are matched by their order of
 * registration: every rank must have registered the same names in the
 * same order. Uses the PMPI_ entry points, so the report's own messages
 * are not measured.
 * @param comm the ranks to report on (MPI_COMM_WORLD for a whole run).
 * @param out  receives the report (release with bal_pop_report_destroy).
 * @return BAL_OK; BAL_ENOTSUP before bal_pop_init(); BAL_EINVAL if out is
 *         NULL or the ranks' regions differ (on every rank, the first
 *         differing region logged); BAL_ENOMEM; BAL_EMPI if a collective
 *         failed (ranks may then disagree: call MPI_Abort).
 * Thread-safety: the measured thread only; collective.
 */
BAL_API int bal_pop_report_create(MPI_Comm comm, bal_pop_report **out);

/** Release a report; NULL is ignored. Thread-safety: not on a report in use. */
BAL_API void bal_pop_report_destroy(bal_pop_report *rep);

/** @return the number of regions of the report (>= 1: "global" is 0), or
 *  BAL_EINVAL for NULL. Thread-safety: safe (read-only). */
BAL_API int bal_pop_report_regions(const bal_pop_report *rep);

/** @return the number of ranks of the report, or BAL_EINVAL for NULL.
 *  Thread-safety: safe (read-only). */
BAL_API int bal_pop_report_ranks(const bal_pop_report *rep);

/** @return the name of region `region`, NULL if rep is NULL or region is
 *  out of range. Thread-safety: safe (read-only). */
BAL_API const char *bal_pop_report_region_name(const bal_pop_report *rep, int region);

/**
 * The figures of one region (bal_pop_figures_compute() of its times).
 * @return BAL_OK; BAL_EINVAL if rep or out is NULL or region is out of
 *         range; BAL_ENOMEM.
 * Thread-safety: safe (read-only).
 */
BAL_API int bal_pop_report_figures(const bal_pop_report *rep, int region, bal_pop_figures *out);

/**
 * One rank's times in one region.
 * @return BAL_OK; BAL_EINVAL if rep or out is NULL or region or rank is out
 *         of range.
 * Thread-safety: safe (read-only).
 */
BAL_API int bal_pop_report_rank(const bal_pop_report *rep, int region, int rank,
                                bal_pop_rank_times *out);

/**
 * Thread-level load balance of a `for` pool: average / maximum busy time
 * of its workers in the pool's most recent parallel bal_for()
 * (bal_for_last_stats()), with the same formula as the ranks' LB.
 * @param pool the pool.
 * @param lb   receives the figure (NaN if no worker was busy).
 * @return BAL_OK; BAL_EINVAL if pool or lb is NULL; BAL_ENOTSUP if the pool
 *         has run no parallel loop yet; BAL_ENOMEM.
 * Thread-safety: as bal_for_last_stats(): not during a bal_for() on pool.
 */
BAL_API int bal_pop_pool_load_balance(const bal_pool *pool, double *lb);

BAL_END_DECLS

#endif /* BALLAST_POP_H */
