/* ballast-sched output: the human table, the --json object and the
 * per-job CSV. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "sched_tool.h"

static const char *model_name(int m) { return m == BAL_SCHED_WORST ? "worst" : "ideal"; }

static void max_slowdown_text(const bal_sched_config *c, char *buf, size_t n) {
  if (c->dynamic_max_slowdown) snprintf(buf, n, "dynamic");
  else if (isinf(c->max_slowdown)) snprintf(buf, n, "inf");
  else snprintf(buf, n, "%g", c->max_slowdown);
}

/* A figure that is undefined (NaN: no job ran) prints as n/a, never 0. */
static void row_double(const char *name, double v, int decimals) {
  if (isfinite(v)) printf("%-26s %16.*f\n", name, decimals, v);
  else printf("%-26s %16s\n", name, "n/a");
}

void sched_print_table(const sched_opts *o, const bal_swf_trace *t, const bal_sched_summary *s,
                       const sched_timing *tm) {
  const bal_sched_config *c = &o->cfg;
  const bal_swf_stats *st = &t->stats;
  printf("trace          %s\n", o->trace);
  printf("machine        %lld nodes x %lld cores\n", (long long)c->nodes,
         (long long)c->cores_per_node);
  printf("policy         %s", c->policy);
  if (bal_sched_policy_shares(c->policy)) {
    char ms[32];
    max_slowdown_text(c, ms, sizeof ms);
    printf(" (max mates %lld, max slowdown %s, sharing factor %g, runtime model %s,\n"
           "               core demand %s, malleable fraction %g, seed %llu)",
           (long long)c->max_mates, ms, c->sharing_factor, model_name(c->runtime_model),
           c->core_demand == BAL_SCHED_DEMAND_NODE ? "node" : "procs", c->malleable_fraction,
           (unsigned long long)c->seed);
  }
  if (o->scaled) {
    const bal_swf_scaling *sc = &o->scale;
    const bal_swf_scaling_stats *ss = &o->scale_stats;
    printf("\nscaling        %lld jobs from index %lld (job %lld), speedup %g", (long long)ss->jobs,
           (long long)ss->first_index, (long long)o->first_id, sc->speedup);
    if (sc->nodes > 0)
      printf(", machine %lld x %lld scaled to %lld x %lld", (long long)sc->trace_nodes,
             (long long)sc->trace_cores, (long long)sc->nodes, (long long)sc->cores_per_node);
    printf(",\n               %lld runtimes lengthened to %lld s (+%lld s), %lld limits raised to "
           "the runtime,\n               %lld jobs capped, time unit %lld s, span %lld s",
           (long long)ss->lengthened, (long long)sc->min_runtime, (long long)ss->lengthened_s,
           (long long)ss->req_raised, (long long)ss->capped, (long long)sc->time_unit,
           (long long)ss->span);
  }
  printf("\n\nreader: %lld lines, %lld records, %lld jobs kept\n", (long long)st->lines,
         (long long)st->records, (long long)st->jobs);
  printf("  dropped: %lld without procs, %lld without runtime; filtered: %lld partition, "
         "%lld window, %lld beyond --first; %lld malformed skipped\n",
         (long long)st->dropped_no_procs, (long long)st->dropped_no_runtime,
         (long long)st->filtered_partition, (long long)st->filtered_window,
         (long long)st->filtered_first, (long long)st->malformed_skipped);
  printf("  kept jobs with: requested time from runtime %lld, procs from allocated %lld,\n"
         "  runtime > requested %lld, runtime 0 %lld, out-of-order submit %lld\n\n",
         (long long)st->req_time_from_runtime, (long long)st->procs_from_alloc,
         (long long)st->runtime_over_req, (long long)st->runtime_zero,
         (long long)st->out_of_order);
  printf("%-26s %16s\n", "metric", "value");
  printf("%-26s %16lld\n", "jobs", (long long)s->jobs);
  printf("%-26s %16lld\n", "rejected (too large)", (long long)s->rejected_too_large);
  row_double("makespan (s)", s->makespan, 0);
  row_double("average wait (s)", s->avg_wait, 2);
  row_double("average response (s)", s->avg_response, 2);
  row_double("average slowdown", s->avg_slowdown, 2);
  row_double("average bounded slowdown", s->avg_bounded_slowdown, 2);
  row_double("utilization", s->utilization, 4);
  printf("%-26s %16lld\n", "malleable starts", (long long)s->malleable_jobs);
  printf("%-26s %16lld\n", "mates (distinct jobs)", (long long)s->mates);
  printf("%-26s %16lld\n", "mate selections", (long long)s->mate_selections);
  printf("\nread %.3f s, simulate %.3f s\n", tm->read_s, tm->sim_s);
}

