/* The inputs of `ballast partition` (docs/partition.md, "File formats"):
 * a weight grid (a header line, then CSV or raw little-endian floats) or
 * points (CSV x,y[,z],w), and an assignment (one part per item) that
 * --out writes and --from reads back. Every reader either fills its
 * result or prints "ballast-partition: FILE: line N: why" (or "byte N"
 * for raw data) on stderr, frees what it had read and returns false. */
#ifndef BALLAST_PARTITION_FIELD_H
#define BALLAST_PARTITION_FIELD_H

#include <stdbool.h>
#include <stdint.h>

#define PART_PROG "ballast-partition"

/* The most items (cells or points) an input may hold: 2^30, 8 GiB of
 * weights, beyond what the tool is meant for on one node. */
#define PART_MAX_ITEMS ((int64_t)1 << 30)

/* The first word of a grid file's header line, and of an assignment's. */
#define PART_GRID_MAGIC "ballast-grid"
#define PART_ASSIGN_MAGIC "ballast-parts"

typedef struct part_field {
  bool grid;      /* a grid of cells (else points) */
  int dims;       /* 2 or 3 */
  int64_t n[3];   /* grid: cells along x, y, z (n[2] = 1 in 2-D) */
  int64_t items;  /* cells (x fastest, then y, then z) or points, in file order */
  double *weight; /* items of them, finite and >= 0 */
  double *coord;  /* points: dims coordinates per item; NULL for a grid */
} part_field;

/* Read a weight grid (grid_read.c). */
bool part_grid_read(const char *path, part_field *f);

/* Read points x,y,w or x,y,z,w, one per line (points_read.c). */
bool part_points_read(const char *path, part_field *f);

/* Read `path` as a grid when its first line starts with PART_GRID_MAGIC,
 * else as points. */
bool part_field_read(const char *path, part_field *f);

void part_field_free(part_field *f);

/* The bounding box of the points, or the grid's box [0, n[d]] (a cell
 * (i, j, k) is the unit box at (i, j, k)); unused dimensions 0. */
void part_domain(const part_field *f, double lo[3], double hi[3]);

/* Read an assignment (assign_io.c): it must have `items` entries, each a
 * part number in [0, its header's part count), which is at most
 * max_parts. *part gets a malloc'd array, *parts that count. */
bool part_assign_read(const char *path, int64_t items, int max_parts, int **part, int *parts);

/* Write an assignment whole or not at all (output.h), for `flag`. */
bool part_assign_write(const char *path, const char *flag, const int *part, int64_t items,
                       int parts);

#endif
