/* --plot: the parts over the field (gnuplot, tools/common/gnuplot.h). A
 * grid is drawn as an image of its weights with the boundaries between
 * parts as white lines (3-D: the middle z slice); points as dots coloured
 * by part (3-D: those in the middle tenth of the z extent). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/output.h"
#include "partition_tool.h"

/* The weights of slice z as a matrix (a row of x per line), and the
 * boundaries of its parts as segments. */
static bool grid_data(FILE *w, FILE *seg, const part_field *f, const int *part) {
  int64_t nx = f->n[0], ny = f->n[1], z = f->n[2] / 2, base = z * nx * ny;
  for (int64_t y = 0; y < ny; y++)
    for (int64_t x = 0; x < nx; x++) {
      int64_t i = base + y * nx + x;
      fprintf(w, "%.6g%c", f->weight[i], x + 1 < nx ? ' ' : '\n');
      if (x + 1 < nx && part[i] != part[i + 1])
        fprintf(seg, "%lld %lld\n%lld %lld\n\n", (long long)x + 1, (long long)y,
                (long long)x + 1, (long long)y + 1);
      if (y + 1 < ny && part[i] != part[i + nx])
        fprintf(seg, "%lld %lld\n%lld %lld\n\n", (long long)x, (long long)y + 1,
                (long long)x + 1, (long long)y + 1);
    }
  /* gnuplot refuses a file with no points: one segment of length 0 */
  fprintf(seg, "0 0\n0 0\n");
  return !ferror(w) && !ferror(seg);
}

/* x y colour of the points drawn; the colour spreads consecutive part
 * numbers (often adjacent parts) over the palette. */
static bool points_data(FILE *p, const part_field *f, const int *part) {
  double lo[3], hi[3];
  part_domain(f, lo, hi);
  double zmid = 0.5 * (lo[2] + hi[2]), half = 0.05 * (hi[2] - lo[2]);
  int64_t drawn = 0;
  for (int64_t i = 0; i < f->items; i++) {
    const double *c = f->coord + i * f->dims;
    if (f->dims == 3 && fabs(c[2] - zmid) > half) continue;
    double colour = fmod(part[i] * 0.6180339887, 1.0);
    fprintf(p, "%.9g %.9g %.4f\n", c[0], c[1], colour);
    drawn++;
  }
  if (drawn == 0) fprintf(p, "%.9g %.9g 0\n", f->coord[0], f->coord[1]);
  return !ferror(p);
}

static void script(FILE *gp, const out_file *o, const part_opts *opt, const part_field *f,
                   const part_result *r, const char *a, const char *b) {
  fprintf(gp, "set terminal pngcairo size 900,800\nset output ");
  gnuplot_string(gp, o->tmp);
  char title[256];
  snprintf(title, sizeof title, "%s, %lld parts: imbalance %.3f, halo %lld%s", opt->method,
           (long long)opt->parts, r->imbalance, (long long)r->halo,
           f->dims == 3 ? (f->grid ? " (middle z slice)" : " (middle z tenth)") : "");
  fprintf(gp, "\nset title ");
  gnuplot_string(gp, title);
  fprintf(gp, "\nset size ratio -1\nset xlabel 'x'\nset ylabel 'y'\n");
  if (f->grid) {
    fprintf(gp, "set xrange [0:%lld]\nset yrange [0:%lld]\nset cblabel 'weight'\n"
                "set palette rgbformulae 7,5,15\nplot ",
            (long long)f->n[0], (long long)f->n[1]);
    gnuplot_string(gp, a);
    fprintf(gp, " matrix using ($1+0.5):($2+0.5):3 with image notitle, ");
    gnuplot_string(gp, b);
    fprintf(gp, " with lines lc rgb 'white' lw 1 notitle\n");
  } else {
    fprintf(gp, "set palette rgbformulae 33,13,10\nunset colorbox\nplot ");
    gnuplot_string(gp, a);
    fprintf(gp, " using 1:2:3 with dots lc palette notitle\n");
  }
}

bool part_plot(const char *png, const part_opts *opt, const part_field *f, const part_result *r) {
  char dir[4096];
  if (!cli_temp_template(dir, sizeof dir, "ballast-partition") || mkdtemp(dir) == NULL) {
    fprintf(stderr, PART_PROG ": --plot: cannot create a temporary directory\n");
    return false;
  }
  char a[4200], b[4200];
  snprintf(a, sizeof a, "%s/field.dat", dir);
  snprintf(b, sizeof b, "%s/bounds.dat", dir);
  FILE *fa = fopen(a, "w"), *fb = f->grid ? fopen(b, "w") : NULL;
  bool ok = fa && (!f->grid || fb);
  if (ok) ok = f->grid ? grid_data(fa, fb, f, r->part) : points_data(fa, f, r->part);
  if (fa && fclose(fa) != 0) ok = false;
  if (fb && fclose(fb) != 0) ok = false;
  if (!ok) fprintf(stderr, PART_PROG ": --plot: cannot write the data files in %s\n", dir);
  out_file o;
  if (ok && (ok = out_reserve(&o, PART_PROG, "--plot", png))) {
    FILE *gp = gnuplot_open(PART_PROG, "--plot");
    if (gp == NULL) {
      out_discard(&o);
      ok = false;
    } else {
      script(gp, &o, opt, f, r, a, b);
      ok = gnuplot_close(gp, PART_PROG, "--plot") && out_commit(&o);
      if (!ok) out_discard(&o);
    }
  }
  unlink(a);
  if (f->grid) unlink(b);
  rmdir(dir);
  return ok;
}
