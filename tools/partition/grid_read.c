/* A weight grid: the header line
 *   ballast-grid NX NY [NZ] ENCODING
 * (single spaces; ENCODING csv, f32le or f64le), then the NX*NY*NZ
 * weights, x fastest, then y, then z: as NY*NZ lines of NX comma-separated
 * numbers (csv), or as raw little-endian IEEE floats right after the
 * header's newline (f32le, f64le), the file's size then being exactly the
 * header plus 4 or 8 bytes a cell. docs/partition.md has the examples. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cli.h"
#include "field.h"
#include "field_internal.h"

#define HEADER_MAX 256

typedef enum { ENC_CSV, ENC_F32, ENC_F64 } encoding;

/* The header line (without its newline) into f->dims, f->n and *enc. */
static bool header(const char *path, char *line, part_field *f, encoding *enc) {
  char *word[6];
  int words = 0;
  for (char *save = NULL, *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    if (words == 6) break;
    word[words++] = w;
  }
  if (words < 4 || words > 5 || strcmp(word[0], PART_GRID_MAGIC) != 0)
    return part_bad(path, "line", 1,
                    "expected '" PART_GRID_MAGIC " NX NY [NZ] csv|f32le|f64le'");
  const char *e = word[words - 1];
  if (strcmp(e, "csv") == 0) *enc = ENC_CSV;
  else if (strcmp(e, "f32le") == 0) *enc = ENC_F32;
  else if (strcmp(e, "f64le") == 0) *enc = ENC_F64;
  else {
    char q[64];
    return part_bad(path, "line", 1, "encoding '%s': expected csv, f32le or f64le",
                    cli_quote(e, q, sizeof q));
  }
  f->dims = words - 2;
  f->n[2] = 1;
  int64_t cells = 1;
  for (int d = 0; d < f->dims; d++) {
    char err[128];
    if (!cli_int_text(word[1 + d], 1, PART_MAX_ITEMS, &f->n[d], err, sizeof err))
      return part_bad(path, "line", 1, "%c size: %s", "xyz"[d], err);
    if (f->n[d] > PART_MAX_ITEMS / cells)
      return part_bad(path, "line", 1, "more than %lld cells", (long long)PART_MAX_ITEMS);
    cells *= f->n[d];
  }
  f->items = cells;
  return true;
}

static double le_value(const unsigned char *b, encoding enc) {
  uint64_t u = 0;
  int size = enc == ENC_F32 ? 4 : 8;
  for (int i = size - 1; i >= 0; i--) u = u << 8 | b[i];
  if (enc == ENC_F64) {
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
  }
  uint32_t u32 = (uint32_t)u;
  float x;
  memcpy(&x, &u32, sizeof x);
  return x;
}

static bool raw_body(const char *path, FILE *in, long start, part_field *f, encoding enc) {
  size_t size = enc == ENC_F32 ? 4 : 8;
  struct stat st;
  if (fstat(fileno(in), &st) != 0) return part_bad(path, NULL, 0, "%s", strerror(errno));
  long long want = (long long)start + (long long)size * f->items;
  if (!S_ISREG(st.st_mode) || (long long)st.st_size != want)
    return part_bad(path, NULL, 0,
                    "the header says %lld cells of %zu bytes (%lld bytes in all), the file has "
                    "%lld bytes",
                    (long long)f->items, size, want, (long long)st.st_size);
  unsigned char buf[8 << 10];
  int64_t i = 0;
  while (i < f->items) {
    size_t chunk = sizeof buf / size;
    if ((int64_t)chunk > f->items - i) chunk = (size_t)(f->items - i);
    if (fread(buf, size, chunk, in) != chunk)
      return part_bad(path, "byte", start + (long long)(i * (int64_t)size), "read error (%s)",
                      ferror(in) ? strerror(errno) : "file shrank");
    for (size_t k = 0; k < chunk; k++, i++) {
      double w = le_value(buf + k * size, enc);
      if (!isfinite(w) || w < 0)
        return part_bad(path, "byte", start + (long long)(i * (int64_t)size),
                        "weight %g: expected a finite number >= 0", w);
      f->weight[i] = w;
    }
  }
  return true;
}

static bool csv_body(const char *path, FILE *in, part_field *f) {
  int64_t rows = f->n[1] * f->n[2], row = 0;
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  bool ok = true;
  while (ok && (len = getline(&buf, &cap, in)) >= 0) {
    long long line = row + 2;
    if (len > 0 && buf[len - 1] == '\n') buf[--len] = '\0';
    if (len > 0 && buf[len - 1] == '\r') buf[--len] = '\0';
    if (row == rows) {
      ok = part_bad(path, "line", line, "more than the header's %lld rows", (long long)rows);
      break;
    }
    int64_t values = 1;
    for (const char *c = buf; *c; c++) values += *c == ',';
    if (values != f->n[0]) {
      ok = part_bad(path, "line", line, "%lld values, the header says %lld", (long long)values,
                    (long long)f->n[0]);
      break;
    }
    char *p = buf;
    for (int64_t x = 0; ok && x < f->n[0]; x++) {
      char *end = strchr(p, ',');
      if (end) *end = '\0';
      char err[160];
      if (!part_number(p, true, &f->weight[row * f->n[0] + x], err, sizeof err))
        ok = part_bad(path, "line", line, "value %lld: %s", (long long)x + 1, err);
      if (end) p = end + 1;
    }
    row++;
  }
  if (ok && ferror(in)) ok = part_bad(path, NULL, 0, "read error (%s)", strerror(errno));
  if (ok && row < rows)
    ok = part_bad(path, "line", row + 2, "the file ends after %lld rows, the header says %lld",
                  (long long)row, (long long)rows);
  free(buf);
  return ok;
}

bool part_grid_read(const char *path, part_field *f) {
  memset(f, 0, sizeof *f);
  FILE *in = fopen(path, "rb");
  if (in == NULL) return part_bad(path, NULL, 0, "%s", strerror(errno));
  char line[HEADER_MAX + 2];
  encoding enc = ENC_CSV;
  bool ok;
  if (!fgets(line, sizeof line, in)) ok = part_bad(path, "line", 1, "no header line");
  else if (!strchr(line, '\n')) ok = part_bad(path, "line", 1, "header line longer than %d bytes", HEADER_MAX);
  else {
    *strchr(line, '\n') = '\0';
    ok = header(path, line, f, &enc);
  }
  if (ok) {
    f->grid = true;
    f->weight = malloc((size_t)f->items * sizeof *f->weight);
    if (f->weight == NULL) ok = part_bad(path, NULL, 0, "out of memory for %lld cells", (long long)f->items);
  }
  if (ok) ok = enc == ENC_CSV ? csv_body(path, in, f) : raw_body(path, in, ftell(in), f, enc);
  fclose(in);
  if (!ok) part_field_free(f);
  return ok;
}
