/* ballast-sched --plot: the pictures of [D'Amico 2019]'s evaluation. Figs. 4-6:
 * heatmaps of baseline / run ratios of average slowdown, runtime and wait by
 * job size (nodes) x runtime category; Fig. 7: average slowdown per day of
 * both runs with the count of malleable starts per day. Data files are
 * written next to the PNGs, then gnuplot draws them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/gnuplot.h"
#include "common/output.h"
#include "sched_tool.h"

#define SIZE_BINS 14 /* 1, 2, 3-4, ..., 4097-8192, more */
#define TIME_BINS 7
static const double time_edges[TIME_BINS - 1] = {600, 3600, 4 * 3600, 12 * 3600, 86400,
                                                 2 * 86400};
static const char *const time_labels[TIME_BINS] = {"<=10m", "<=1h", "<=4h", "<=12h",
                                                   "<=1d", "<=2d", ">2d"};

static int size_bin(int64_t nodes) {
  int b = 0;
  while (b < SIZE_BINS - 1 && ((int64_t)1 << b) < nodes) b++;
  return b;
}

static int time_bin(int64_t runtime) {
  int b = 0;
  while (b < TIME_BINS - 1 && (double)runtime > time_edges[b]) b++;
  return b;
}

typedef struct cell {
  double sd, run, wait;
  int64_t n;
} cell;

static void accumulate(const bal_sched_result *r, cell c[SIZE_BINS][TIME_BINS]) {
  int64_t n;
  const bal_sched_job *jobs = bal_sched_result_jobs(r, &n);
  memset(c, 0, sizeof(cell) * SIZE_BINS * TIME_BINS);
  for (int64_t i = 0; i < n; i++) {
    const bal_sched_job *j = &jobs[i];
    if (j->rejected) continue;
    cell *x = &c[size_bin(j->nodes)][time_bin(j->runtime)];
    x->sd += (j->end - (double)j->submit) / fmax((double)j->runtime, 1.0);
    x->run += j->end - j->start;
    x->wait += j->start - (double)j->submit;
    x->n++;
  }
}

/* Draw the PNG reserved in png (output.h): renamed into place if gnuplot
 * succeeded, removed otherwise. Messages name the flag (see gnuplot.h). */
static bool run_gnuplot(const char *script, out_file *png) {
  FILE *g = gnuplot_open(SCHED_PROG, "--plot");
  if (!g) {
    out_discard(png);
    return false;
  }
  fputs(script, g);
  if (!gnuplot_close(g, SCHED_PROG, "--plot")) {
    out_discard(png);
    return false;
  }
  return out_commit(png);
}

static double ratio(double base, double run) {
  if (base == 0 && run == 0) return 1.0;
  if (run <= 0) return NAN;
  return base / run;
}

static bool heatmaps(const char *dir, const bal_sched_result *run, const bal_sched_result *base,
                     const char *rn, const char *bn) {
  static cell cr[SIZE_BINS][TIME_BINS], cb[SIZE_BINS][TIME_BINS];
  accumulate(run, cr);
  accumulate(base, cb);
  static const char *const names[3] = {"slowdown", "runtime", "wait"};
  char path[4096], pngpath[4096], script[16384];
  for (int m = 0; m < 3; m++) {
    snprintf(path, sizeof path, "%s/heatmap_%s.dat", dir, names[m]);
    out_file dat, png;
    if (!out_open(&dat, SCHED_PROG, "--plot", path)) return false;
    FILE *f = dat.f;
    fprintf(f, "# x=size bin (nodes <= 2^x), y=runtime bin, ratio %s/%s of mean %s, jobs\n",
            bn, rn, names[m]);
    for (int s = 0; s < SIZE_BINS; s++)
      for (int t = 0; t < TIME_BINS; t++) {
        const cell *a = &cb[s][t], *b = &cr[s][t];
        if (a->n == 0 || b->n == 0) continue;
        double va = m == 0 ? a->sd : m == 1 ? a->run : a->wait;
        double vb = m == 0 ? b->sd : m == 1 ? b->run : b->wait;
        double r = ratio(va / (double)a->n, vb / (double)b->n);
        if (isfinite(r)) fprintf(f, "%d %d %.4f %lld\n", s, t, r, (long long)b->n);
      }
    if (!out_commit(&dat)) return false;
    snprintf(pngpath, sizeof pngpath, "%s/heatmap_%s.png", dir, names[m]);
    if (!out_reserve(&png, SCHED_PROG, "--plot", pngpath)) return false;
    int len = snprintf(script, sizeof script,
                       "set terminal pngcairo size 1100,600\nset output '%s'\n"
                       "set title 'mean %s ratio %s / %s by job size and runtime'\n"
                       "set xlabel 'nodes (at most)'\nset ylabel 'runtime'\n"
                       "set xrange [-0.5:%d.5]\nset yrange [-0.5:%d.5]\n"
                       "set palette defined (0 'red', 1 'white', 2 'blue')\n"
                       "set cbrange [0:2]\nset cblabel 'ratio (>1: %s better)'\n",
                       png.tmp, names[m], bn, rn, SIZE_BINS - 1, TIME_BINS - 1, rn);
    len += snprintf(script + len, sizeof script - (size_t)len, "set xtics (");
    for (int s = 0; s < SIZE_BINS; s++)
      len += snprintf(script + len, sizeof script - (size_t)len, "%s'%s%lld' %d",
                      s ? ", " : "", s == SIZE_BINS - 1 ? ">" : "",
                      (long long)1 << (s == SIZE_BINS - 1 ? s - 1 : s), s);
    len += snprintf(script + len, sizeof script - (size_t)len, ")\nset ytics (");
    for (int t = 0; t < TIME_BINS; t++)
      len += snprintf(script + len, sizeof script - (size_t)len, "%s'%s' %d", t ? ", " : "",
                      time_labels[t], t);
    snprintf(script + len, sizeof script - (size_t)len,
             ")\nset style fill solid 1.0 noborder\n"
             "plot '%s' using 1:2:(0.5):(0.5):(($3>2)?2:$3) with boxxy fc palette notitle, "
             "'' using 1:2:(sprintf('%%.2f', $3)) with labels font ',8' notitle\n",
             path);
    if (!run_gnuplot(script, &png)) return false;
  }
  return true;
}

