/* ballast-dlb-bench's output: --json or the table, the timeline of
 * --trace and the plot of --plot (dlb.h). */
#include "dlb.h"

#include "common/cli.h"
#include "common/json.h"
#include "common/gnuplot.h"
#include "common/output.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *kind_name[] = {"work", "steal", "route", "idle"};

bool dlb_write_trace(const char *path, const dlb_event *ev, const int *rank_of, long long n,
                     int ranks, const char *policy) {
  out_file out;
  if (!out_open(&out, "ballast-dlb-bench", "--trace", path)) return false;
  FILE *f = out.f;
  fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"policy\":\"%s\"},\"traceEvents\":[\n", policy);
  fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{\"name\":\"DLB_Bench (%s)\"}}", policy);
  for (int r = 0; r < ranks; r++)
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"rank %d\"}}", r, r);
  for (long long i = 0; i < n; i++) {
    int k = (int)ev[i].kind;
    if (k < 0 || k > 3) continue;
    double ts = ev[i].t0 * 1e6, dur = (ev[i].t1 - ev[i].t0) * 1e6;
    if (k == 2)
      fprintf(f, ",\n{\"name\":\"route\",\"cat\":\"steal\",\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"args\":{\"to\":%d}}",
              rank_of[i], ts, (int)ev[i].peer);
    else
      fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"steal\",\"ph\":\"X\",\"pid\":0,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"peer\":%d}}",
              kind_name[k], rank_of[i], ts, dur < 0 ? 0 : dur, (int)ev[i].peer);
  }
  fprintf(f, "\n]}\n");
  return out_commit(&out);
}

bool dlb_write_plot(const char *path, int ranks, const double *initial, int nseries,
                    const double *const *series, const char *const *names) {
  char data[1024];
  int fd = cli_temp_template(data, sizeof data, "ballast-dlb-plot") ? mkstemp(data) : -1;
  if (fd < 0) {
    fprintf(stderr, "ballast-dlb-bench: --plot: cannot create a temporary file\n");
    return false;
  }
  FILE *d = fdopen(fd, "w");
  for (int r = 0; r < ranks; r++) {
    fprintf(d, "%d %.6f", r, initial[r]);
    for (int k = 0; k < nseries; k++) fprintf(d, " %.6f", series[k][r]);
    fprintf(d, "\n");
  }
  fclose(d);
  /* gnuplot's messages go to stderr: stdout may carry the --json object. */
  out_file png;
  if (!out_reserve(&png, "ballast-dlb-bench", "--plot", path)) {
    unlink(data);
    return false;
  }
  FILE *g = gnuplot_open("ballast-dlb-bench", "--plot");
  if (!g) {
    out_discard(&png);
    unlink(data);
    return false;
  }
  fprintf(g, "set terminal pngcairo size 1100,600 noenhanced\nset output ");
  gnuplot_string(g, png.tmp);
  fprintf(g, "\n");
  fprintf(g, "set title 'DLB_Bench: work per rank, before (owned) and after (executed)'\n"
             "set xlabel 'rank'\nset ylabel 'work (s)'\nset key top right\nset grid ytics\n"
             "set style fill solid 0.35 border\n");
  fprintf(g, "plot '%s' using 1:2 with boxes title 'initial (owned)'", data);
  for (int k = 0; k < nseries; k++)
    fprintf(g, ", '' using 1:%d with linespoints pt 7 ps 0.6 title 'executed: %s'", 3 + k, names[k]);
  fprintf(g, "\n");
  bool ok = gnuplot_close(g, "ballast-dlb-bench", "--plot");
  unlink(data);
  if (!ok) out_discard(&png);
  return ok && out_commit(&png);
}