void sched_print_json(const sched_opts *o, const bal_swf_trace *t, const bal_sched_summary *s,
                      const sched_timing *tm) {
  const bal_sched_config *c = &o->cfg;
  const bal_swf_stats *st = &t->stats;
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "tool", SCHED_PROG);
  json_string(&j, "trace", o->trace);
  json_string(&j, "policy", c->policy);
  json_int(&j, "nodes", c->nodes);
  json_int(&j, "cores_per_node", c->cores_per_node);
  json_bool(&j, "machine_from_header", o->nodes == 0 || o->cores == 0);
  if (o->swf.partition >= 0) json_int(&j, "partition", o->swf.partition);
  else json_string(&j, "partition", NULL);
  if (o->swf.from != INT64_MIN) json_int(&j, "from", o->swf.from);
  else json_string(&j, "from", NULL);
  if (o->swf.to != INT64_MAX) json_int(&j, "to", o->swf.to);
  else json_string(&j, "to", NULL);
  if (o->swf.first > 0) json_int(&j, "first", o->swf.first);
  else json_string(&j, "first", NULL);
  json_bool(&j, "lenient", o->swf.lenient);
  json_int(&j, "max_mates", c->max_mates);
  if (c->dynamic_max_slowdown) json_string(&j, "max_slowdown", "dynamic");
  else if (isinf(c->max_slowdown)) json_string(&j, "max_slowdown", "inf");
  else json_double(&j, "max_slowdown", c->max_slowdown);
  json_double(&j, "sharing_factor", c->sharing_factor);
  json_string(&j, "runtime_model", model_name(c->runtime_model));
  json_string(&j, "core_demand", c->core_demand == BAL_SCHED_DEMAND_NODE ? "node" : "procs");
  json_double(&j, "malleable_fraction", c->malleable_fraction);
  json_int(&j, "ranks_per_node", c->ranks_per_node);
  json_uint(&j, "seed", c->seed);
  json_object_begin(&j, "settings");
  for (int64_t k = 0; k < c->nsettings; k++)
    json_string(&j, c->settings[k].key, c->settings[k].value);
  json_object_end(&j);
  json_string(&j, "jobs_csv", o->jobs_csv);
  json_string(&j, "plot", o->plot_dir);
  json_string(&j, "baseline", o->plot_dir ? o->baseline : NULL);
  json_int(&j, "jobs", s->jobs);
  json_int(&j, "rejected_too_large", s->rejected_too_large);
  json_double(&j, "makespan_s", s->makespan);
  json_double(&j, "avg_wait_s", s->avg_wait);
  json_double(&j, "avg_response_s", s->avg_response);
  json_double(&j, "avg_slowdown", s->avg_slowdown);
  json_double(&j, "avg_bounded_slowdown", s->avg_bounded_slowdown);
  json_double(&j, "utilization", s->utilization);
  json_int(&j, "malleable_jobs", s->malleable_jobs);
  json_int(&j, "mates", s->mates);
  json_int(&j, "mate_selections", s->mate_selections);
  json_int(&j, "events", s->events);
  json_int(&j, "max_queue", s->max_queue);
  if (o->scaled) {
    const bal_swf_scaling *sc = &o->scale;
    const bal_swf_scaling_stats *ss = &o->scale_stats;
    json_object_begin(&j, "scaling");
    if (sc->from_id >= 0) json_int(&j, "from_job", sc->from_id);
    else json_string(&j, "from_job", NULL);
    json_int(&j, "from_index", ss->first_index);
    json_int(&j, "first_job", o->first_id);
    if (sc->count > 0) json_int(&j, "count", sc->count);
    else json_string(&j, "count", NULL);
    json_double(&j, "speedup", sc->speedup);
    json_int(&j, "trace_nodes", sc->trace_nodes);
    json_int(&j, "trace_cores_per_node", sc->trace_cores);
    if (sc->nodes > 0) {
      json_int(&j, "scale_to_nodes", sc->nodes);
      json_int(&j, "scale_to_cpus", sc->cores_per_node);
    } else {
      json_string(&j, "scale_to_nodes", NULL);
      json_string(&j, "scale_to_cpus", NULL);
    }
    json_int(&j, "min_runtime_s", sc->min_runtime);
    json_int(&j, "time_unit_s", sc->time_unit);
    json_int(&j, "jobs", ss->jobs);
    json_int(&j, "lengthened", ss->lengthened);
    json_int(&j, "lengthened_s", ss->lengthened_s);
    json_int(&j, "req_raised", ss->req_raised);
    json_int(&j, "capped", ss->capped);
    json_int(&j, "span_s", ss->span);
    json_object_end(&j);
  } else {
    json_string(&j, "scaling", NULL);
  }
  json_object_begin(&j, "reader");
  json_int(&j, "lines", st->lines);
  json_int(&j, "records", st->records);
  json_int(&j, "jobs", st->jobs);
  json_int(&j, "malformed_skipped", st->malformed_skipped);
  json_int(&j, "dropped_no_procs", st->dropped_no_procs);
  json_int(&j, "dropped_no_runtime", st->dropped_no_runtime);
  json_int(&j, "filtered_partition", st->filtered_partition);
  json_int(&j, "filtered_window", st->filtered_window);
  json_int(&j, "filtered_first", st->filtered_first);
  json_int(&j, "req_time_from_runtime", st->req_time_from_runtime);
  json_int(&j, "procs_from_alloc", st->procs_from_alloc);
  json_int(&j, "runtime_over_req", st->runtime_over_req);
  json_int(&j, "runtime_zero", st->runtime_zero);
  json_int(&j, "out_of_order", st->out_of_order);
  json_int(&j, "header_max_nodes", t->header.max_nodes);
  json_int(&j, "header_max_procs", t->header.max_procs);
  json_int(&j, "header_unix_start_time", t->header.unix_start_time);
  json_object_end(&j);
  json_double(&j, "read_s", tm->read_s);
  json_double(&j, "simulate_s", tm->sim_s);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

