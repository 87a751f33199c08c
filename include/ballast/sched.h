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
 * The same policies run one instant at a time through a bal_sched_state
 * (the decision step below): machine state and queue in, decisions out,
 * for a live scheduler; bal_sched_run() is a loop over that step.
 *
 * Limits, each enforced by bal_sched_run() (and bal_sched_state_create())
 * with BAL_EINVAL:
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
#include <ballast/share.h>
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
  double sharing_factor;   /**< sd: fraction of a mate's cores lent to the guest, in
                                #BAL_SHARE_FACTOR_RANGE (#BAL_SHARE_FACTOR_DEFAULT); a
                                mate lends bal_share_lend() of its cores: it keeps at
                                least one core per rank it has on the node, as
                                ballast/node.h's rule (see ranks_per_node), so at 1 it
                                lends all but those */
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
 * Aggregate results over the jobs that ran (bal_sched_summarize() computes
 * them from job records). When no job ran (an empty
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
 * static cut-off, sharing_factor #BAL_SHARE_FACTOR_DEFAULT (0.5), ideal runtime model, core demand
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
 * Check one policy setting before a run, for a caller that wants to name
 * what is wrong: is `key` a setting of a registered policy, and `value`
 * one it takes? bal_sched_run() applies the same check to the settings of
 * the policy it runs.
 * @param key      `<policy>.<name>`, as for bal_sched_config_set().
 * @param value    the value to check.
 * @param accepted optional; receives, for a known key, the values it takes
 *                 as text ("nodes, sum"; static, never freed), else NULL.
 * @return BAL_OK; BAL_ENOTFOUND (no registered policy of that name, or a
 *         setting it does not have: bal_sched_setting_name() lists them);
 *         BAL_EINVAL (NULL key or value, malformed or too long key or
 *         value, or a value the setting does not take); BAL_ENOMEM.
 * Thread-safety: safe.
 */
BAL_API int bal_sched_setting_check(const char *key, const char *value, const char **accepted);

/**
 * Name the i-th setting (0-based) of a policy, without the "<policy>."
 * prefix ("mate_cost" for "sd"), for listings and messages.
 * @return the name, or NULL when the policy is unknown or has no i-th one.
 * Thread-safety: safe.
 */
BAL_API const char *bal_sched_setting_name(const char *policy, int i);

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
 * The summary of job outcomes: the figures bal_sched_run() reports, computed
 * from per-job records, so that outcomes from elsewhere (a live scheduler's
 * jobs, filled into bal_sched_job records) are measured by the same rules.
 * Jobs that ran are the records not `rejected`; in record order they give
 * jobs, makespan, avg_wait, avg_response, avg_slowdown,
 * avg_bounded_slowdown and utilization (from submit, start, end, runtime
 * and nodes; NaN when no job ran, as bal_sched_summary says),
 * malleable_jobs (jobs with mates > 0), mate_selections (the sum of their
 * mates) and mates (jobs with times_mate > 0); rejected_too_large counts
 * the rejected records. The simulator's own counts (events, max_queue,
 * invariant_violations) are set to 0. Records are read as given, not
 * checked: id, req_time, procs, reservation and malleable are not used.
 * @param jobs  n records (may be NULL when n is 0); not modified.
 * @param n     records, >= 0.
 * @param nodes the machine's nodes, 1 .. #BAL_SCHED_MAX_NODES (utilization's
 *              denominator).
 * @param out   receives the summary.
 * @return BAL_OK; BAL_EINVAL (out NULL, n negative, jobs NULL with n > 0,
 *         nodes out of range); on error out is untouched. It does not
 *         allocate. Thread-safety: safe.
 */
BAL_API int bal_sched_summarize(const bal_sched_job *jobs, int64_t n, int64_t nodes,
                                bal_sched_summary *out);