void dlb_print_json(const opts *o, int p, long long tasks, const run_out *runs, int nruns,
                       bool ok) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  const run_out *last = &runs[nruns - 1];
  json_double(&j, "efficiency", last->efficiency);
  json_double(&j, "resolution_s", last->sum.resolution_s);
  json_int(&j, "ranks", p);
  json_string(&j, "policy", o->policy_arg);
  json_int(&j, "tasks", tasks);
  json_bool(&j, "results_ok", ok);
  json_int(&j, "steal_attempts", last->sum.attempts);
  json_int(&j, "thefts", last->sum.thefts);
  json_int(&j, "peers_max", last->sum.peers_max);
  json_int(&j, "iterations", o->iterations);
  json_double(&j, "drift", o->prm.drift);
  json_double(&j, "work_per_rank", o->prm.work_per_rank);
  json_double(&j, "tasks_per_rank", o->prm.tasks_per_rank);
  json_double(&j, "bytes_per_rank", o->prm.bytes_per_rank);
  json_int(&j, "task_input_bytes", (int64_t)dlb_input_len(&o->prm));
  json_double(&j, "spread", o->prm.spread);
  json_string(&j, "distribution", dlb_dist_name(o->prm.dist));
  json_string(&j, "work_mode", mode_names[o->mode]);
  json_double(&j, "slice", o->slice);
  json_double(&j, "poll_interval", o->poll_interval);
  json_string(&j, "idle_wait", idle_wait_names[o->idle_wait]);
  json_int(&j, "lifelines", o->lifelines);
  json_int(&j, "degree", o->degree);
  json_double(&j, "steal_fraction", o->steal_fraction);
  json_double(&j, "backoff_max", o->backoff_max);
  json_int(&j, "group_size", o->group_size);
  json_double(&j, "estimate_error", o->estimate_error);
  json_uint(&j, "seed", o->prm.seed);
  json_string(&j, "trace", o->trace);
  json_string(&j, "plot", o->plot);
  json_array_begin(&j, "runs");
  for (int k = 0; k < nruns; k++) {
    const run_out *r = &runs[k];
    json_object_begin(&j, NULL);
    json_string(&j, "policy", r->policy);
    const iter_out *t = &r->sum;
    json_double(&j, "efficiency", r->efficiency);
    json_double(&j, "resolution_s", t->resolution_s);
    json_double(&j, "work_s", t->work_s);
    json_double(&j, "idle_mean_s", t->idle_s / p);
    json_bool(&j, "results_ok", r->ok);
    json_int(&j, "results_bad", t->results_bad);
    json_int(&j, "executions", t->executions);
    json_int(&j, "steal_attempts", t->attempts);
    json_int(&j, "thefts", t->thefts);
    json_int(&j, "tasks_moved", t->given);
    json_int(&j, "results_routed", t->routed);
    json_int(&j, "result_messages", t->route_msgs);
    json_int(&j, "messages", t->messages);
    json_int(&j, "bytes_moved", t->bytes);
    json_int(&j, "peers_max", t->peers_max);
    json_int(&j, "overlay_degree_max", t->degree_max);
    json_array_begin(&j, "iterations");
    for (int i = 0; i < o->iterations; i++) {
      json_object_begin(&j, NULL);
      json_double(&j, "efficiency", r->iter_efficiency[i]);
      json_double(&j, "resolution_s", r->iter_resolution[i]);
      json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
  }
  json_array_end(&j);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

void dlb_print_table(const opts *o, int p, long long tasks, const run_out *runs, int nruns) {
  printf("DLB_Bench: %d ranks, %lld tasks, %s distribution, %.3g s work/rank, %s mode, seed %llu\n",
         p, tasks, dlb_dist_name(o->prm.dist), o->prm.work_per_rank, mode_names[o->mode],
         (unsigned long long)o->prm.seed);
  if (o->iterations > 1)
    printf("%d iterations, drift %.3g per iteration; totals over iterations 2..%d\n",
           o->iterations, o->prm.drift, o->iterations);
  printf("%-11s %10s %12s %9s %9s %9s %11s %10s %10s %8s\n", "policy", "efficiency",
         "resolution_s", "work_s", "attempts", "thefts", "tasks_moved", "peers_max", "messages",
         "results");
  for (int k = 0; k < nruns; k++) {
    const run_out *r = &runs[k];
    char eff[32];
    if (isfinite(r->efficiency))
      snprintf(eff, sizeof eff, "%.3f", r->efficiency);
    else
      snprintf(eff, sizeof eff, "n/a");
    printf("%-11s %10s %12.3f %9.2f %9lld %9lld %11lld %10d %10lld %8s\n", r->policy, eff,
           r->sum.resolution_s, r->sum.work_s, r->sum.attempts, r->sum.thefts, r->sum.given, r->sum.peers_max, r->sum.messages,
           r->ok ? "ok" : "WRONG");
  }
}

/* The plot: the last iteration's initial work per rank (recomputed from
 * the workload, as every rank drew it) and each run's final work. */
bool dlb_plot(const opts *o, int p, int last_iter, const long long *counts, const run_out *runs) {
  double *initial = calloc((size_t)p, sizeof *initial);
  size_t len = dlb_input_len(&o->prm);
  unsigned char *buf = malloc(len);
  if (!initial || !buf) {
    fprintf(stderr, PROG ": --plot %s: out of memory\n", o->plot);
    free(initial);
    free(buf);
    return false;
  }
  uint64_t g = 0;
  for (int r = 0; r < p; r++)
    for (long long i = 0; i < counts[r]; i++, g++) {
      dlb_make_input(&o->prm, last_iter, g, buf, len);
      dlb_task_hdr h;
      memcpy(&h, buf, sizeof h);
      initial[r] += h.seconds;
    }
  free(buf);
  const double *series[DLB_MAX_POLICIES];
  const char *names[DLB_MAX_POLICIES];
  for (int k = 0; k < o->npolicies; k++) {
    series[k] = runs[k].final_work;
    names[k] = runs[k].policy;
  }
  bool ok = dlb_write_plot(o->plot, p, initial, o->npolicies, series, names);
  free(initial);
  return ok;
}
