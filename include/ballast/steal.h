/**
 * @file ballast/steal.h
 * @brief `steal` module: distributed work stealing over MPI, constrained to
 *        the small-world overlay (ballast/overlay.h), with results routed
 *        back to each task's owner hop by hop and termination detection.
 *
 * Model: every rank of a communicator adds its own independent tasks (input
 * bytes of any size), then all ranks call bal_steal_run() collectively. Each
 * rank executes its own tasks first (work-first: it takes them from the back
 * of its queue); an idle rank (thief) asks a victim for work and receives
 * part of the victim's remaining tasks, taken from the front. Under the
 * default policy victims are the thief's overlay neighbours only, so the
 * number of peers a rank ever talks to stays within the overlay degree.
 * A task's result travels back to the task's owner through the overlay
 * (bal_overlay_next_hop()), buffered per next hop so that results heading
 * the same way share messages. A running task may also spawn child tasks
 * (bal_steal_spawn()), stealable like the others, whose results come back
 * to the spawning rank through a callback (bal_steal_config::on_result).
 * The run ends when no task exists on any rank and every result has been
 * delivered, detected with Mattern's four-counter method [Mattern 1987]
 * (counts of task and result messages sent and received, summed by waves
 * over a tree of the ranks).
 *
 * Threading: with #BAL_STEAL_PROGRESS_THREAD the thread that calls
 * bal_steal_run() makes all MPI calls (it serves steal requests and routes
 * results while tasks run) and the task function runs on `workers` worker
 * threads that Ballast starts (bal_steal_config::workers, default 1); MPI
 * must be initialised with at least MPI_THREAD_FUNNELED when bal_steal_run()
 * is called from the main thread, MPI_THREAD_SERIALIZED otherwise. With
 * #BAL_STEAL_PROGRESS_POLL and one worker everything runs on the calling
 * thread (any thread level, SimGrid SMPI): messages are served between
 * tasks and whenever the task function calls bal_steal_poll(); with more
 * workers the calling thread still makes every MPI call, but the extra
 * worker threads need the thread level of THREAD mode. Worker threads never
 * call MPI. See docs/steal.md for the user guide.
 *
 * This header needs <mpi.h> (compile with mpicc or the MPI include flags).
 * It exists only when Ballast was built with MPI (BALLAST_HAVE_STEAL in
 * ballast/features.h).
 */
#ifndef BALLAST_STEAL_H
#define BALLAST_STEAL_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ballast/defs.h>
#include <ballast/error.h>

BAL_BEGIN_DECLS

#ifdef BALLAST_SMPI
/** SimGrid SMPI builds only (Ballast compiled with smpicc and BALLAST_SMPI
 *  defined, as `ballast simulate-dlb` does): the number of leading bytes of
 *  a task input that are stored and reach the task function intact. The
 *  rest of a longer input still crosses the simulated network, so transfer
 *  times are simulated, but is not stored (thousands of simulated ranks
 *  share one process) and reads as unspecified bytes. Defined before this
 *  header (e.g. -DBALLAST_SMPI_TASK_BYTES_KEPT=SIZE_MAX), it can keep more:
 *  `ballast simulate-uts` keeps every byte, since its tasks carry the tree's
 *  nodes. */
#ifndef BALLAST_SMPI_TASK_BYTES_KEPT
#define BALLAST_SMPI_TASK_BYTES_KEPT 4096
#endif
#endif

/** Opaque balancer bound to one communicator. */
typedef struct bal_steal bal_steal;