/* ------------------------------------------------------------------------
 * The policy as a decision step: machine state and queue in, decisions out.
 *
 * A bal_sched_state holds what a scheduler knows at one instant: the nodes
 * (numbered 0 .. nodes − 1; each is free, held by one job, or held by a
 * mate and shared with that mate's guest), the running jobs (start, time
 * limit, nodes, guest/mate relations, progress rate when shrunk, predicted
 * end) and the queue. The caller reports events in time order — a job
 * submitted, started, ended — and asks for decisions with
 * bal_sched_state_decide(), which runs the configured policy (the same code
 * bal_sched_run() runs: the simulator is a loop of these calls) and returns
 * the jobs to start now, statically on free nodes or as a guest of mates on
 * their nodes. A live scheduler (`ballast slurm-sd`) enforces them; the
 * simulator lets them run their logged runtime.
 *
 * Time limits (one rule, the simulator's predictions and the live limits
 * alike; [D'Amico 2019] §3.1 and Eq. 6, worst-case model):
 *  - a job started statically keeps its requested time as its limit;
 *  - a guest's limit is its requested time divided by its worst-served
 *    node's speed: req / f with f = min over its mates of
 *    min(1, lent / demand), lent = the cores that mate lends per node
 *    (bal_share_lend(): floor(sharing_factor × cores_per_node), less when
 *    the mate must keep a core per rank: ranks_per_node) and demand = the cores the guest uses
 *    per node. For a guest using every core of its nodes and
 *    sharing_factor × cores_per_node whole this is the paper's
 *    req / SharingFactor;
 *  - a mate shrunk to f_m = min(1, (cores_per_node − lent) / demand) of its
 *    speed for the guest's limit d gets its limit extended by
 *    d × (1 − f_m) (Eq. 6 over the shared time), once per guest.
 * The simulator predicts ends with exactly these limits (start + limit), so
 * a decision's time_limit and extensions are what its figures assume.
 * Limits are seconds as doubles, not rounded: a caller whose scheduler
 * counts whole minutes rounds up (the job may then run up to a minute
 * longer than the simulator assumed before it is killed; the simulator
 * kills nobody).
 * ---------------------------------------------------------------------- */

/** Incremental scheduler state (opaque). */
typedef struct bal_sched_state bal_sched_state;

/** A job entering the queue (bal_sched_state_submit()); initialise with
 * bal_sched_request_init(). */
typedef struct bal_sched_request {
  int64_t id;       /**< the caller's job id, >= 0, unique among the jobs in the state */
  double submit;    /**< submit time (s, the caller's clock), finite; orders the queue */
  int64_t procs;    /**< processors asked, >= 1 (its per-node core demand: see
                         bal_sched_core_demand) */
  int64_t nodes;    /**< nodes asked; 0 = ceil(procs / cores_per_node); otherwise
                         procs <= nodes × cores_per_node */
  double req_time;  /**< requested time limit (s), finite, >= 0 */
  bool malleable;   /**< may start as a guest and serve as a mate (sd) */
} bal_sched_request;

/** What bal_sched_state_decide() asks the caller to do. */
typedef enum bal_sched_decision_kind {
  BAL_SCHED_START_STATIC = 0, /**< start the job now on free nodes */
  BAL_SCHED_START_GUEST = 1   /**< start the job now as a guest on its mates' nodes */
} bal_sched_decision_kind;

/** One mate of a malleable start. */
typedef struct bal_sched_mate_decision {
  int64_t id;         /**< the running job that shrinks */
  int64_t cores_lent; /**< cores it gives the guest on each of its nodes (it keeps
                           cores_per_node − cores_lent) */
  double slowdown;    /**< its predicted slowdown once shrunk ([D'Amico 2019] Eq. 4:
                           (predicted end − submit) / max(req, 1 s)) */
  double extension;   /**< seconds to add to its time limit (rule above) */
} bal_sched_mate_decision;

/** One decision: start job `id` now. */
typedef struct bal_sched_decision {
  bal_sched_decision_kind kind;
  int64_t id;          /**< the job to start */
  double time_limit;   /**< its time limit from now (s): req_time, or stretched as a guest */
  const int64_t *nodes; /**< the nodes it runs on (static: free nodes taken; guest: its
                            mates' nodes, mate by mate), valid until the next call that
                            changes the state */
  int64_t nnodes;      /**< entries in nodes (= the job's node count) */
  int64_t nmates;      /**< guest: its mates (1 .. max_mates); static: 0 */
  bal_sched_mate_decision mates[BAL_SCHED_MAX_MATES];
} bal_sched_decision;

