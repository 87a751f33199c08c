/* DLB_Bench's (and UTS's) --json output, as the launchers need it (read with json-c,
 * kept apart from the JSON writer whose names clash with json-c's). */
#ifndef SIMDLB_RESULT_H
#define SIMDLB_RESULT_H

#include <stdbool.h>

typedef struct dlb_run_result {
  char policy[32];
  double efficiency, resolution_s, thefts, messages, bytes_moved, peers_max;
  bool results_ok;
} dlb_run_result;

typedef struct dlb_output {
  char distribution[32];
  char idle_wait[8]; /* "poll" or "mpi" (bal_steal_config::idle_wait) */
  double work_per_rank, tasks_per_rank, bytes_per_rank, tasks, seed, lifelines;
  int nruns;
  dlb_run_result runs[64]; /* one per policy, as DLB_Bench's --policy takes at most */
} dlb_output;

/* Parse one DLB_Bench JSON object; false if it is not one. */
bool dlb_output_parse(const char *text, dlb_output *out);

/* A program's JSON object by key, for the UTS launcher: the numbers at
 * keys[0..n-1] (a dotted key reaches into nested objects: "steal.thefts";
 * true and false read as 1 and 0; NaN if absent or null) into nums, and
 * the strings at skeys[0..ns-1] into strs (cut to 31 bytes; "" if
 * absent). False if text is not a JSON object. */
bool res_fields(const char *text, const char *const *keys, int n, double *nums,
                const char *const *skeys, int ns, char (*strs)[32]);

#endif
