/* The SOR (Gauss-Seidel with over-relaxation) kernel of the pipelined
 * example: a row-major grid of `rows` rows of `cols + 2` doubles, whose
 * first and last columns are fixed boundary values. */
#ifndef SOR_PIPELINE_SOR_H
#define SOR_PIPELINE_SOR_H

#include <stddef.h>

typedef struct sor_grid {
  int rows;      /* rows, halo or boundary rows included */
  int cols;      /* interior columns (the pipelined loop's iterations) */
  double *v;     /* rows * (cols + 2) values */
} sor_grid;

/* Value at row i, interior column j (0-based; j = -1 and j = cols are the
 * boundary columns). */
static inline double *sor_at(const sor_grid *g, int i, int j) {
  return g->v + (size_t)i * (size_t)(g->cols + 2) + (size_t)(j + 1);
}

/* Allocate a zeroed grid; returns 0, or -1 when out of memory. */
int sor_grid_alloc(sor_grid *g, int rows, int cols);
void sor_grid_free(sor_grid *g);

/* Initial value of global row i (0 and n + 1 are the fixed boundary rows
 * of an n-row interior), column j: a deterministic, uneven field so that
 * a wrong update order changes the result. */
double sor_initial(int i, int j, int n, int cols);

/* Update rows [r0, r1) over columns [c0, c1) in lexicographic order
 * (rows outer). Row r0 - 1 must hold this sweep's values, row r1 the
 * previous sweep's: exactly what a sequential sweep sees, so a pipeline of
 * such blocks gives the sequential result bit for bit. */
void sor_block(sor_grid *g, double omega, int r0, int r1, int c0, int c1);

/* Sum of the interior values, as a printable fingerprint of a grid. */
double sor_checksum(const sor_grid *g, int r0, int r1);

#endif