bool sched_write_csv(const char *path, const bal_sched_result *r) {
  out_file out;
  if (!out_open(&out, SCHED_PROG, "--jobs-csv", path)) return false;
  FILE *f = out.f;
  int64_t n;
  const bal_sched_job *jobs = bal_sched_result_jobs(r, &n);
  fprintf(f, "id,submit,start,end,nodes,procs,runtime,req_time,wait,response,slowdown,"
             "bounded_slowdown,malleable,mates,times_mate,rejected\n");
  for (int64_t i = 0; i < n; i++) {
    const bal_sched_job *j = &jobs[i];
    if (j->rejected) {
      fprintf(f, "%lld,%lld,,,%lld,%lld,%lld,%lld,,,,,%d,0,0,1\n", (long long)j->id,
              (long long)j->submit, (long long)j->nodes, (long long)j->procs,
              (long long)j->runtime, (long long)j->req_time, j->malleable);
      continue;
    }
    double resp = j->end - (double)j->submit;
    fprintf(f, "%lld,%lld,%.10g,%.10g,%lld,%lld,%lld,%lld,%.10g,%.10g,%.6g,%.6g,%d,%lld,%lld,0\n",
            (long long)j->id, (long long)j->submit, j->start, j->end, (long long)j->nodes,
            (long long)j->procs, (long long)j->runtime, (long long)j->req_time,
            j->start - (double)j->submit, resp, resp / fmax((double)j->runtime, 1.0),
            fmax(1.0, resp / fmax((double)j->runtime, 10.0)), j->malleable, (long long)j->mates,
            (long long)j->times_mate);
  }
  return out_commit(&out);
}
