/**
 * @file ballast/sched.h
 * @brief `sched` module: job-level balancing. An event-driven simulator
 *        replays a workload trace (ballast/swf.h) on a cluster of identical
 *        nodes under a scheduling policy: `fcfs`, `easy` (EASY backfilling,
 *        [Mu'alem 2001]) or `sd` (SD-Policy: slowdown-driven malleable
 *        backfill with job mates, [D'Amico 2019] §3). See docs/sched.md.
 *
 * Conventions (documented in full in docs/sched.md): whole-node allocation,
 * a job asks for ceil(procs / cores per node) nodes; jobs run their real
 * runtime (no kill at the limit); predictions use the requested time, and a
 * running job past it is predicted to end now; the queue is FCFS by submit
 * time then job number; all events of one instant are applied (ends first,
 * then arrivals) before the policy schedules.
 *
 * Limits, each enforced by bal_sched_run() with BAL_EINVAL:
 *  - nodes and cores per node: 1 .. #BAL_SCHED_MAX_NODES (INT32_MAX);
 *  - jobs in the trace: at most #BAL_SCHED_MAX_JOBS (INT32_MAX - 1);
 *  - max_mates: 1 .. #BAL_SCHED_MAX_MATES (16);
 *  - policy settings: #BAL_SCHED_MAX_SETTINGS keys, each key and value
 *    shorter than #BAL_SCHED_SETTING_LEN bytes (bal_sched_config_set()).
 * Memory: the simulator's event heap holds at most 1 + 3 × max_mates events
 * per job (one per start, and per mate of a malleable start one when it
 * shrinks, one when it expands back and one for its guest when it ends
 * first); it grows as needed, and bal_sched_run() returns BAL_ENOMEM if it
 * cannot.
 */
#ifndef BALLAST_SCHED_H
#define BALLAST_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>
#include <ballast/swf.h>

BAL_BEGIN_DECLS

/** Most nodes, and most cores per node, of a simulated machine (jobs and
 * node counts are indexed with 32-bit integers inside the simulator). */
#define BAL_SCHED_MAX_NODES INT64_C(2147483647)

/** Most jobs in a trace given to bal_sched_run() (32-bit job indices). */
#define BAL_SCHED_MAX_JOBS INT64_C(2147483646)

/** Largest bal_sched_config::max_mates: the mate search is exhaustive over
 * the node counts present, so its cost grows quickly with this bound. */
#define BAL_SCHED_MAX_MATES 16

/** Most policy settings in one configuration (bal_sched_config_set()). */
#define BAL_SCHED_MAX_SETTINGS 8

/** Size of a setting's key and of its value, the terminating NUL included. */
#define BAL_SCHED_SETTING_LEN 32

/** How shrinking stretches a malleable job in the simulation
 * ([D'Amico 2019] §3.4). */
typedef enum bal_sched_runtime_model {
  BAL_SCHED_IDEAL = 0, /**< Eq. 5: progress rate = mean over nodes of used / needed cores */
  BAL_SCHED_WORST = 1  /**< Eq. 6: progress rate = the least-served node's used / needed */
} bal_sched_runtime_model;

/** How many cores a job uses per node when not shrunk (its speed when
 * shrunk to c cores is min(1, c / that)). */
typedef enum bal_sched_core_demand {
  BAL_SCHED_DEMAND_PROCS = 0, /**< min(cores per node, ceil(procs / nodes)): the log's processors */
  BAL_SCHED_DEMAND_NODE = 1   /**< every core of its nodes */
} bal_sched_core_demand;

/** Progress callback: events processed so far of about total; return nothing. */
typedef void (*bal_sched_progress_fn)(int64_t done, int64_t total, void *arg);

/** One policy setting, `"<policy>.<name>"` = value (see bal_sched_config_set()). */
typedef struct bal_sched_setting {
  char key[BAL_SCHED_SETTING_LEN];
  char value[BAL_SCHED_SETTING_LEN];
} bal_sched_setting;

/**
 * Simulation parameters; initialise with bal_sched_config_init().
 *
 * The malleability fields (max_mates .. seed) configure the machinery every
 * malleable policy shares (`sd` and its variants): mate selection, the
 * runtime models and the malleable draw. A setting that only one policy
 * reads is not a field: it is a string setting owned by that policy
 * (bal_sched_config_set()), so a new policy needs no change to this header.
 */
typedef struct bal_sched_config {
  const char *policy;      /**< a name from bal_sched_policy_name(): "fcfs", "easy" or "sd" */
  int64_t nodes;           /**< machine nodes, 1 .. #BAL_SCHED_MAX_NODES */
  int64_t cores_per_node;  /**< cores per node, 1 .. #BAL_SCHED_MAX_NODES */
  int64_t max_mates;       /**< sd: most mates per malleable start,
                                1 .. #BAL_SCHED_MAX_MATES (default 2) */
  double max_slowdown;     /**< sd: mates with predicted slowdown >= this are excluded
                                (> 0); INFINITY = no cut-off (default 10) */
  bool dynamic_max_slowdown; /**< sd: cut-off = mean predicted slowdown of running jobs */
  double sharing_factor;   /**< sd: fraction of a mate's cores lent to the guest, (0,1) (0.5);
                                a mate keeps at least one core per rank it has on the
                                node, as ballast/node.h's rule (see ranks_per_node) */
  int64_t ranks_per_node;  /**< sd: MPI ranks a job runs per node, which a log does not
                                record: the floor of the sharing rule. k >= 1: at most k
                                (hybrid MPI + threads; malleability comes from the
                                threads, as with DROM); 0: one rank per processor it
                                uses on the node (pure MPI: a job that fills its nodes
                                can lend nothing). Default 1, the model of
                                [D'Amico 2019]'s evaluation */
  bal_sched_runtime_model runtime_model; /**< sd: default #BAL_SCHED_IDEAL */
  bal_sched_core_demand core_demand;     /**< sd: default #BAL_SCHED_DEMAND_PROCS */
  double malleable_fraction; /**< sd: probability that a job is malleable, [0,1] (1) */
  uint64_t seed;           /**< sd: seed of the malleable draw (default 1) */
  bal_sched_progress_fn progress; /**< optional, called about every 1% of events */
  void *progress_arg;
  bool check_invariants;   /**< verify node accounting after every instant (slow; for
                                tests); violations are counted in the summary */
  bal_sched_setting settings[BAL_SCHED_MAX_SETTINGS]; /**< set with bal_sched_config_set() */
  int64_t nsettings;       /**< settings in use */
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
  int64_t mates;       /**< number of mates it started on (0 = static start) */
  int64_t times_mate;  /**< how many guests it hosted */
  bool malleable;      /**< the draw made it malleable */
  bool rejected;       /**< larger than the machine (never run) */
} bal_sched_job;

