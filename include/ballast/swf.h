/**
 * @file ballast/swf.h
 * @brief Reader for workload traces in the Standard Workload Format (SWF) of
 *        the Parallel Workloads Archive, plain (`.swf`) or gzip-compressed
 *        (`.swf.gz`). Part of the `sched` module (see ballast/sched.h and
 *        docs/sched.md).
 *
 * A trace line has 18 whitespace-separated numeric fields, `-1` meaning
 * unknown; lines starting with `;` are header comments, of which MaxNodes,
 * MaxProcs, UnixStartTime and Partition are interpreted (trailing text after
 * the value is ignored). The reader resolves the pitfalls of real logs:
 *  - requested processors −1: the allocated processors (field 5) are used;
 *    both −1: the job is dropped and counted (`dropped_no_procs`);
 *  - runtime < 0: dropped and counted (`dropped_no_runtime`);
 *  - requested time −1 (or missing): the runtime is used and the job is
 *    flagged (bal_swf_job::req_time_from_runtime);
 *  - runtime > requested time: kept and counted (jobs run their real
 *    runtime in the simulator; predictions use the requested time);
 *  - runtime 0: kept and counted;
 *  - submit times out of order: counted, and the jobs are sorted by submit
 *    time then job number (stable).
 * Jobs larger than the machine are rejected by the simulator (it knows the
 * machine); see bal_sched_run(). Format: [Feitelson 2014].
 *
 * Lenient mode skips malformed lines; a text in which every non-comment
 * line was malformed is not a trace (a PNG, say), and the readers return
 * BAL_EFORMAT for it ("no valid job lines") rather than an empty trace. A
 * text with no job lines at all (only comments, or nothing) is a valid,
 * empty trace. The file reader also stops at #BAL_SWF_MAX_BAD_RUN malformed
 * lines in a row, so that an endless stream of garbage ends.
 *
 * The file reader parses as it reads: a line it refuses ends the read
 * there, whatever follows, and the text is never held whole in memory. So
 * an endless input ends: `/dev/urandom` is refused at its first job line
 * in strict mode, after about a thousand lines in lenient mode.
 */
#ifndef BALLAST_SWF_H
#define BALLAST_SWF_H

#include <stdbool.h>

#include <ballast/defs.h>
#include <ballast/error.h>

BAL_BEGIN_DECLS

/** One job as the simulator needs it (times in seconds). */
typedef struct bal_swf_job {
  int64_t id;        /**< field 1, job number */
  int64_t submit;    /**< field 2, submit time (relative to UnixStartTime) */
  int64_t runtime;   /**< field 4, run time (>= 0) */
  int64_t procs;     /**< field 8, or field 5 when field 8 is −1 (>= 1) */
  int64_t req_time;  /**< field 9, or the runtime when −1 (>= 0) */
  int64_t status;    /**< field 11 (−1 unknown) */
  int64_t user;      /**< field 12 (−1 unknown) */
  int64_t partition; /**< field 16 (−1 unknown) */
  bool req_time_from_runtime; /**< requested time was −1: set to the runtime */
  bool procs_from_alloc;      /**< requested procs was −1: set to allocated */
  bool runtime_over_req;      /**< the job ran longer than it requested */
} bal_swf_job;

/** Values read from the header comments (−1 when absent). */
typedef struct bal_swf_header {
  int64_t max_nodes;       /**< `; MaxNodes:` */
  int64_t max_procs;       /**< `; MaxProcs:` */
  int64_t unix_start_time; /**< `; UnixStartTime:` */
  int64_t partitions;      /**< number of `; Partition:` lines */
} bal_swf_header;

/** What the reader met, counted (all counts are lines or jobs). */
typedef struct bal_swf_stats {
  int64_t lines;              /**< lines read, comments included */
  int64_t records;            /**< job lines parsed successfully */
  int64_t jobs;               /**< jobs kept (after filters and drops) */
  int64_t malformed_skipped;  /**< malformed lines skipped (lenient mode only) */
  int64_t dropped_no_procs;   /**< requested and allocated procs both −1 */
  int64_t dropped_no_runtime; /**< runtime < 0 */
  int64_t filtered_partition; /**< other partition (`partition` filter) */
  int64_t filtered_window;    /**< submit outside [from, to) */
  int64_t filtered_first;     /**< beyond the first `first` jobs */
  int64_t req_time_from_runtime; /**< kept jobs with requested time −1 */
  int64_t procs_from_alloc;   /**< kept jobs with requested procs −1 */
  int64_t runtime_over_req;   /**< kept jobs with runtime > requested time */
  int64_t runtime_zero;       /**< kept jobs with runtime 0 */
  int64_t out_of_order;       /**< kept jobs submitted before their predecessor */
} bal_swf_stats;

