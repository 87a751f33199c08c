/* The POP table (table.h). */
#include "table.h"

#include <math.h>

static void cell(FILE *f, double x, const char *fmt) {
  if (isnan(x))
    fprintf(f, " %8s", "n/a");
  else
    fprintf(f, fmt, x);
}

void pop_table_print(FILE *f, int regions, const char *const *names, const bal_pop_figures *fig) {
  fprintf(f, "%-20s %5s %5s %10s %10s %10s %8s %8s %8s %8s %8s\n", "region", "ranks", "nodes",
          "elapsed_s", "useful_avg", "useful_max", "LB", "LB_in", "LB_out", "CE", "PE");
  for (int i = 0; i < regions; i++) {
    const bal_pop_figures *g = &fig[i];
    fprintf(f, "%-20s %5d %5d", names[i], g->ranks, g->nodes);
    fprintf(f, " %10.4f %10.4f %10.4f", g->elapsed_s, g->useful_avg_s, g->useful_max_s);
    cell(f, g->load_balance, " %8.4f");
    cell(f, g->load_balance_in, " %8.4f");
    cell(f, g->load_balance_out, " %8.4f");
    cell(f, g->communication_efficiency, " %8.4f");
    cell(f, g->parallel_efficiency, " %8.4f");
    fputc('\n', f);
  }
}
