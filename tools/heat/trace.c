/* What the balancer saw on one rank, one sample per interaction: the rows
 * it held, its raw and filtered rate, and whether the load was on — the
 * data of [Siegell 1997] Figs. 22-24 — as CSV and as a gnuplot PNG. */
#include <stdlib.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/output.h"
#include "heat.h"

int trace_add(heat_trace *tr, const heat_sample *s) {
  if (tr->n == tr->cap) {
    long long cap = tr->cap ? 2 * tr->cap : 256;
    heat_sample *n = realloc(tr->s, (size_t)cap * sizeof *n);
    if (!n) return -1;
    tr->s = n;
    tr->cap = cap;
  }
  tr->s[tr->n++] = *s;
  return 0;
}

static void write_rows(FILE *f, const heat_trace *tr) {
  for (long long k = 0; k < tr->n; k++) {
    const heat_sample *s = &tr->s[k];
    fprintf(f, "%.6f,%lld,%lld,%.3f,%.3f,%d,%d,%lld\n", s->t, s->iter, s->rows, s->rate_raw,
            s->rate, s->loaded, s->filter_state, s->rebalances);
  }
}

static const char *header = "time_s,iteration,rows,rate_raw,rate_filtered,loaded,filter_state,rebalances\n";

bool trace_write_csv(const heat_trace *tr, const char *path) {
  out_file out;
  if (!out_open(&out, HEAT_PROG, "--trace", path)) return false;
  fputs(header, out.f);
  write_rows(out.f, tr);
  return out_commit(&out);
}

bool trace_plot(const heat_trace *tr, const heat_opts *o, const char *path, int rank) {
  char data[1024];
  int fd = cli_temp_template(data, sizeof data, "ballast-heat-plot") ? mkstemp(data) : -1;
  FILE *d = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!d) {
    fprintf(stderr, HEAT_PROG ": --plot: cannot create a temporary file\n");
    if (fd >= 0) close(fd);
    return false;
  }
  write_rows(d, tr);
  fclose(d);
  out_file png;
  if (!out_reserve(&png, HEAT_PROG, "--plot", path)) {
    unlink(data);
    return false;
  }
  FILE *g = gnuplot_open(HEAT_PROG, "--plot");
  if (!g) {
    out_discard(&png);
    unlink(data);
    return false;
  }
  double top = 1;
  for (long long k = 0; k < tr->n; k++) {
    if (tr->s[k].rate_raw > top) top = tr->s[k].rate_raw;
    if (tr->s[k].rate > top) top = tr->s[k].rate;
  }
  top *= 1.15;
  fprintf(g, "set terminal pngcairo size 900,500 noenhanced font ',10'\nset output ");
  gnuplot_string(g, png.tmp);
  fprintf(g, "\n");
  fprintf(g, "set datafile separator ','\n"
             "set title 'ballast heat: rank %d, balancer %s, load %s (x%.3g)%s%s%s'\n"
             "set xlabel 'time (s)'\nset ylabel 'rows held'\nset y2label 'rows/s'\n"
             "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:%g]\n"
             "set key bottom right\nset grid\nset style fill transparent solid 0.15 noborder\n",
          rank, o->balancer, heat_load_name(o->load), o->slowdown, o->filter ? "" : ", no filter",
          o->threshold ? "" : ", no threshold", o->profitability ? "" : ", no profitability", top);
  /* the load's on-phases as a shaded band behind the curves */
  fprintf(g,
          "plot '%s' using 1:($6*%g) axes x1y2 with filledcurves y1=0 lc rgb 'gray' title 'load on', "
          "'' using 1:3 with steps lw 2 title 'rows (allocation)', "
          "'' using 1:4 axes x1y2 with points pt 7 ps 0.4 lc rgb '#999999' title 'raw rate', "
          "'' using 1:5 axes x1y2 with lines lw 1.5 title 'filtered rate'\n",
          data, top);
  bool ok = gnuplot_close(g, HEAT_PROG, "--plot");
  unlink(data);
  if (!ok) out_discard(&png);
  return ok && out_commit(&png);
}