/* Victim policies are named by strings (bal_steal_config::policy) and
 * listed by bal_steal_policy_name(). The registered ones:
 *   "smallworld" (default) a uniformly drawn overlay neighbour: the number of
 *                peers a rank talks to stays within the overlay degree.
 *   "biased"     an overlay neighbour drawn with probability proportional to
 *                latency^-latency_bias (bal_overlay_victim_biased()), where a
 *                neighbour's latency is measured by the thief itself: the
 *                smoothed round-trip time of its steal requests to that
 *                neighbour (request sent to reply received, which includes
 *                the time the victim takes to answer). A neighbour not yet
 *                asked counts as the lowest latency measured so far (all
 *                neighbours are equal before the first reply), so every
 *                neighbour gets tried; measurements cost no extra message
 *                and persist from run to run on one balancer.
 *   "random"     any other rank, uniformly (all-pairs baseline).
 *   "none"       no stealing: each rank runs its own tasks (static).
 *   "sharing"    a baseline, not stealing: hierarchical work sharing as in
 *                YALES2 [Fontenaille 2018] §5.2. Ranks form groups of
 *                sharing_group_size with about equal estimated work
 *                (bal_steal_set_estimate()); in each group a master token
 *                goes round-robin and its holder pushes the part of its
 *                queue above the group's fair share to the members below
 *                it. Results go straight to their owners. */

/** Who makes MPI progress while a task runs. */
typedef enum bal_steal_progress {
  BAL_STEAL_PROGRESS_AUTO = 0,   /**< THREAD if the MPI thread level allows it, else POLL */
  BAL_STEAL_PROGRESS_THREAD = 1, /**< caller serves MPI, tasks run on a worker thread */
  BAL_STEAL_PROGRESS_POLL = 2    /**< one thread; tasks may call bal_steal_poll() */
} bal_steal_progress;

/** Events reported to bal_steal_config::trace. */
typedef enum bal_steal_event {
  BAL_STEAL_EV_WORK = 0,  /**< a task ran on this rank during [t0, t1]; peer = owner */
  BAL_STEAL_EV_STEAL = 1, /**< a steal request to peer was outstanding during [t0, t1] */
  BAL_STEAL_EV_ROUTE = 2, /**< a batch of results was sent to peer at t0 (= t1) */
  BAL_STEAL_EV_IDLE = 3   /**< no task to run during [t0, t1]; peer = -1 */
} bal_steal_event;

/**
 * Task function: compute the result of one task.
 * @param input   the task's input bytes (NULL when in_len is 0).
 * @param in_len  number of input bytes.
 * @param output  buffer of out_cap bytes for the result.
 * @param out_cap the `max_out` given to bal_steal_run().
 * @param out_len receives the number of result bytes (0 if left untouched).
 * @param arg     the `arg` given to bal_steal_run().
 * @return 0 on success; any other value marks the task failed and is
 *         reported to its owner as the task's status.
 * It runs on a Ballast worker thread in THREAD progress mode (and on any of
 * the `workers` threads of a rank, concurrently with itself when workers >
 * 1) and must not call MPI on the balancer's communicator. It may spawn
 * tasks (bal_steal_spawn()) but not wait for them. With workers > 1, the
 * bal_for() loops of concurrent tasks on one pool run one after the other
 * (ballast/for.h): split the work with bal_steal_spawn() instead.
 */
typedef int (*bal_steal_fn)(const void *input, size_t in_len, void *output, size_t out_cap,
                            size_t *out_len, void *arg);

/**
 * Result callback: receives the result of one task spawned on this rank
 * (bal_steal_spawn()), exactly once, during bal_steal_run() on the rank
 * that spawned it -- unless the result is empty (status 0 and no bytes),
 * which is not delivered at all.
 * @param result the result bytes (NULL when len is 0), valid only during
 *               the call: copy what you keep.
 * @param len    number of result bytes.
 * @param status 0, the task function's non-zero return value, or one of
 *               the statuses of bal_steal_result() (BAL_ERANGE, BAL_ENOMEM).
 * @param arg    the `arg` given to bal_steal_run().
 * It runs on the thread that called bal_steal_run() (the progress thread),
 * never inside a task nor inside bal_steal_poll(), so the callbacks of one
 * rank never run concurrently with each other; they may run concurrently
 * with the rank's task functions on worker threads. It must not call MPI
 * on the balancer's communicator nor any bal_steal_* function of the
 * balancer except bal_steal_stats_get() and bal_steal_queued().
 */
typedef void (*bal_steal_result_fn)(const void *result, size_t len, int status, void *arg);

/** Trace callback: see #bal_steal_event. Times are seconds since the start
 *  of the run on this rank. May be called from the worker threads and the
 *  progress thread concurrently. */
