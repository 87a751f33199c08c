/* ballast-partition's outputs: the table and --json (partition_tool.h). */
#include <math.h>
#include <stdio.h>

#include "common/cli.h"
#include "common/json.h"
#include "partition_tool.h"

static void shape(const part_field *f, char *buf, size_t n) {
  if (!f->grid) snprintf(buf, n, "%lld %d-D points", (long long)f->items, f->dims);
  else if (f->dims == 2)
    snprintf(buf, n, "%lldx%lld cells", (long long)f->n[0], (long long)f->n[1]);
  else
    snprintf(buf, n, "%lldx%lldx%lld cells", (long long)f->n[0], (long long)f->n[1],
             (long long)f->n[2]);
}

void part_print_table(const part_opts *o, const part_field *f, const part_result *r) {
  char s[96];
  shape(f, s, sizeof s);
  printf("%s into %lld parts by %s\n", s, (long long)o->parts, o->method);
  if (isnan(r->imbalance)) printf("%-26s %s\n", "imbalance (max/avg)", "n/a");
  else printf("%-26s %.4f\n", "imbalance (max/avg)", r->imbalance);
  if (f->grid) printf("%-26s %lld\n", "halo (cut faces)", (long long)r->halo);
  else printf("%-26s %lld (points with a point of another part within %g)\n", "halo (points)",
              (long long)r->halo, r->cutoff);
  printf("%-26s max %d, avg %.2f\n", "neighbours per part", r->neighbors_max, r->neighbors_avg);
  if (r->empty_parts) printf("%-26s %d\n", "empty parts", r->empty_parts);
  if (r->from)
    printf("%-26s %lld items (%.2f%% of the weight)\n", "moved from --from",
           (long long)r->moved_items,
           r->total_weight > 0 ? 100.0 * r->moved_weight / r->total_weight : 0.0);
  printf("%-26s %.6f s\n", "time (partition call)", r->seconds);
  if (isnan(r->imbalance))
    fprintf(stderr, PART_PROG ": warning: the total weight is 0, there is no balance to measure\n");
}

bool part_print_json(const part_opts *o, const part_field *f, const part_result *r) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "input", o->input);
  json_string(&j, "kind", f->grid ? "grid" : "points");
  json_int(&j, "dims", f->dims);
  if (f->grid) {
    json_array_begin(&j, "cells");
    for (int d = 0; d < f->dims; d++) json_int(&j, NULL, f->n[d]);
    json_array_end(&j);
  }
  json_int(&j, "items", f->items);
  json_string(&j, "method", o->method);
  json_int(&j, "parts", o->parts);
  if (o->grid[0]) {
    json_array_begin(&j, "grid_dims");
    for (int d = 0; d < 3 && o->grid[d]; d++) json_int(&j, NULL, o->grid[d]);
    json_array_end(&j);
  } else json_string(&j, "grid_dims", NULL);
  json_string(&j, "from", o->from);
  json_string(&j, "out", o->out);
  json_string(&j, "plot", o->plot);
  json_double(&j, "total_weight", r->total_weight);
  json_double(&j, "imbalance", r->imbalance);
  json_double(&j, "max_weight", r->max_weight);
  json_double(&j, "avg_weight", r->avg_weight);
  json_string(&j, "halo_measure", f->grid ? "cut_faces" : "points_within_cutoff");
  json_int(&j, "halo", r->halo);
  json_double(&j, "cutoff", f->grid ? NAN : r->cutoff);
  json_int(&j, "neighbors_max", r->neighbors_max);
  json_double(&j, "neighbors_avg", r->neighbors_avg);
  json_int(&j, "empty_parts", r->empty_parts);
  if (r->from) {
    json_int(&j, "moved_items", r->moved_items);
    json_double(&j, "moved_weight", r->moved_weight);
  } else {
    json_string(&j, "moved_items", NULL);
    json_string(&j, "moved_weight", NULL);
  }
  json_double(&j, "seconds", r->seconds);
  json_object_end(&j);
  if (!json_finish(&j)) {
    cli_output_failed("--json");
    return false;
  }
  if (isnan(r->imbalance))
    fprintf(stderr, PART_PROG ": warning: the total weight is 0, there is no balance to measure\n");
  return true;
}
