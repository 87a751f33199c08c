/* Points: one per line, "x,y,w" (2-D) or "x,y,z,w" (3-D), the dimension
 * set by the first point and kept by every other; lines starting with
 * '#' are comments. Coordinates are finite, weights finite and >= 0. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "field.h"
#include "field_internal.h"

/* Make room for one more point. */
static bool grow(part_field *f, int64_t *cap) {
  if (f->items < *cap) return true;
  int64_t c = *cap ? *cap * 2 : 1024;
  double *w = realloc(f->weight, (size_t)c * sizeof *w);
  if (w) f->weight = w;
  double *x = w ? realloc(f->coord, (size_t)c * 3 * sizeof *x) : NULL;
  if (x) f->coord = x;
  if (!w || !x) return false;
  *cap = c;
  return true;
}

static const char *const axis[] = {"x", "y", "z"};

/* One line (without its newline) into point f->items. */
static bool point(const char *path, long long line, char *text, part_field *f) {
  int fields = 1;
  for (const char *c = text; *c; c++) fields += *c == ',';
  if (fields != 3 && fields != 4)
    return part_bad(path, "line", line, "%d fields: expected x,y,w or x,y,z,w", fields);
  if (f->dims == 0) f->dims = fields - 1;
  else if (fields - 1 != f->dims)
    return part_bad(path, "line", line, "%d fields, the first point has %d", fields,
                    f->dims + 1);
  char *p = text;
  for (int k = 0; k < fields; k++) {
    char *end = strchr(p, ',');
    if (end) *end = '\0';
    bool weight = k == fields - 1;
    double v;
    char err[160];
    if (!part_number(p, weight, &v, err, sizeof err))
      return part_bad(path, "line", line, "%s: %s", weight ? "weight" : axis[k], err);
    if (weight) f->weight[f->items] = v;
    else f->coord[f->items * f->dims + k] = v;
    if (end) p = end + 1;
  }
  return true;
}

bool part_points_read(const char *path, part_field *f) {
  memset(f, 0, sizeof *f);
  FILE *in = fopen(path, "r");
  if (in == NULL) return part_bad(path, NULL, 0, "%s", strerror(errno));
  char *buf = NULL;
  size_t bufcap = 0;
  int64_t cap = 0;
  long long line = 0;
  ssize_t len;
  bool ok = true;
  while (ok && (len = getline(&buf, &bufcap, in)) >= 0) {
    line++;
    if (len > 0 && buf[len - 1] == '\n') buf[--len] = '\0';
    if (len > 0 && buf[len - 1] == '\r') buf[--len] = '\0';
    if (buf[0] == '#') continue;
    if (f->items == PART_MAX_ITEMS)
      ok = part_bad(path, "line", line, "more than %lld points", (long long)PART_MAX_ITEMS);
    else if (!grow(f, &cap))
      ok = part_bad(path, "line", line, "out of memory");
    else if ((ok = point(path, line, buf, f)))
      f->items++;
  }
  if (ok && ferror(in)) ok = part_bad(path, NULL, 0, "read error (%s)", strerror(errno));
  if (ok && f->items == 0) ok = part_bad(path, NULL, 0, "no points (expected lines x,y,w or x,y,z,w)");
  free(buf);
  fclose(in);
  if (!ok) part_field_free(f);
  return ok;
}
