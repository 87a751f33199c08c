/* --plot: each rank's useful and MPI time in one region, stacked bars
 * (gnuplot, tools/common/gnuplot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/output.h"
#include "pop_tool.h"

bool pop_plot(const char *png, const pop_report *r, int region) {
  char dir[4096];
  if (!cli_temp_template(dir, sizeof dir, "ballast-pop") || mkdtemp(dir) == NULL) {
    fprintf(stderr, POP_PROG ": --plot: cannot create a temporary directory\n");
    return false;
  }
  char dat[4200];
  snprintf(dat, sizeof dat, "%s/ranks.dat", dir);
  FILE *f = fopen(dat, "w");
  bool ok = f != NULL;
  const pop_region *g = &r->region[region];
  for (int k = 0; ok && k < r->ranks; k++)
    fprintf(f, "%d %.9f %.9f\n", k, g->rank[k].useful_s, g->rank[k].mpi_s);
  if (f && fclose(f) != 0) ok = false;
  out_file o;
  if (ok && (ok = out_reserve(&o, POP_PROG, "--plot", png))) {
    FILE *gp = gnuplot_open(POP_PROG, "--plot");
    if (gp == NULL) {
      out_discard(&o);
      ok = false;
    } else {
      fprintf(gp, "set terminal pngcairo size 900,500\nset output ");
      gnuplot_string(gp, o.tmp);
      fprintf(gp, "\nset title ");
      char title[256];
      snprintf(title, sizeof title, "region %s: LB %.3f, CE %.3f, PE %.3f", g->name,
               g->fig.load_balance, g->fig.communication_efficiency, g->fig.parallel_efficiency);
      gnuplot_string(gp, title);
      fprintf(gp, "\nset style data histograms\nset style histogram rowstacked\n"
                  "set style fill solid 0.8 border -1\nset boxwidth 0.8\n"
                  "set xlabel 'rank'\nset ylabel 'seconds'\nset key outside right\n"
                  "set yrange [0:*]\nplot ");
      gnuplot_string(gp, dat);
      fprintf(gp, " using 2:xtic(1) title 'useful', '' using 3 title 'MPI'\n");
      ok = gnuplot_close(gp, POP_PROG, "--plot") && out_commit(&o);
      if (!ok) out_discard(&o);
    }
  }
  unlink(dat);
  rmdir(dir);
  return ok;
}