typedef void (*bal_steal_trace_fn)(void *arg, bal_steal_event ev, double t0, double t1, int peer);

/** Configuration; initialise with bal_steal_config_init(), then change fields. */
typedef struct bal_steal_config {
  const char *policy;            /**< victim policy, a name listed by
                                      bal_steal_policy_name(); default
                                      "smallworld". Resolved by
                                      bal_steal_create(), which keeps no
                                      pointer to the string. */
  bal_steal_progress progress;   /**< progress mode; default AUTO */
  int overlay_degree;            /**< average overlay degree >= 2; 0 (default) picks
                                      2 * ceil(log2 P) + 2 (the 2 floor(log2(P-1))
                                      shortcuts of TITUS_DLB [Fontenaille 2018]
                                      plus the two ring links, rounded up) */
  double overlay_exponent;       /**< shortcut exponent; <= 0 is 1.0 (default 0) */
  uint64_t overlay_seed;         /**< overlay seed, equal on all ranks (default 1) */
  uint64_t seed;                 /**< victim-choice seed (mixed with the rank; default 1) */
  double steal_fraction;         /**< share of the victim's queued tasks a theft takes,
                                      in (0, 1]; default 0.5 (at least one task
                                      when the victim has two or more) */
  size_t route_buffer_bytes;     /**< a next-hop result buffer is sent once it holds
                                      this many bytes; >= 1; default 65536 */
  double route_flush_s;          /**< ... or once its oldest result is this old (s);
                                      >= 0; default 0.002. Buffers are also sent
                                      whenever this rank has no task to run. */
  double poll_interval_s;        /**< how long an idle progress loop sleeps between
                                      polls (s); in [0, BAL_STEAL_MAX_POLL_INTERVAL_S];
                                      default 0.0001 */
  double backoff_max_s;          /**< failed thefts back off exponentially from
                                      poll_interval_s up to this (s); in
                                      [0, BAL_STEAL_MAX_BACKOFF_S]; default 0.002. In POLL mode an idle rank's
                                      sleep between polls grows the same way, and
                                      a sharing token that went round its group
                                      without moving work waits as long. */
  double latency_bias;           /**< "biased": exponent of the latency weight,
                                      finite and >= 0 (0 is uniform); default 1 */
  int sharing_group_size;        /**< "sharing": ranks per group, >= 0;
                                      0 (default) is 32 (all ranks if fewer) */
  bal_steal_trace_fn trace;      /**< optional event callback (default NULL) */
  void *trace_arg;               /**< passed to trace */
  int workers;                   /**< task-executing threads per rank, >= 1 and
                                      <= BAL_STEAL_MAX_WORKERS; default 1. They
                                      share the rank's queue (no MPI between
                                      them): each takes local work first, and the
                                      rank steals remotely once its queue is
                                      empty. THREAD mode starts `workers` threads;
                                      POLL mode runs tasks on the calling thread
                                      and starts workers - 1 more. workers > 1
                                      needs the thread level of THREAD mode
                                      (MPI_THREAD_FUNNELED from the main thread,
                                      else MPI_THREAD_SERIALIZED) in both modes. */
  bal_steal_result_fn on_result; /**< receives the results of tasks spawned on
                                      this rank (bal_steal_spawn()); NULL (default)
                                      discards them */
  int idle_wait;                 /**< 0 (default): a rank waiting for the reply to
                                      its steal request polls every
                                      poll_interval_s. 1: in POLL mode with one
                                      worker and a policy without timers (not
                                      "sharing"), it blocks in a receive from any
                                      rank until a message comes (the reply, or a
                                      request it answers at once). For simulators:
                                      under SimGrid SMPI each poll is an event,
                                      and thousands of waiting thieves cost more
                                      than the work they simulate. Messages longer
                                      than 4 KiB then travel after a header of
                                      their own (also where the setting has no
                                      other effect: THREAD progress, several
                                      workers, "sharing"). 0 or 1, equal on
                                      every rank: bal_steal_create() returns
                                      BAL_EINVAL on every rank otherwise. */
  int lifelines;                 /**< 0 (default): an idle thief asks again after
                                      each back-off for as long as the run lasts.
                                      n >= 1: after n steal replies in a row
                                      without a task it registers with its
                                      lifeline buddies (its overlay neighbours;
                                      without an overlay the ranks r + 2^k mod P)
                                      and sends no request until one of them
                                      pushes it tasks, which a rank does, from
                                      the front of its queue, as soon as it has
                                      some to spare [Saraswat 2011]. Cuts the
                                      empty requests of ranks that find no work
                                      (under SMPI each is a simulated event);
                                      with idle_wait a dormant thief blocks in
                                      a receive. Policies that do not steal
                                      ignore it. Ranks may differ: every rank
                                      answers registrations. */
} bal_steal_config;

