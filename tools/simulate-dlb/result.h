/* DLB_Bench's --json output, as simulate-dlb needs it (read with json-c,
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
  double work_per_rank, tasks_per_rank, bytes_per_rank, tasks, seed;
  int nruns;
  dlb_run_result runs[64]; /* one per policy, as DLB_Bench's --policy takes at most */
} dlb_output;

/* Parse one DLB_Bench JSON object; false if it is not one. */
bool dlb_output_parse(const char *text, dlb_output *out);

#endif
