#include "plot.h"

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Shortcut-length bin b covers [2^b, 2^(b+1)), clipped at the largest ring
 * distance N/2: its width and its geometric middle. */
static double bin_width(int b, int64_t nodes) {
  double lo = ldexp(1, b), hi = fmin(ldexp(1, b + 1), (double)(nodes / 2) + 1);
  return hi - lo;
}
static double bin_middle(int b, int64_t nodes) {
  double lo = ldexp(1, b);
  return sqrt(lo * (lo + bin_width(b, nodes) - 1));
}

static bool write_data(const char *dir, const ov_stats *st, int64_t nodes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/hops.dat", dir);
  FILE *f = fopen(path, "w");
  if (!f) return false;
  for (int h = 0; h < OV_MAX_HOPS_HIST; h++)
    if (st->hop_hist[h]) fprintf(f, "%d %.9g\n", h, (double)st->hop_hist[h] / (double)st->pairs);
  fclose(f);
  snprintf(path, sizeof path, "%s/lengths.dat", dir);
  if (!(f = fopen(path, "w"))) return false;
  int64_t total = 0;
  for (int b = 0; b < OV_LEN_BINS; b++) total += st->len_hist[b];
  /* density per unit length */
  for (int b = 1; b < OV_LEN_BINS; b++)
    if (st->len_hist[b])
      fprintf(f, "%.9g %.9g\n", bin_middle(b, nodes),
              (double)st->len_hist[b] / (double)total / bin_width(b, nodes));
  fclose(f);
  return true;
}

static bool has_lengths(const ov_stats *st) {
  for (int b = 1; b < OV_LEN_BINS; b++)
    if (st->len_hist[b]) return true;
  return false;
}

/* a in a * d^-exponent fitted to the length densities (least squares in
 * log space with the slope fixed), for the reference line. */
static double reference_scale(const ov_stats *st, double exponent, int64_t nodes) {
  int64_t total = 0;
  for (int b = 0; b < OV_LEN_BINS; b++) total += st->len_hist[b];
  double sum = 0;
  int k = 0;
  for (int b = 1; b < OV_LEN_BINS; b++)
    if (st->len_hist[b]) {
      double x = bin_middle(b, nodes);
      double y = (double)st->len_hist[b] / (double)total / bin_width(b, nodes);
      sum += log(y) + exponent * log(x);
      k++;
    }
  return k ? exp(sum / k) : 1.0;
}

/* Remove the data files and their directory. */
static void remove_data(const char *dir) {
  static const char *const files[] = {"hops.dat", "lengths.dat"};
  char path[4096];
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  rmdir(dir);
}

bool ov_plot(const char *png, const ov_stats *st, int64_t nodes, int degree, double exponent) {
  char dir[1024];
  if (!cli_temp_template(dir, sizeof dir, "ballast-overlay-plot") || !mkdtemp(dir)) {
    fprintf(stderr, "ballast-overlay: --plot: cannot create a temporary directory: %s\n",
            strerror(errno));
    return false;
  }
  out_file out;
  if (!write_data(dir, st, nodes)) {
    fprintf(stderr, "ballast-overlay: --plot: cannot write the plot data in %s\n", dir);
    remove_data(dir);
    return false;
  }
  if (!out_reserve(&out, "ballast-overlay", "--plot", png)) {
    remove_data(dir);
    return false;
  }
  FILE *f = gnuplot_open("ballast-overlay", "--plot");
  if (!f) {
    out_discard(&out);
    remove_data(dir);
    return false;
  }
  fprintf(f,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 1200,500 noenhanced\n"
          "} else {\n"
          "  set terminal png size 1200,500 noenhanced\n"
          "}\n"
          "set output ");
  gnuplot_string(f, out.tmp);
  fprintf(f, "\n"
          "set multiplot layout 1,2 title 'ballast overlay: N = %lld, degree %d, exponent %g'\n"
          "set title 'route length over %lld random pairs'\n"
          "set xlabel 'hops'\nset ylabel 'fraction of pairs'\n"
          "set style fill solid 0.6\nset boxwidth 0.8\nset xtics 1\nset yrange [0:*]\n"
          "set xrange [-0.5:%lld.5]\n",
          (long long)nodes, degree, exponent, (long long)st->pairs, (long long)st->max_hops);
  if (st->pairs > 0)
    fprintf(f, "plot '%s/hops.dat' using 1:2 with boxes notitle\n", dir);
  else
    fprintf(f, "set yrange [0:1]\nset label 1 'no pairs routed' at graph 0.5,0.5 center\n"
               "plot -1 notitle\nunset label 1\n");
  fprintf(f, "set title 'shortcut lengths (ring distance >= 2)'\n"
             "set xlabel 'ring distance d'\nset ylabel 'probability density'\n");
  if (has_lengths(st))
    fprintf(f,
            "set logscale xy\nset xtics auto\nset autoscale x\nset yrange [*:*]\n"
            "set format y '%%.0e'\n"
            "plot '%s/lengths.dat' using 1:2 with linespoints pt 7 title 'measured', "
            "%.9g * x**(-%g) with lines dt 2 title 'd^-%g'\n",
            dir, reference_scale(st, exponent, nodes), exponent, exponent);
  else /* ring-only or complete graphs: nothing to draw */
    fprintf(f, "set xrange [0:1]\nset yrange [0:1]\nunset xtics\nunset ytics\n"
               "set label 1 'no shortcuts longer than 1' at graph 0.5,0.5 center\n"
               "plot -1 notitle\n");
  fprintf(f, "unset multiplot\n");
  bool ok = gnuplot_close(f, "ballast-overlay", "--plot");
  remove_data(dir);
  if (!ok) out_discard(&out);
  return ok && out_commit(&out);
}
