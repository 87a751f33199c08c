/* Output: the human-readable table and the --json object. */
#include <ballast/version.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "common/cli.h"
#include "common/json.h"

static const char *verdict(const result *r) {
  if (isnan(r->target_val)) return "n/a (baseline unavailable)";
  bool met = r->mode == MODE_SLEEP ? r->target_val >= r->target : r->target_val <= r->target;
  return met ? "met" : "MISSED";
}

void print_table(const options *o, int P, double ipn, double tiny_ns, double overshoot_us,
                        const result *res, int nres) {
  printf(PROG ": P=%d threads, %lld interleaved rounds, seed %llu, pause %lld ms\n", P,
         (long long)o->reps, (unsigned long long)o->seed, (long long)o->pause_ms);
  printf("calibration: spin %.4f iterations/ns, tiny body %.3f ns/item", ipn, tiny_ns);
  if (!isnan(overshoot_us)) printf(", sleep overshoot %.0f us (median, 1 ms sleeps)", overshoot_us);
  printf("\n");
  if (!HAVE_OMP) printf("OpenMP baselines unavailable (built without OpenMP)\n");
  if (!HAVE_TBB) printf("TBB baseline unavailable (built without TBB)\n");
  bool learn = sched_avail[S_LEARN];
  if (o->repeat > 1) {
    printf("repeated: %lld calls in a row per run; times per call over calls 2..%lld", (long long)o->repeat,
           (long long)o->repeat);
    if (o->drift > 0) printf("; drift %.3g per call", o->drift);
    if (o->change_at) printf("; costs mirrored from call %lld", (long long)o->change_at);
    printf("\n");
  }
  for (int mode = 0; mode < MODE_COUNT; mode++) {
    if (!o->modes[mode]) continue;
    if (mode == MODE_SPIN)
      printf("\n== spin: CPU-bound bodies; skewed: %lld items, mean %.0f ns; uniform: %lld tiny "
             "items ==\n",
             (long long)o->items, o->spin_mean_ns, (long long)o->tiny_items);
    else
      printf("\n== sleep: sleeping bodies; %lld items, mean %.0f us ==\n",
             (long long)o->sleep_items, o->sleep_mean_us);
    printf("%-8s %-18s %10s %10s %10s", "workload", "schedule", "median_s", "bal/sched",
           "efficiency");
    printf(learn ? " %11s\n" : "\n", "learn/sched");
    for (int i = 0; i < nres; i++) {
      const result *r = &res[i];
      if (r->mode != mode) continue;
      for (int s = 0; s < S_COUNT; s++) {
        if (s == S_LEARN && !learn) continue; /* one-shot runs: not a schedule */
        const char *wl = s == 0 ? workload_name(r->wl) : "";
        char name[40];
        if (s == S_OMP_DYNC)
          snprintf(name, sizeof name, "omp_dynamic,%lld", (long long)r->chunk);
        else
          snprintf(name, sizeof name, "%s", sched_names[s]);
        if (!sched_avail[s])
          printf("%-8s %-18s %10s\n", wl, name, "unavailable");
        else {
          printf("%-8s %-18s %10.5f %10.3f %10.3f", wl, name, r->median_s[s], r->ratio[s],
                 r->eff[s]);
          printf(learn ? " %11.3f\n" : "\n", r->ratio_learn[s]);
        }
      }
      if (learn) {
        printf("%-8s bal_for_learn / bound = %.3f (of the measured work: %.3f)", "",
               r->median_s[S_LEARN] / r->ideal_s, r->learn_vs_busy_bound);
        if (r->best_learn >= 0)
          printf("; / best baseline (%s) = %.3f", sched_names[r->best_learn],
                 r->ratio_learn[r->best_learn]);
        printf("\n");
        if (!isnan(r->learn_vs_heldout))
          printf("%-8s bal_for_learn / best baseline picked on the other rounds (odd/even) = %.3f\n",
                 "", r->learn_vs_heldout);
      }
      if (learn && !isnan(r->change_s[S_LEARN]))
        printf("%-8s call %lld (the change): bal_for_learn / bal_for = %.3f, / bound = %.3f\n", "",
               (long long)o->change_at, r->change_s[S_LEARN] / r->change_s[S_BAL],
               r->change_s[S_LEARN] / r->ideal_change_s);
      if (learn && !isnan(r->after_s[S_LEARN]))
        printf("%-8s call %lld: bal_for_learn / bound = %.3f\n", "", (long long)o->change_at + 1,
               r->after_s[S_LEARN] / r->ideal_after_s);
      if (r->best >= 0)
        printf("%-8s bal_for / best baseline (%s) = %.3f\n", "", sched_names[r->best],
               r->ratio[r->best]);
      char val[32] = "";
      if (!isnan(r->target_val)) snprintf(val, sizeof val, "%.3f ", r->target_val);
      if (mode == MODE_SLEEP)
        printf("%-8s target: bal_for efficiency >= %.2f: %s%s\n", "", r->target, val,
               verdict(r));
      else
        printf("%-8s target: bal_for <= %.2f x %s: %s%s\n", "", r->target,
               r->wl == WL_UNIFORM ? "omp_static" : "best baseline", val, verdict(r));
      printf("%-8s bal_for last run: %lld chunks, %lld/%lld steals won/attempted, busy %.3f x "
             "the requested work\n",
             "", (long long)r->stats.chunks, (long long)r->stats.steals_won,
             (long long)r->stats.steals_attempted, r->stats.busy_seconds / r->work_s);
    }
  }
}