/**
 * Aggregate results over the jobs that ran. When no job ran (an empty
 * trace, or every job rejected) the figures that average over jobs are
 * undefined and NaN: makespan, avg_wait, avg_response, avg_slowdown,
 * avg_bounded_slowdown and utilization; the counts are 0.
 */
typedef struct bal_sched_summary {
  int64_t jobs;              /**< jobs simulated */
  int64_t rejected_too_large; /**< jobs larger than the machine (not simulated) */
  double makespan;           /**< last end − first submit (s) */
  double avg_wait;           /**< mean start − submit (s) */
  double avg_response;       /**< mean end − submit (s) */
  double avg_slowdown;       /**< mean response / max(runtime, 1 s) */
  double avg_bounded_slowdown; /**< mean max(1, response / max(runtime, 10 s)) */
  double utilization;        /**< Σ nodes × static runtime / (nodes × makespan); 0 when
                                  the makespan is 0 */
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
 * static cut-off, sharing_factor 0.5, ideal runtime model, core demand
 * procs, every job malleable, seed 1, one rank per node, no progress
 * callback, no settings.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL. Thread-safety: safe.
 */
BAL_API int bal_sched_config_init(bal_sched_config *cfg);

/**
 * Set (or replace) a policy setting: a setting that only one policy reads,
 * named `"<policy>.<name>"` (e.g. `"sd.mate_cost"`; docs/sched.md lists
 * them). The key is checked here only for its form; bal_sched_run() hands
 * the settings of the policy it runs to that policy, which rejects names and
 * values it does not know, and ignores the settings of other policies (so
 * one configuration serves a run and its baseline).
 * @param cfg   an initialised configuration.
 * @param key   `<policy>.<name>`, non-empty parts, shorter than
 *              #BAL_SCHED_SETTING_LEN bytes.
 * @param value shorter than #BAL_SCHED_SETTING_LEN bytes.
 * @return BAL_OK; BAL_EINVAL (NULL argument, malformed or too long key or
 *         value, or #BAL_SCHED_MAX_SETTINGS other keys already set); on
 *         error cfg is unchanged.
 * Thread-safety: safe on distinct configurations.
 */
BAL_API int bal_sched_config_set(bal_sched_config *cfg, const char *key, const char *value);

/**
 * Look up a policy setting.
 * @return its value (valid while cfg is unchanged), or NULL if cfg or key is
 *         NULL or the key is not set. Thread-safety: safe.
 */
BAL_API const char *bal_sched_config_get(const bal_sched_config *cfg, const char *key);

/**
 * Simulate trace under cfg. Jobs needing more nodes than the machine has
 * are rejected and counted, not simulated. An empty trace is valid: the
 * result has no jobs and NaN averages (see bal_sched_summary).
 * @param trace a loaded trace (not modified), at most #BAL_SCHED_MAX_JOBS jobs.
 * @param cfg   parameters, validated against the limits above.
 * @param out   receives the result (release with bal_sched_result_destroy()).
 * @return BAL_OK; BAL_EINVAL (NULL arguments, unknown policy, a parameter
 *         or the trace past a limit, a setting of the policy it runs that
 *         the policy rejects, a setting naming no policy); BAL_ENOMEM.
 * Thread-safety: safe; independent runs may proceed concurrently.
 */
BAL_API int bal_sched_run(const bal_swf_trace *trace, const bal_sched_config *cfg,
                          bal_sched_result **out);

/** @return the run's summary (valid until the result is destroyed), NULL if r is NULL.
 * Thread-safety: safe. */
BAL_API const bal_sched_summary *bal_sched_result_summary(const bal_sched_result *r);

/**
 * Per-job outcomes in trace order (valid until the result is destroyed).
 * @param r result; @param n receives the count (may be NULL).
 * @return the array, NULL if r is NULL. Thread-safety: safe.
 */
BAL_API const bal_sched_job *bal_sched_result_jobs(const bal_sched_result *r, int64_t *n);

/** Free a result. NULL is ignored. Thread-safety: safe on distinct results. */
BAL_API void bal_sched_result_destroy(bal_sched_result *r);

/**
 * Name the i-th available policy (0-based), for listings: tools, tests and
 * the fuzzer take their lists from here.
 * @return the name, or NULL when i is negative or past the last.
 * Thread-safety: safe.
 */
BAL_API const char *bal_sched_policy_name(int i);

BAL_END_DECLS

#endif /* BALLAST_SCHED_H */