/** Where a job stands in a state. */
typedef enum bal_sched_job_status {
  BAL_SCHED_WAITING = 0, /**< in the queue */
  BAL_SCHED_RUNNING = 1  /**< started (statically or as a guest) */
} bal_sched_job_status;

/** A job as the state sees it (bal_sched_state_job()). */
typedef struct bal_sched_job_info {
  bal_sched_job_status status;
  double submit;       /**< as submitted */
  double start;        /**< start time; −1 while waiting */
  double time_limit;   /**< current limit from its start (s): requested, stretched as a
                            guest, plus every extension as a mate */
  double predicted_end; /**< the policy's prediction (s); −1 while waiting */
  double predicted_slowdown; /**< Eq. 4 from predicted_end; NaN while waiting */
  double rate;         /**< progress per second (1 = unshrunk) */
  int64_t nodes;       /**< its node count */
  int64_t guest;       /**< the guest it hosts, −1 if none */
  int64_t nmates;      /**< as a guest: mates still sharing their nodes with it */
  int64_t mates[BAL_SCHED_MAX_MATES]; /**< their ids */
  int64_t full_nodes;  /**< as a guest: nodes it holds alone (its mates there ended) */
  bool malleable;
} bal_sched_job_info;

/**
 * Defaults: id −1 (must be set), submit 0, procs 1, nodes 0 (from procs),
 * req_time 0, not malleable.
 * @return BAL_OK; BAL_EINVAL if rq is NULL. Thread-safety: safe.
 */
BAL_API int bal_sched_request_init(bal_sched_request *rq);

/**
 * Create an empty state: every node free, no job, clock at −infinity.
 * cfg is copied (its policy, machine and sd fields are used; seed,
 * malleable_fraction and progress are simulator-only and ignored: the
 * caller says which jobs are malleable). Node identities are tracked, so
 * memory is O(nodes + jobs in the state).
 * @param cfg as for bal_sched_run() (same limits and settings checks).
 * @param out receives the state (release with bal_sched_state_destroy()).
 * @return BAL_OK; BAL_EINVAL (NULL argument, unknown policy, a parameter
 *         past a limit, a setting its policy rejects); BAL_ENOMEM.
 * Thread-safety: safe; a state is used by one thread at a time.
 */
BAL_API int bal_sched_state_create(const bal_sched_config *cfg, bal_sched_state **out);

/** Free a state. NULL is ignored. Thread-safety: not concurrently with any
 * other call on the same state. */
BAL_API void bal_sched_state_destroy(bal_sched_state *st);

/**
 * Queue a job. The queue is ordered by submit time, then by the order of
 * these calls (a caller replaying a log submits in the log's order).
 * @return BAL_OK; BAL_EINVAL (NULL argument, id negative or already in the
 *         state, a field out of range); BAL_ERANGE (it asks for more nodes
 *         than the machine has: it is not queued); BAL_ENOMEM. On error the
 *         state is unchanged. Thread-safety: one thread per state.
 */
BAL_API int bal_sched_state_submit(bal_sched_state *st, const bal_sched_request *rq);

/**
 * Record that waiting job id started statically at time t on the given
 * nodes (all free), e.g. started by someone else, or replayed by a restarted
 * scheduler rebuilding its state. Decisions of bal_sched_state_decide()
 * are already applied: do not report them again.
 * @param t      >= the state's clock (the latest time given to any call); it
 *               becomes the clock.
 * @param nodes  node numbers in [0, nodes), distinct and free; as many as
 *               the job's node count.
 * @return BAL_OK; BAL_EINVAL (unknown or running job, bad time, wrong count,
 *         a node out of range, repeated or not free); BAL_ENOTFOUND (no job
 *         id). On error the state is unchanged. Thread-safety: one thread
 *         per state.
 */