static bool per_day(const char *dir, const bal_sched_result *run, const bal_sched_result *base,
                    const char *rn, const char *bn) {
  int64_t n;
  const bal_sched_job *jr = bal_sched_result_jobs(run, &n);
  const bal_sched_job *jb = bal_sched_result_jobs(base, NULL);
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  for (int64_t i = 0; i < n; i++)
    if (!jr[i].rejected) {
      t0 = jr[i].submit < t0 ? jr[i].submit : t0;
      t1 = jr[i].submit > t1 ? jr[i].submit : t1;
    }
  if (t0 > t1) return true;
  size_t days = (size_t)((t1 - t0) / 86400 + 1);
  double *acc = calloc(days * 4, sizeof *acc);
  if (!acc) return false;
  for (int64_t i = 0; i < n; i++) {
    if (jr[i].rejected) continue;
    size_t d = (size_t)((jr[i].submit - t0) / 86400);
    acc[4 * d] += (jr[i].end - (double)jr[i].submit) / fmax((double)jr[i].runtime, 1.0);
    acc[4 * d + 1] += (jb[i].end - (double)jb[i].submit) / fmax((double)jb[i].runtime, 1.0);
    acc[4 * d + 2] += 1;
    if (jr[i].mates > 0) {
      size_t ds = (size_t)((jr[i].start - (double)t0) / 86400);
      if (ds < days) acc[4 * ds + 3] += 1;
    }
  }
  char path[4096], pngpath[4096], script[16384];
  snprintf(path, sizeof path, "%s/slowdown_per_day.dat", dir);
  out_file dat, png;
  if (!out_open(&dat, SCHED_PROG, "--plot", path)) {
    free(acc);
    return false;
  }
  FILE *f = dat.f;
  fprintf(f, "# day, mean slowdown %s, mean slowdown %s, malleable starts (%s)\n", rn, bn, rn);
  for (size_t d = 0; d < days; d++)
    if (acc[4 * d + 2] > 0)
      fprintf(f, "%zu %.4f %.4f %.0f\n", d, acc[4 * d] / acc[4 * d + 2],
              acc[4 * d + 1] / acc[4 * d + 2], acc[4 * d + 3]);
  free(acc);
  if (!out_commit(&dat)) return false;
  snprintf(pngpath, sizeof pngpath, "%s/slowdown_per_day.png", dir);
  if (!out_reserve(&png, SCHED_PROG, "--plot", pngpath)) return false;
  snprintf(script, sizeof script,
           "set terminal pngcairo size 1200,500\nset output '%s'\n"
           "set title 'slowdown per day (by submit day) and malleable starts'\n"
           "set xlabel 'day'\nset ylabel 'malleable starts per day'\n"
           "set y2label 'average slowdown'\nset ytics nomirror\nset y2tics\n"
           "set logscale y2\nset style fill solid 0.4 noborder\nset key below\n"
           "plot '%s' using 1:4 axes x1y1 with boxes lc rgb '#999999' title 'malleable "
           "starts (%s)', '' using 1:3 axes x1y2 with lines lw 1.5 lc rgb 'red' title '%s', "
           "'' using 1:2 axes x1y2 with lines lw 1.5 lc rgb 'blue' title '%s'\n",
           png.tmp, path, rn, bn, rn);
  return run_gnuplot(script, &png);
}

bool sched_plot(const char *dir, const bal_sched_result *run, const bal_sched_result *base,
                const char *run_name, const char *base_name) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "%s: --plot %s: %s\n", SCHED_PROG, dir, strerror(errno));
    return false;
  }
  /* run_gnuplot has said what failed. */
  return heatmaps(dir, run, base, run_name, base_name) &&
         per_day(dir, run, base, run_name, base_name);
}