/** Largest bal_steal_config::workers. */
#define BAL_STEAL_MAX_WORKERS 1024
/** Largest bal_steal_config::poll_interval_s (s). */
#define BAL_STEAL_MAX_POLL_INTERVAL_S 1.0
/** Largest bal_steal_config::backoff_max_s (s). */
#define BAL_STEAL_MAX_BACKOFF_S 60.0

/** Statistics of the last run on this rank (bal_steal_stats_get()). */
typedef struct bal_steal_stats {
  int64_t tasks_own;          /**< tasks this rank added for the run */
  int64_t executed_own;       /**< own tasks executed here */
  int64_t executed_stolen;    /**< other ranks' tasks executed here */
  int64_t tasks_given;        /**< tasks sent to thieves (counted once per hand-over) */
  int64_t steal_attempts;     /**< steal requests sent */
  int64_t thefts;             /**< requests answered with at least one task, plus
                                   batches of tasks pushed to this rank ("sharing",
                                   and lifelines: so with lifelines thefts may
                                   exceed steal_attempts) */
  int64_t results_routed;     /**< others' results sent or forwarded from here */
  int64_t route_messages;     /**< messages that carried them (results_routed /
                                   route_messages = results per message: coarsening) */
  int64_t failed;             /**< own tasks whose status is not 0 */
  int64_t messages_sent;      /**< messages of the stealing protocol sent: requests,
                                   replies, results, pushes, lifeline registrations
                                   and their acknowledgements, and the policy's own; not
                                   the termination waves, the barrier between runs or,
                                   under idle_wait, the header ahead of a message over
                                   4 KiB (the two count as one) */
  size_t bytes_sent;          /**< payload bytes of those messages, with the part of
                                   task inputs an SMPI build only simulates
                                   (BALLAST_SMPI_TASK_BYTES_KEPT) */
  int peers_contacted;        /**< distinct ranks this rank sent messages to */
  int overlay_degree;         /**< peers this rank may send steal requests or
                                   pushes to: its overlay neighbours ("smallworld",
                                   "biased"), P - 1 ("random"), its group's other
                                   members ("sharing"), 0 ("none") */
  int64_t spawned;            /**< tasks spawned by this rank's tasks (bal_steal_spawn()) */
  int64_t results_delivered;  /**< results of spawned tasks that came home here
                                   (passed to on_result, or dropped if it is NULL) */
  int64_t term_waves;         /**< termination-detection waves this rank took part in */
  double work_s;              /**< time spent in the task function (summed over workers) */
  double idle_s;              /**< time with no task to run before termination
                                   (summed over workers) */
  double run_s;               /**< wall time of bal_steal_run() on this rank */
} bal_steal_stats;

/**
 * Fill a configuration with the defaults documented in #bal_steal_config.
 * @return BAL_OK; BAL_EINVAL if cfg is NULL.
 * Thread-safety: safe.
 */
BAL_API int bal_steal_config_init(bal_steal_config *cfg);

