/**
 * @file ballast/sched.h
 * @brief `sched` module: job-level balancing. An event-driven simulator
 *        replays a workload trace (ballast/swf.h) on a cluster of identical
 *        nodes under a scheduling policy: `fcfs`, `easy` (EASY backfilling)
 *        or `sd` (SD-Policy: slowdown-driven malleable backfill with job
 *        mates, D'Amico et al., ICPP 2019). See docs/sched.md.
 *
 * Conventions (documented in full in docs/sched.md): whole-node allocation,
 * a job asks for ceil(procs / cores per node) nodes; jobs run their real
 * runtime (no kill at the limit); predictions use the requested time, and a
 * running job past it is predicted to end now; the queue is FCFS by submit
 * time then job number; all events of one instant are applied (ends first,
 * then arrivals) before the policy schedules.
 */
#ifndef BALLAST_SCHED_H
#define BALLAST_SCHED_H

#include <stdbool.h>

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/swf.h>

BAL_BEGIN_DECLS

/** How shrinking stretches a malleable job in the simulation (seed 003, §3.4). */
enum bal_sched_runtime_model {
  BAL_SCHED_IDEAL = 0, /**< Eq. 5: progress rate = mean over nodes of used / needed cores */
  BAL_SCHED_WORST = 1  /**< Eq. 6: progress rate = the least-served node's used / needed */
};

/** How many cores a job uses per node when not shrunk (its speed when
 * shrunk to c cores is min(1, c / that)). */
enum bal_sched_core_demand {
  BAL_SCHED_DEMAND_PROCS = 0, /**< min(cores per node, ceil(procs / nodes)): the log's processors */
  BAL_SCHED_DEMAND_NODE = 1   /**< every core of its nodes */
};

/** Progress callback: events processed so far of about total; return nothing. */
typedef void (*bal_sched_progress_fn)(int64_t done, int64_t total, void *arg);

/** Simulation parameters; initialise with bal_sched_config_init(). */
typedef struct bal_sched_config {
  const char *policy;      /**< "fcfs", "easy" or "sd" (see bal_sched_policy_name()) */
  int64_t nodes;           /**< machine nodes (> 0) */
  int64_t cores_per_node;  /**< cores per node (> 0) */
  int max_mates;           /**< sd: most mates per malleable start (>= 1; default 2) */
  double max_slowdown;     /**< sd: mates with predicted slowdown >= this are excluded;
                                INFINITY = no cut-off (default 10) */
  bool dynamic_max_slowdown; /**< sd: cut-off = mean predicted slowdown of running jobs */
  double sharing_factor;   /**< sd: fraction of a mate's cores lent to the guest, (0,1) (0.5) */
  int runtime_model;       /**< sd: #bal_sched_runtime_model (default ideal) */
  int core_demand;         /**< sd: #bal_sched_core_demand (default procs) */
  double malleable_fraction; /**< sd: probability that a job is malleable, [0,1] (1) */
  uint64_t seed;           /**< sd: seed of the malleable draw (default 1) */
  bal_sched_progress_fn progress; /**< optional, called about every 1% of events */
  void *progress_arg;
  bool check_invariants;   /**< verify node accounting after every instant (slow; for
                                tests); violations are counted in the summary */
} bal_sched_config;

/** Outcome of one job (times in seconds from the trace's origin). */
typedef struct bal_sched_job {
  int64_t id;          /**< job number */
  int64_t submit;      /**< submit time */
  int64_t runtime;     /**< static runtime from the log */
  int64_t req_time;    /**< requested time */
  int64_t procs;       /**< processors asked */
  int64_t nodes;       /**< nodes allocated (ceil(procs / cores per node)) */
  double start;        /**< start time (−1 if rejected) */
  double end;          /**< end time (−1 if rejected) */
  double reservation;  /**< first reservation made for it as blocked queue
                            head (easy/sd), −1 if none */
  int32_t malleable;   /**< 1 if the draw made it malleable */
  int32_t mates;       /**< number of mates it started on (0 = static start) */
  int32_t times_mate;  /**< how many guests it hosted */
  int32_t rejected;    /**< 1 if larger than the machine (never run) */
} bal_sched_job;

/** Aggregate results over the jobs that ran. */
typedef struct bal_sched_summary {
  int64_t jobs;              /**< jobs simulated */
  int64_t rejected_too_large; /**< jobs larger than the machine (not simulated) */
  double makespan;           /**< last end − first submit (s) */
  double avg_wait;           /**< mean start − submit (s) */
  double avg_response;       /**< mean end − submit (s) */
  double avg_slowdown;       /**< mean response / max(runtime, 1 s) */
  double avg_bounded_slowdown; /**< mean max(1, response / max(runtime, 10 s)) */
  double utilization;        /**< Σ nodes × static runtime / (nodes × makespan) */
  int64_t malleable_jobs;    /**< jobs started with malleability (as guests) */
  int64_t mates;             /**< distinct jobs that served as mates */
  int64_t mate_selections;   /**< mate assignments in total */
  int64_t events;            /**< events processed */
  int64_t max_queue;         /**< longest wait queue seen */
  int64_t invariant_violations; /**< with check_invariants: failed checks (0 expected) */
} bal_sched_summary;

/** Opaque simulation result. */
typedef struct bal_sched_result bal_sched_result;

/**
 * Defaults: policy "easy", machine unset (0), max_mates 2, max_slowdown 10,
 * static cut-off, sharing_factor 0.5, ideal runtime model, every job
 * malleable, seed 1, no progress callback.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_sched_config_init(bal_sched_config *cfg);

/**
 * Simulate trace under cfg. Jobs needing more nodes than the machine has
 * are rejected and counted, not simulated.
 * @param trace a loaded trace (not modified).
 * @param cfg   parameters (validated).
 * @param out   receives the result (release with bal_sched_result_destroy()).
 * @return BAL_OK; BAL_EINVAL (NULL arguments, unknown policy, parameter out
 *         of range); BAL_ENOMEM.
 * Thread-safety: safe; independent runs may proceed concurrently.
 */
BAL_API int bal_sched_run(const bal_swf_trace *trace, const bal_sched_config *cfg,
                          bal_sched_result **out);

/** @return the run's summary (valid until the result is destroyed), NULL if r is NULL. */
BAL_API const bal_sched_summary *bal_sched_result_summary(const bal_sched_result *r);

/**
 * Per-job outcomes in trace order (valid until the result is destroyed).
 * @param r result; @param n receives the count (may be NULL).
 * @return the array, NULL if r is NULL.
 */
BAL_API const bal_sched_job *bal_sched_result_jobs(const bal_sched_result *r, size_t *n);

/** Free a result. NULL is ignored. */
BAL_API void bal_sched_result_destroy(bal_sched_result *r);

/**
 * Name the i-th available policy (0-based), for listings.
 * @return the name, or NULL when i is past the last. Thread-safety: safe.
 */
BAL_API const char *bal_sched_policy_name(int i);

BAL_END_DECLS

#endif /* BALLAST_SCHED_H */
