/* ballast-heat's output: one JSON object (--json) or a short table. */
#include <inttypes.h>

#include "common/cli.h"
#include "common/json.h"
#include "heat.h"

void report_json(const heat_opts *o, const heat_result *r) {
  json_writer j;
  char hex[32];
  snprintf(hex, sizeof hex, "%016" PRIx64, r->hash);
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_double(&j, "efficiency", r->efficiency);
  if (r->first_rebalance_iter >= 0)
    json_double(&j, "efficiency_after_first_rebalance", r->efficiency_after);
  else
    json_string(&j, "efficiency_after_first_rebalance", NULL);
  json_int(&j, "items_moved", r->items_moved);
  json_int(&j, "bytes_moved", r->bytes_moved);
  json_int(&j, "rebalances", r->rebalances);
  json_int(&j, "interactions", r->interactions);
  json_int(&j, "skipped_threshold", r->skipped_threshold);
  json_int(&j, "skipped_unprofitable", r->skipped_profit);
  json_int(&j, "first_rebalance_iteration", r->first_rebalance_iter);
  json_double(&j, "elapsed_s", r->elapsed_s);
  json_double(&j, "sequential_s", r->t_seq_iter * (double)o->iterations);
  json_double(&j, "sequential_sweep_s", r->t_seq_iter);
  json_double(&j, "compete_s", r->compete_s);
  json_double(&j, "migrate_s_max", r->migrate_s_max);
  json_string(&j, "checksum", hex);
  json_double(&j, "mean_temperature", r->mean_temperature);
  json_int(&j, "observed_rank", r->observed_rank);
  json_array_begin(&j, "final_rows");
  for (int k = 0; k < r->ranks; k++) json_int(&j, NULL, r->final_rows[k]);
  json_array_end(&j);
  json_array_begin(&j, "late_s");
  for (int k = 0; k < r->ranks; k++) json_double(&j, NULL, r->late_s[k]);
  json_array_end(&j);
  /* parameters */
  json_int(&j, "ranks", r->ranks);
  json_int(&j, "nx", o->nx);
  json_int(&j, "ny", o->ny);
  json_int(&j, "iterations", o->iterations);
  json_string(&j, "balancer", o->balancer);
  json_string(&j, "load", heat_load_name(o->load));
  json_string(&j, "loaded_ranks", o->loaded_arg);
  json_double(&j, "slowdown", o->slowdown);
  json_double(&j, "load_period", o->load_period);
  json_double(&j, "load_duty", o->load_duty);
  json_string(&j, "work_mode", heat_work_name(o->work));
  json_double(&j, "row_time", o->row_s);
  json_bool(&j, "filter", o->filter);
  json_bool(&j, "threshold", o->threshold);
  json_double(&j, "threshold_value", o->threshold ? o->threshold_value : 0.0);
  json_bool(&j, "profitability", o->profitability);
  json_int(&j, "interval", o->interval);
  json_double(&j, "poll_interval", o->poll_s);
  json_uint(&j, "seed", o->seed);
  json_string(&j, "trace", o->trace);
  json_string(&j, "plot", o->plot);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

void report_table(const heat_opts *o, const heat_result *r) {
  printf("ballast heat: %d ranks, %d x %" PRId64 " grid, %lld sweeps, balancer %s, load %s", r->ranks,
         o->nx, o->ny, o->iterations, o->balancer, heat_load_name(o->load));
  if (o->load != LOAD_NONE) printf(" (x%.3g on ranks %s)", o->slowdown, o->loaded_arg);
  printf(", %s mode\n", heat_work_name(o->work));
  printf("  efficiency                  %.3f  (elapsed %.2f s, sequential %.2f s, competing %.2f s)\n",
         r->efficiency, r->elapsed_s, r->t_seq_iter * (double)o->iterations, r->compete_s);
  if (r->first_rebalance_iter >= 0)
    printf("  after the first rebalance   %.3f  (from sweep %lld)\n", r->efficiency_after,
           r->first_rebalance_iter + 1);
  printf("  rebalances                  %lld of %lld interactions (%lld below threshold, %lld "
         "unprofitable)\n",
         r->rebalances, r->interactions, r->skipped_threshold, r->skipped_profit);
  printf("  rows moved                  %lld (%lld bytes)\n", r->items_moved, r->bytes_moved);
  printf("  final rows per rank        ");
  for (int k = 0; k < r->ranks; k++) printf(" %" PRId64, r->final_rows[k]);
  printf("\n  checksum                    %016" PRIx64 "  (mean temperature %.6f)\n", r->hash,
         r->mean_temperature);
}
