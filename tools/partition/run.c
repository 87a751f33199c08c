/* The items handed to bal_partition_compute() and the figures of its
 * result: the library's grid quality for grids, the tool's own halo for
 * points (points_halo.c), bal_partition_moved() against --from. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "core/clock.h"
#include "partition_tool.h"

void part_result_free(part_result *r) {
  free(r->part);
  free(r->from);
  memset(r, 0, sizeof *r);
}

/* Cell centres, x fastest: a cell (i, j, k) is the unit box at (i, j, k). */
static double *cell_centres(const part_field *f) {
  double *c = malloc((size_t)f->items * (size_t)f->dims * sizeof *c);
  if (c == NULL) return NULL;
  int64_t i = 0;
  for (int64_t z = 0; z < f->n[2]; z++)
    for (int64_t y = 0; y < f->n[1]; y++)
      for (int64_t x = 0; x < f->n[0]; x++, i++) {
        double *p = c + i * f->dims;
        p[0] = (double)x + 0.5;
        p[1] = (double)y + 0.5;
        if (f->dims == 3) p[2] = (double)z + 0.5;
      }
  return c;
}

/* Imbalance and empty parts of points, which bal_partition_grid_quality()
 * does not take. */
static bool points_balance(const part_field *f, int parts, part_result *r) {
  double *sum = calloc((size_t)parts, sizeof *sum);
  int64_t *count = calloc((size_t)parts, sizeof *count);
  bool ok = sum && count;
  if (ok) {
    double total = 0.0, max = 0.0;
    for (int64_t i = 0; i < f->items; i++) {
      sum[r->part[i]] += f->weight[i];
      count[r->part[i]]++;
      total += f->weight[i];
    }
    for (int k = 0; k < parts; k++) {
      max = fmax(max, sum[k]);
      r->empty_parts += count[k] == 0;
    }
    r->max_weight = max;
    r->avg_weight = total / parts;
    r->imbalance = total > 0.0 ? max / r->avg_weight : NAN;
  } else fprintf(stderr, PART_PROG ": out of memory\n");
  free(sum);
  free(count);
  return ok;
}

static int measure(const part_opts *o, const part_field *f, part_result *r) {
  int parts = (int)o->parts;
  if (f->grid) {
    bal_partition_quality q;
    int rc = bal_partition_grid_quality(f->dims, f->n, f->items, f->weight, parts, r->part, &q);
    if (rc != BAL_OK) {
      fprintf(stderr, PART_PROG ": grid quality: %s\n", bal_strerror(rc));
      return 1;
    }
    r->imbalance = q.imbalance;
    r->max_weight = q.max_weight;
    r->avg_weight = q.avg_weight;
    r->halo = q.halo_faces;
    r->neighbors_max = q.neighbors_max;
    r->neighbors_avg = q.neighbors_avg;
    r->empty_parts = q.empty_parts;
  } else if (!points_balance(f, parts, r) || !part_points_halo(f, parts, o->cutoff, r)) {
    return 1;
  }
  r->total_weight = 0.0;
  for (int64_t i = 0; i < f->items; i++) r->total_weight += f->weight[i];
  r->moved_items = -1;
  r->moved_weight = NAN;
  if (r->from) {
    int rc = bal_partition_moved(f->items, f->weight, r->from, r->part, &r->moved_items,
                                 &r->moved_weight);
    if (rc != BAL_OK) {
      fprintf(stderr, PART_PROG ": moved items: %s\n", bal_strerror(rc));
      return 1;
    }
  }
  return 0;
}

int part_run(const part_opts *o, const part_field *f, part_result *r) {
  memset(r, 0, sizeof *r);
  if (o->parts > f->items)
    return cli_usage_error(PART_PROG, "--parts: %lld parts for %lld %s", (long long)o->parts,
                           (long long)f->items, f->grid ? "cells" : "points");
  if (f->dims == 2 && o->grid[2] > 1)
    return cli_usage_error(PART_PROG, "--grid-dims: three dimensions for a 2-D input");
  if (f->dims == 3 && o->grid[0] && !o->grid[2])
    return cli_usage_error(PART_PROG, "--grid-dims: two dimensions for a 3-D input");
  if (f->grid && o->cutoff > 0)
    return cli_usage_error(PART_PROG, "--cutoff: only for points (the input is a grid)");
  if (o->from && !part_assign_read(o->from, f->items, (int)o->parts, &r->from, &r->from_parts))
    return 1;
  bal_partition_input in = {.dim = f->dims, .n = f->items, .weights = f->weight, .from = r->from};
  part_domain(f, in.lo, in.hi);
  double *centres = NULL;
  if (f->grid && !(centres = cell_centres(f))) {
    fprintf(stderr, PART_PROG ": out of memory for %lld cells\n", (long long)f->items);
    return 1;
  }
  in.coords = f->grid ? centres : f->coord;
  bal_partition_config cfg;
  bal_partition_config_init(&cfg);
  cfg.method = o->method;
  cfg.parts = (int)o->parts;
  memcpy(cfg.grid, o->grid, sizeof cfg.grid);
  r->part = malloc((size_t)f->items * sizeof *r->part);
  if (r->part == NULL) {
    free(centres);
    fprintf(stderr, PART_PROG ": out of memory for %lld items\n", (long long)f->items);
    return 1;
  }
  int64_t t0 = bal__now_ns();
  int rc = bal_partition_compute(&in, &cfg, NULL, r->part, NULL);
  r->seconds = (double)(bal__now_ns() - t0) * 1e-9;
  free(centres);
  if (rc != BAL_OK) {
    fprintf(stderr, PART_PROG ": %s into %lld parts: %s\n", o->method, (long long)o->parts,
            bal_strerror(rc));
    return 1;
  }
  return measure(o, f, r);
}
