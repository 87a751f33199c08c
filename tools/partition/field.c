/* What the readers share: telling a grid from points, the message naming
 * the file and place, and the number syntax of a weight or coordinate. */
#include <errno.h>
#include <math.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "field.h"
#include "field_internal.h"

void part_field_free(part_field *f) {
  free(f->weight);
  free(f->coord);
  memset(f, 0, sizeof *f);
}

void part_domain(const part_field *f, double lo[3], double hi[3]) {
  for (int d = 0; d < 3; d++) lo[d] = hi[d] = 0.0;
  if (f->grid) {
    for (int d = 0; d < f->dims; d++) hi[d] = (double)f->n[d];
    return;
  }
  for (int d = 0; d < f->dims; d++) lo[d] = hi[d] = f->coord[d];
  for (int64_t i = 1; i < f->items; i++)
    for (int d = 0; d < f->dims; d++) {
      double x = f->coord[i * f->dims + d];
      lo[d] = fmin(lo[d], x);
      hi[d] = fmax(hi[d], x);
    }
}

bool part_bad(const char *path, const char *unit, int64_t where, const char *fmt, ...) {
  char msg[512], q[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (unit)
    fprintf(stderr, PART_PROG ": %s: %s %lld: %s\n", cli_quote(path, q, sizeof q), unit,
            (long long)where, msg);
  else fprintf(stderr, PART_PROG ": %s: %s\n", cli_quote(path, q, sizeof q), msg);
  return false;
}

bool part_number(const char *text, bool weight, double *out, char *err, size_t n) {
  double v;
  if (!cli_double_text(text, -DBL_MAX, DBL_MAX, false, false, &v, err, n)) return false;
  if (weight && v < 0) {
    snprintf(err, n, "%s is negative (weights are >= 0)", text);
    return false;
  }
  *out = v;
  return true;
}

bool part_field_read(const char *path, part_field *f) {
  FILE *in = fopen(path, "rb");
  if (in == NULL) return part_bad(path, NULL, 0, "%s", strerror(errno));
  char head[sizeof PART_GRID_MAGIC];
  size_t got = fread(head, 1, sizeof head - 1, in);
  fclose(in);
  head[got] = '\0';
  if (strcmp(head, PART_GRID_MAGIC) == 0) return part_grid_read(path, f);
  return part_points_read(path, f);
}