/**
 * Create a balancer on a communicator. Collective over comm (it duplicates
 * comm), except that an invalid configuration is detected before any
 * communication (every rank should pass the same configuration).
 * @param comm a valid intra-communicator; MPI must be initialised.
 * @param cfg  configuration, or NULL for the defaults.
 * @param out  receives the handle; untouched on error.
 * The duplicate returns MPI errors to Ballast (MPI_ERRORS_RETURN), so an
 * MPI failure in a balancer's traffic is reported as BAL_EMPI instead of
 * aborting the job through the communicator's default handler.
 * @return BAL_OK; BAL_EINVAL if out is NULL, comm is MPI_COMM_NULL, MPI is
 *         not initialised, a field is out of range, policy is NULL or not
 *         a registered name (bal_steal_policy_name()), or THREAD progress or
 *         workers > 1 was asked for under a thread level below
 *         MPI_THREAD_FUNNELED (from the main thread; else
 *         MPI_THREAD_SERIALIZED);
 *         BAL_ENOMEM; BAL_EMPI if an MPI call failed.
 * Thread-safety: call from a thread allowed to make MPI calls.
 */
BAL_API int bal_steal_create(MPI_Comm comm, const bal_steal_config *cfg, bal_steal **out);

/**
 * Add one of this rank's tasks to the next run; the input is copied.
 * The first successful call after a run starts a new phase: the previous
 * run's results are released and ids start again from 0. On error nothing
 * changes (the previous run's results stay readable).
 * @param input bytes of the task's input (may be NULL when len is 0).
 * @param len   number of bytes; any size (one steal message carries at
 *              most INT_MAX bytes, so a single task must be smaller).
 * @param id    receives the task id (0, 1, 2, ... in order of addition); may be NULL.
 * @return BAL_OK; BAL_EINVAL if s is NULL, input is NULL with len > 0, or
 *         len >= INT_MAX - 64; BAL_EBUSY during bal_steal_run(); BAL_ENOMEM.
 * Thread-safety: not thread-safe on one handle.
 */
BAL_API int bal_steal_add_task(bal_steal *s, const void *input, size_t len, int64_t *id);

/**
 * Estimate of the work this rank's tasks of the next run represent, in any
 * unit common to all ranks (for instance seconds measured for the same
 * tasks in the previous iteration). Only the "sharing" policy uses it, to form
 * groups of about equal work; without an estimate a rank counts its tasks.
 * The estimate holds for the next bal_steal_run() only. Like
 * bal_steal_add_task(), a successful call after a run starts a new phase:
 * the previous run's results are released and its tasks forgotten.
 * @return BAL_OK; BAL_EINVAL if s is NULL or work is negative or not
 *         finite; BAL_EBUSY during bal_steal_run().
 * Thread-safety: not thread-safe on one handle.
 */
BAL_API int bal_steal_set_estimate(bal_steal *s, double work);

/**
 * Execute all tasks of all ranks, and every task they spawn, and gather
 * every result at its owner (spawned tasks' results through
 * bal_steal_config::on_result). Collective over the communicator; returns
 * when the whole run has terminated on every rank: no task left anywhere
 * and every result delivered.
 * @param fn      the task function.
 * @param max_out largest result a task may produce (bytes); a task that
 *                reports more gets status BAL_ERANGE and no result.
 * @param arg     passed to fn.
 * @return BAL_OK (task failures are per task: bal_steal_result(), or the
 *         status given to on_result);
 *         BAL_EINVAL if s or fn is NULL or max_out >= INT_MAX - 64
 *         (checked before any communication); BAL_EBUSY if called from
 *         inside a task; BAL_ENOMEM, BAL_ESYS (worker thread), BAL_EMPI.
 *         Argument errors are detected before any communication; a
 *         resource or MPI failure in the middle of a run leaves the other
 *         ranks waiting for this one, so the application should then
 *         call MPI_Abort (the balancer is still safe to destroy).
 * Thread-safety: one call at a time per handle, from an MPI-capable thread.
 */
BAL_API int bal_steal_run(bal_steal *s, bal_steal_fn fn, size_t max_out, void *arg);

