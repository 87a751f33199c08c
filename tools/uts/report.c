/* ballast-uts's output: one JSON object (--json) or a short table. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "common/cli.h"
#include "common/json.h"
#include "uts.h"

void uts_print_json(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                       double eff) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "type", type_names[o->prm.type]);
  json_string(&j, "shape", shape_names[o->prm.shape]);
  json_int(&j, "depth", o->prm.depth);
  json_double(&j, "branching", o->prm.b0);
  json_int(&j, "root_seed", o->prm.root_seed);
  json_double(&j, "non_leaf_prob", o->prm.q);
  json_int(&j, "non_leaf_children", o->prm.m);
  json_double(&j, "shift", o->prm.shift);
  json_int(&j, "granularity", o->prm.gran);
  json_int(&j, "max_nodes", o->max_nodes);
  json_int(&j, "check_every", t->every);
#ifdef BALLAST_SMPI
  /* Times are simulated seconds; the sequential rate is 1 / node_cost_s. */
  json_bool(&j, "simulated", true);
  json_double(&j, "node_cost_s", t->node_cost);
  json_double(&j, "slice_s", o->slice);
  json_double(&j, "work_per_rank_s", t->node_cost * (double)t->nodes / p);
#else
  json_bool(&j, "simulated", false);
#endif
  json_int(&j, "ranks", p);
  json_int(&j, "workers", o->workers);
  json_int(&j, "processors", (int64_t)p * o->workers);
  json_string(&j, "policy", o->policy);
  json_string(&j, "progress", progress_names[o->progress]);
  json_string(&j, "idle_wait", idle_wait_names[o->idle_wait]);
  json_int(&j, "lifelines", o->lifelines);
  json_double(&j, "steal_fraction", o->steal_fraction);
  json_double(&j, "poll_interval_s", o->poll_interval);
  json_double(&j, "backoff_max_s", o->backoff_max);
  json_uint(&j, "seed", o->seed);
  if (o->baseline_nodes < 0)
    json_string(&j, "baseline_nodes", "all");
  else
    json_int(&j, "baseline_nodes", o->baseline_nodes);
  json_int(&j, "nodes", t->nodes);
  json_int(&j, "leaves", t->leaves);
  json_int(&j, "max_depth", t->max_depth);
  json_double(&j, "time_s", t->time_s);
  json_double(&j, "nodes_per_s", (double)t->nodes / t->time_s);
  json_double(&j, "efficiency", eff);
  if (have_seq) {
    json_object_begin(&j, "sequential");
    json_int(&j, "nodes", seq->cnt.nodes);
    json_int(&j, "leaves", seq->cnt.leaves);
    json_int(&j, "max_depth", seq->cnt.max_depth);
    json_bool(&j, "complete", seq->complete);
    json_double(&j, "time_s", seq->time_s);
    json_double(&j, "nodes_per_s", (double)seq->cnt.nodes / seq->time_s);
    json_object_end(&j);
  } else {
    json_string(&j, "sequential", NULL);
  }
  json_object_begin(&j, "steal");
  json_int(&j, "tasks_spawned", t->spawned);
  json_int(&j, "splits", t->splits);
  json_int(&j, "steal_attempts", t->attempts);
  json_int(&j, "thefts", t->thefts);
  json_int(&j, "tasks_moved", t->given);
  json_int(&j, "tasks_run_stolen", t->executed_stolen);
  json_int(&j, "results_routed", t->routed);
  json_int(&j, "messages", t->messages);
  json_int(&j, "termination_waves", t->waves);
  json_double(&j, "work_s", t->work_s);
  json_double(&j, "idle_s", t->idle_s);
  /* The time from the last task's end to the run's end: termination. */
  json_double(&j, "last_task_end_s", t->last_task_s);
  json_object_end(&j);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

void uts_print_table(const opts *o, int p, const seq_out *seq, bool have_seq, const sums *t,
                        double eff) {
  printf("UTS %s tree: ", type_names[o->prm.type]);
  if (o->prm.type != UTS_BIN)
    printf("shape %s, depth %d, ", shape_names[o->prm.shape], o->prm.depth);
  printf("b0 %g, root seed %d", o->prm.b0, o->prm.root_seed);
  if (o->prm.type != UTS_GEO) printf(", q %g, m %d", o->prm.q, o->prm.m);
  if (o->prm.type == UTS_HYBRID) printf(", shift %g", o->prm.shift);
  printf(", granularity %d\n", o->prm.gran);
  if (t->node_cost > 0)
    printf("simulated:  %.3g s per node (%.3g s of work per rank), a check every %" PRId64
           " nodes; times are simulated\n",
           t->node_cost, t->node_cost * (double)t->nodes / p, t->every);
  printf("nodes %" PRId64 ", leaves %" PRId64 ", max depth %" PRId64 "\n", t->nodes, t->leaves,
         t->max_depth);
  printf("parallel:   %d rank%s x %lld worker%s (%s, %s progress): %.3f s, %.3f M nodes/s\n", p,
         p > 1 ? "s" : "", (long long)o->workers, o->workers > 1 ? "s" : "", o->policy,
         progress_names[o->progress], t->time_s, (double)t->nodes / t->time_s * 1e-6);
  if (have_seq)
    printf("sequential: %" PRId64 " nodes%s in %.3f s, %.3f M nodes/s\n", seq->cnt.nodes,
           seq->complete ? "" : " (part of the tree)", seq->time_s,
           (double)seq->cnt.nodes / seq->time_s * 1e-6);
  if (isnan(eff))
    printf("efficiency: n/a (no sequential baseline)\n");
  else
    printf("efficiency: %.3f (parallel rate / (%lld processors x sequential rate))\n", eff,
           (long long)p * o->workers);
  printf("stealing:   %" PRId64 " tasks spawned, %" PRId64 " steal requests, %" PRId64
         " thefts, %" PRId64 " tasks moved, %" PRId64 " messages, %" PRId64
         " termination waves\n",
         t->spawned, t->attempts, t->thefts, t->given, t->messages, t->waves);
}
