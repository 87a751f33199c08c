/* The SOR kernel (see sor.h). */
#include "sor.h"

#include <stdlib.h>

int sor_grid_alloc(sor_grid *g, int rows, int cols) {
  g->rows = rows;
  g->cols = cols;
  g->v = calloc((size_t)rows * (size_t)(cols + 2), sizeof *g->v);
  return g->v ? 0 : -1;
}

void sor_grid_free(sor_grid *g) {
  free(g->v);
  g->v = NULL;
}

double sor_initial(int i, int j, int n, int cols) {
  if (i == 0) return 1.0;            /* hot top edge */
  if (i == n + 1 || j < 0 || j == cols) return 0.0;
  /* A bumpy interior: every point differs from its neighbours. */
  return (double)((i * 31 + j * 17) % 13) / 13.0;
}

void sor_block(sor_grid *g, double omega, int r0, int r1, int c0, int c1) {
  for (int i = r0; i < r1; i++) {
    double *up = sor_at(g, i - 1, 0), *row = sor_at(g, i, 0), *down = sor_at(g, i + 1, 0);
    for (int j = c0; j < c1; j++) {
      double gs = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
      row[j] += omega * (gs - row[j]);
    }
  }
}

double sor_checksum(const sor_grid *g, int r0, int r1) {
  double s = 0.0;
  for (int i = r0; i < r1; i++)
    for (int j = 0; j < g->cols; j++) s += *sor_at(g, i, j);
  return s;
}