/** Reader options; initialise with bal_swf_options_init(). */
typedef struct bal_swf_options {
  int64_t partition; /**< keep only this partition (field 16); −1 = all */
  int64_t from;      /**< keep submit >= from (seconds, as in the log); INT64_MIN = no bound */
  int64_t to;        /**< keep submit < to; INT64_MAX = no bound */
  int64_t first;     /**< keep only the first N jobs passing the other filters; 0 = all */
  bool lenient;      /**< skip and count malformed lines instead of failing */
} bal_swf_options;

/**
 * Longest line the readers accept, in bytes without its newline. A longer
 * line is BAL_EFORMAT ("line longer than ... bytes") at its line number, in
 * strict and lenient mode alike: the file reader stops there, so a file
 * that never ends a line (/dev/zero, a binary) is refused after a few MB
 * instead of being buffered until memory runs out. The archive's logs have
 * lines of about 100 bytes.
 */
#define BAL_SWF_MAX_LINE 65536

/**
 * Malformed job lines in a row at which lenient bal_swf_read_file() stops
 * with BAL_EFORMAT ("1000 malformed lines in a row: not an SWF trace?") at
 * the line that completed the run. Comment and blank lines between them
 * neither count nor break the run (random bytes hold a few); only a valid
 * job line does, even one a filter then drops. A stream of garbage that
 * never ends (`/dev/urandom`) is thus refused after about 1000 lines, while
 * logs with damaged lines here and there still read. bal_swf_read_mem()
 * has no such limit: its input is finite, and its result is the same as
 * before the limit existed.
 */
#define BAL_SWF_MAX_BAD_RUN 1000

/** Where a parse failed (filled by the readers on BAL_EFORMAT). */
typedef struct bal_swf_error {
  int64_t line;     /**< 1-based line number; 0 if not line-specific */
  char message[160]; /**< what was wrong, NUL-terminated */
} bal_swf_error;

/**
 * A loaded trace: jobs sorted by submit time then job number.
 *
 * The one exception to Ballast's opaque handles (docs/CONVENTIONS.md): a
 * transparent, read-only array of jobs, because tools, the fuzzer and
 * replays read it directly. Only the readers fill it and only
 * bal_swf_trace_destroy() frees it; never write to it (bal_sched_run()
 * takes it as const).
 */
typedef struct bal_swf_trace {
  bal_swf_job *jobs; /**< njobs entries, owned by the trace */
  int64_t njobs;     /**< jobs kept (= stats.jobs) */
  bal_swf_header header;
  bal_swf_stats stats;
} bal_swf_trace;

/**
 * Set options to: all partitions, no window, all jobs, strict.
 * @return BAL_OK; BAL_EINVAL if opt is NULL. Thread-safety: safe.
 */
BAL_API int bal_swf_options_init(bal_swf_options *opt);

/**
 * Read a trace file; a name ending in `.gz` (or any file starting with the
 * gzip magic) is decompressed on the fly.
 * @param path file name.
 * @param opt  filters and strictness; NULL = defaults.
 * @param out  receives the trace (release with bal_swf_trace_destroy()).
 * @param err  optional; on BAL_EFORMAT receives the line and the reason.
 * @return BAL_OK; BAL_EINVAL (NULL path/out, bad options); BAL_EIO (cannot
 *         open or read, corrupt gzip data); BAL_EFORMAT (strict mode: a
 *         malformed line — a field that is not a number, a number of more
 *         than 18 digits or of magnitude 9e17 or more ("too large"), not 18
 *         fields; either mode: a line longer than #BAL_SWF_MAX_LINE bytes;
 *         lenient mode: #BAL_SWF_MAX_BAD_RUN malformed job lines in a row,
 *         or every job line malformed, err->line 0); BAL_ENOMEM. Reading
 *         stops at the first of these: a corrupt gzip stream after a
 *         malformed line is BAL_EFORMAT at that line.
 * Thread-safety: safe (no shared state).
 */
BAL_API int bal_swf_read_file(const char *path, const bal_swf_options *opt, bal_swf_trace **out,
                              bal_swf_error *err);

/**
 * Read a trace from memory (uncompressed SWF text of len bytes; need not be
 * NUL-terminated). Same options, results and errors as bal_swf_read_file(),
 * except that lenient mode has no #BAL_SWF_MAX_BAD_RUN limit.
 * Thread-safety: safe (reads only buf and opt; writes only *out and *err).
 */
BAL_API int bal_swf_read_mem(const char *buf, size_t len, const bal_swf_options *opt,
                             bal_swf_trace **out, bal_swf_error *err);

/** Free a trace. NULL is ignored. Thread-safety: no other call may use the
 *  trace meanwhile or after. */
BAL_API void bal_swf_trace_destroy(bal_swf_trace *trace);

/**
 * Resolve the machine: explicit values win; a value left at 0 comes from
 * the header, which determines the machine only when it has both MaxNodes
 * and MaxProcs and MaxProcs is a multiple of MaxNodes (Curie's header is
 * not: 5,544 nodes, 93,312 procs).
 * @param trace the trace (its header).
 * @param nodes, cores_per_node requested values, 0 = from the header.
 * @param out_nodes, out_cores receive the machine on success.
 * @return BAL_OK; BAL_EINVAL if a value is negative or cannot be determined.
 * Thread-safety: safe.
 */
