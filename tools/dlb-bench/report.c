/* DLB_Bench pictures (see report.h). */
#include "report.h"

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/output.h"

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