BAL_API int bal_sched_state_start(bal_sched_state *st, int64_t id, double t, const int64_t *nodes,
                                  int64_t nnodes);

/**
 * Record that waiting malleable job id started at time t as a guest of the
 * given running malleable mates (each hosting no guest and able to lend a
 * core: see ranks_per_node), whose node counts add up to the job's; the
 * mates shrink and are extended as bal_sched_state_decide() would do.
 * @return BAL_OK; BAL_EINVAL (job not waiting or not malleable, bad time,
 *         nmates outside 1 .. max_mates, a mate not running, not malleable,
 *         already hosting, repeated, or node counts that do not add up);
 *         BAL_ENOTFOUND (no such job or mate). On error the state is
 *         unchanged. Thread-safety: one thread per state.
 */
BAL_API int bal_sched_state_start_guest(bal_sched_state *st, int64_t id, double t,
                                        const int64_t *mates, int64_t nmates);

/**
 * Record that job id is gone at time t: a running job ended (its nodes are
 * freed; a mate's nodes pass to its guest, which expands there; a guest's
 * mates expand back), a waiting one left the queue (cancelled). Either way
 * the id is forgotten and may be submitted again. To undo a decision that
 * could not be enforced, end the job and submit it again.
 * @return BAL_OK; BAL_EINVAL (NULL state, bad time); BAL_ENOTFOUND (no such
 *         job). Thread-safety: one thread per state.
 */
BAL_API int bal_sched_state_end(bal_sched_state *st, int64_t id, double t);

/**
 * Run the policy at time t (the clock advances to t) and apply its
 * decisions to the state: the jobs it starts are running from t on.
 * @param out receives the decisions in the order taken (NULL when there
 *            are none), valid until the next call that changes the state.
 * @param n   receives their count.
 * @return BAL_OK; BAL_EINVAL (NULL argument, t not finite or before the
 *         clock); BAL_ENOMEM (state unchanged). Thread-safety: one thread
 *         per state.
 */
BAL_API int bal_sched_state_decide(bal_sched_state *st, double t, const bal_sched_decision **out,
                                   int64_t *n);

/**
 * Look up job id (waiting or running).
 * @return BAL_OK; BAL_EINVAL (NULL argument); BAL_ENOTFOUND (not in the
 *         state). Thread-safety: safe while no call changes the state.
 */
BAL_API int bal_sched_state_job(const bal_sched_state *st, int64_t id, bal_sched_job_info *out);

/**
 * The nodes job id runs on (a guest: its mates' nodes and those it
 * inherited), valid until the next call that changes the state.
 * @param n receives the count (0 for a waiting job).
 * @return BAL_OK; BAL_EINVAL (NULL argument); BAL_ENOTFOUND.
 * Thread-safety: safe while no call changes the state.
 */
BAL_API int bal_sched_state_job_nodes(const bal_sched_state *st, int64_t id, const int64_t **nodes,
                                      int64_t *n);

/** Free nodes of the state now, or BAL_EINVAL (as a negative count) if st
 * is NULL. Thread-safety: safe while no call changes the state. */
BAL_API int64_t bal_sched_state_free_nodes(const bal_sched_state *st);

/**
 * Name the i-th available policy (0-based), for listings: tools, tests and
 * the fuzzer take their lists from here.
 * @return the name, or NULL when i is negative or past the last.
 * Thread-safety: safe.
 */
BAL_API const char *bal_sched_policy_name(int i);

/**
 * Does the named policy share nodes: start jobs malleably next to running
 * mates, as `sd` does? The fields marked "sd:" in bal_sched_config matter
 * only to such a policy, so a tool reports them by this property rather
 * than by the policy's name.
 * @param name a policy name (bal_sched_policy_name()).
 * @return true for a sharing policy; false for another, an unknown name or
 *         NULL.
 * Thread-safety: safe.
 */
BAL_API bool bal_sched_policy_shares(const char *name);

BAL_END_DECLS

#endif /* BALLAST_SCHED_H */