BAL_API int bal_swf_machine(const bal_swf_trace *trace, int64_t nodes, int64_t cores_per_node,
                            int64_t *out_nodes, int64_t *out_cores);

/**
 * How bal_swf_scale() turns a window of a trace into a job list for a
 * smaller machine run faster (a trace replay on a sandbox, and the
 * simulation of that same replay); initialise with bal_swf_scaling_init().
 *
 * Rules, in order, for each job of the window (integer seconds):
 *  - window: `count` consecutive jobs in trace order (submit time, then job
 *    number), from the first job numbered `from_id`, or from index
 *    `from_index` when from_id is −1; a window running past the end is
 *    cut there;
 *  - submit' = floor((submit − the window's first submit) / speedup);
 *  - runtime' = max(min_runtime, ceil(runtime / speedup)) (lengthened jobs
 *    are counted);
 *  - req' = max(ceil(req_time / speedup), runtime'), rounded up to a
 *    multiple of time_unit (a live scheduler kills at the limit; the
 *    simulator does not, so a limit under the runtime would make them
 *    differ: such limits are raised and counted);
 *  - machine (when nodes > 0): with P = trace_nodes × trace_cores, a job of
 *    p processors gets n' = min(nodes, ceil(p × nodes / P)) whole nodes
 *    (its share of the trace's processors, in the target's processors,
 *    rounded up to whole nodes) and procs' = n' × cores_per_node; jobs
 *    larger than the trace's machine are capped at the target and counted.
 *    nodes = 0 keeps the processors as logged.
 * The result's header: MaxNodes/MaxProcs of the target machine (or the
 * input's when not scaled), UnixStartTime moved to the window's start.
 */
typedef struct bal_swf_scaling {
  int64_t from_id;     /**< first job of the window by number, −1 = use from_index (−1) */
  int64_t from_index;  /**< first job of the window, 0-based index in the trace (0) */
  int64_t count;       /**< jobs in the window, 0 = to the end (0) */
  int64_t trace_nodes; /**< the trace's machine (bal_swf_machine()); needed when nodes > 0 */
  int64_t trace_cores; /**< cores per node of the trace's machine */
  int64_t nodes;       /**< target nodes, 0 = not scaled (0) */
  int64_t cores_per_node; /**< target cores per node (with nodes) */
  double speedup;      /**< times divided by this, finite, >= 1 (1) */
  int64_t min_runtime; /**< shortest runtime after the speedup (s), >= 0 (0) */
  int64_t time_unit;   /**< requested times rounded up to a multiple of this (s), >= 1 (1;
                            60 for a scheduler counting minutes) */
} bal_swf_scaling;

/** What bal_swf_scale() changed, counted. */
typedef struct bal_swf_scaling_stats {
  int64_t jobs;            /**< jobs in the window */
  int64_t first_index;     /**< index of its first job in the input trace */
  int64_t lengthened;      /**< runtimes raised to min_runtime */
  int64_t lengthened_s;    /**< seconds added by those raises, in total */
  int64_t req_raised;      /**< requested times raised to the runtime */
  int64_t capped;          /**< jobs larger than the trace's machine, capped at the target */
  int64_t span;            /**< max over jobs of submit' + runtime' (s): the replay's length
                                if nothing waited, a lower bound */
} bal_swf_scaling_stats;

/**
 * Defaults: window from index 0 to the end, not scaled, speedup 1, no
 * minimum runtime, time unit 1 s.
 * @return BAL_OK; BAL_EINVAL if sc is NULL. Thread-safety: safe.
 */
BAL_API int bal_swf_scaling_init(bal_swf_scaling *sc);

/**
 * Apply sc (rules above) to trace, giving a new trace (the input is not
 * changed). An empty input gives an empty result.
 * @param trace a loaded trace.
 * @param sc    the transformation.
 * @param out   receives the new trace (release with bal_swf_trace_destroy()).
 * @param stats optional, receives the counts.
 * @return BAL_OK; BAL_EINVAL (NULL trace/sc/out, a field out of range,
 *         nodes > 0 without a trace machine, from_index past the end of a
 *         non-empty trace, a scaled value that would overflow: nodes ×
 *         trace_nodes × trace_cores × the largest job must stay below
 *         2^63); BAL_ENOTFOUND (no job numbered from_id); BAL_ENOMEM. On
 *         error *out and *stats are untouched.
 * Thread-safety: safe.
 */
BAL_API int bal_swf_scale(const bal_swf_trace *trace, const bal_swf_scaling *sc,
                          bal_swf_trace **out, bal_swf_scaling_stats *stats);

BAL_END_DECLS

#endif /* BALLAST_SWF_H */