void print_json(const options *o, int P, double ipn, double tiny_ns, double overshoot_us,
                       const result *res, int nres) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "program", PROG);
  json_string(&j, "version", bal_version());
  json_object_begin(&j, "parameters");
  json_int(&j, "threads", P);
  json_array_begin(&j, "modes");
  for (int m = 0; m < MODE_COUNT; m++)
    if (o->modes[m]) json_string(&j, NULL, mode_names[m]);
  json_array_end(&j);
  json_string(&j, "workload", o->workload < 0 ? "all" : workload_name((workload_id)o->workload));
  json_int(&j, "items", o->items);
  json_double(&j, "spin_mean_ns", o->spin_mean_ns);
  json_int(&j, "tiny_items", o->tiny_items);
  json_int(&j, "sleep_items", o->sleep_items);
  json_double(&j, "sleep_mean_us", o->sleep_mean_us);
  json_double(&j, "floor_fraction_of_mean", WORKLOAD_FLOOR);
  json_int(&j, "chunk", o->chunk); /* 0: items / (64 P), per workload below */
  json_int(&j, "grain", o->grain);
  json_int(&j, "reps", o->reps);
  json_int(&j, "repeat", o->repeat);
  json_double(&j, "drift", o->drift);
  json_int(&j, "change_at", o->change_at);
  json_double(&j, "heavy_at", o->heavy_at);
  json_double(&j, "heavy_share", o->heavy_share);
  json_int(&j, "pause_ms", o->pause_ms);
  json_uint(&j, "seed", o->seed);
  json_string(&j, "round_order", "schedules shuffled every round from the seed");
  json_int(&j, "timer_slack_ns", 1);
  json_string(&j, "trace", o->trace); /* null without --trace */
  json_object_end(&j);
  json_object_begin(&j, "calibration");
  json_double(&j, "spin_iterations_per_ns", ipn);
  json_double(&j, "tiny_ns_per_item", tiny_ns);
  json_double(&j, "sleep_overshoot_us", overshoot_us); /* null without sleep mode */
  json_object_end(&j);
  json_array_begin(&j, "results");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    for (int s = 0; s < S_COUNT; s++) {
      json_object_begin(&j, NULL);
      json_string(&j, "mode", mode_names[r->mode]);
      json_string(&j, "workload", workload_name(r->wl));
      json_string(&j, "schedule", sched_names[s]);
      json_bool(&j, "available", sched_avail[s]);
      json_int(&j, "items", r->n);
      if (s == S_OMP_DYNC) json_int(&j, "chunk", r->chunk);
      json_double(&j, "median_s", r->median_s[s]);
      json_double(&j, "ratio", r->ratio[s]); /* t(bal_for) / t(schedule) */
      json_double(&j, "ratio_learn", r->ratio_learn[s]); /* t(bal_for_learn) / t(schedule) */
      json_double(&j, "change_call_s", r->change_s[s]);  /* null without --change-at */
      json_double(&j, "after_change_s", r->after_s[s]);
      json_double(&j, "ideal_s", r->ideal_s);
      json_double(&j, "efficiency", r->eff[s]);
      json_object_end(&j);
    }
  }
  json_array_end(&j);
  json_array_begin(&j, "summary");
  for (int i = 0; i < nres; i++) {
    const result *r = &res[i];
    json_object_begin(&j, NULL);
    json_string(&j, "mode", mode_names[r->mode]);
    json_string(&j, "workload", workload_name(r->wl));
    json_string(&j, "best_baseline", r->best >= 0 ? sched_names[r->best] : NULL);
    json_double(&j, "ratio_vs_best", r->best >= 0 ? r->ratio[r->best] : NAN);
    json_string(&j, "best_baseline_learn", r->best_learn >= 0 ? sched_names[r->best_learn] : NULL);
    json_double(&j, "learn_ratio_vs_best", r->best_learn >= 0 ? r->ratio_learn[r->best_learn] : NAN);
    json_double(&j, "learn_ratio_vs_heldout_best", r->learn_vs_heldout);
    json_double(&j, "learn_vs_bound", sched_avail[S_LEARN] ? r->median_s[S_LEARN] / r->ideal_s : NAN);
    json_double(&j, "learn_vs_measured_bound", r->learn_vs_busy_bound);
    json_double(&j, "ideal_change_s", r->ideal_change_s);
    json_double(&j, "ideal_after_change_s", r->ideal_after_s);
    json_string(&j, "target",
                r->mode == MODE_SLEEP      ? "bal_for efficiency >= 0.95"
                : r->wl == WL_UNIFORM      ? "bal_for <= 1.10 x omp_static"
                                           : "bal_for <= 1.05 x best baseline");
    json_double(&j, "target_value", r->target_val);
    if (isnan(r->target_val))
      json_string(&j, "target_met", NULL);
    else
      json_bool(&j, "target_met", !strcmp(verdict(r), "met"));
    json_object_begin(&j, "bal_for_last_run");
    json_int(&j, "chunks", r->stats.chunks);
    json_int(&j, "steals_attempted", r->stats.steals_attempted);
    json_int(&j, "steals_won", r->stats.steals_won);
    json_double(&j, "busy_s", r->stats.busy_seconds); /* summed over workers */
    json_double(&j, "work_s", r->work_s);             /* the requested work of that call */
    json_object_end(&j);
    json_object_end(&j);
  }
  json_array_end(&j);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}