/**
 * Spawn a task from inside a running task: the input is copied and the task
 * is added to the back of this rank's queue, stealable like any task. Its
 * result goes to bal_steal_config::on_result on this rank (the rank whose
 * task spawned it, wherever it runs), exactly once, or nowhere when it is
 * empty; spawned tasks have no id and bal_steal_result() does not see them.
 * The run ends only when no task exists on any rank and every result has
 * been delivered, so spawned tasks always run within the same
 * bal_steal_run(). A task cannot wait for its children: they may run only
 * after it returns (on this rank the last one spawned runs first), so
 * combine their results in on_result, or in tasks they spawn in turn.
 * @param s     the balancer whose task is running on the calling thread.
 * @param input bytes of the child's input (may be NULL when len is 0).
 * @param len   number of bytes, any size below INT_MAX - 64.
 * @return BAL_OK; BAL_EINVAL if s is NULL, the calling thread is not running
 *         a task of s, input is NULL with len > 0, or len >= INT_MAX - 64;
 *         BAL_ENOMEM (the child does not exist; the task may go on).
 * Thread-safety: only from a task function of s, on the thread running it;
 * tasks on several workers of one rank may spawn concurrently.
 */
BAL_API int bal_steal_spawn(bal_steal *s, const void *input, size_t len);

/**
 * Number of tasks waiting in this rank's queue (not running), as a hint for
 * a task that splits its work on demand: a task that finds fewer than two
 * waiting may spawn part of its work, which the rank's other workers or a
 * thief can then take (with steal_fraction below 1 a victim gives tasks
 * away when it holds two or more, or one spawned task while one of its
 * workers runs a task). The value may be stale by the time it is read.
 * @return the count (>= 0); BAL_EINVAL if s is NULL.
 * Thread-safety: safe, from any thread, during and outside a run.
 */
BAL_API int64_t bal_steal_queued(const bal_steal *s);

/**
 * Serve pending messages (steal requests, results to forward) from inside a
 * task function in POLL progress mode, so long tasks do not delay others.
 * Call it every few milliseconds of task time; it never runs a task.
 * @return BAL_OK; BAL_EINVAL if s is NULL; BAL_ENOTSUP if not in POLL mode
 *         inside a task running on the thread that called bal_steal_run()
 *         (the other workers' tasks get it too; it then does nothing);
 *         BAL_EMPI.
 * Thread-safety: only from the task function on the rank's thread.
 */
BAL_API int bal_steal_poll(bal_steal *s);

/**
 * Result of one of this rank's tasks after bal_steal_run().
 * @param id     task id from bal_steal_add_task().
 * @param data   receives a pointer to the result bytes (NULL if len is 0),
 *               valid until the next phase starts or destroy; may be NULL.
 * @param len    receives the result length; may be NULL.
 * @param status receives 0 if the task succeeded, the task function's
 *               non-zero return value if it failed, BAL_ERANGE if its
 *               output exceeded max_out, BAL_ENOMEM if the rank that ran
 *               it could not allocate the copy of its result (or, in SMPI
 *               builds, the buffer for its whole input; the task function
 *               then did not run); may be NULL. A task function that
 *               itself returns one of these codes cannot be told apart.
 * @return BAL_OK; BAL_EINVAL if s is NULL or id is not a task of the last
 *         run; BAL_EBUSY during a run.
 * Thread-safety: read-only; safe concurrently with other reads.
 */
BAL_API int bal_steal_result(const bal_steal *s, int64_t id, const void **data, size_t *len,
                             int *status);

/**
 * Statistics of the last run on this rank.
 * @return BAL_OK; BAL_EINVAL if s or out is NULL.
 * Thread-safety: read-only.
 */
BAL_API int bal_steal_stats_get(const bal_steal *s, bal_steal_stats *out);

/**
 * Names of the registered victim policies, for bal_steal_config::policy.
 * @param i index, from 0.
 * @return the i-th registered name, or NULL if i is negative or past
 *         the last one: loop until NULL to list them all. Today "none",
 *         "sharing", "random", "smallworld", "biased" (baselines first);
 *         later versions may add names anywhere in the list.
 * Thread-safety: safe (static strings).
 */
BAL_API const char *bal_steal_policy_name(int i);

/**
 * Free a balancer. It frees the balancer's duplicate of the communicator
 * (MPI_Comm_free), so call it on every rank of the communicator before
 * MPI_Finalize (after MPI_Finalize only the memory is released).
 * NULL is ignored. Thread-safety: from an MPI-capable thread, not during a run.
 */
BAL_API void bal_steal_destroy(bal_steal *s);

BAL_END_DECLS

#endif /* BALLAST_STEAL_H */
