/* The assignment of --out and --from: the header line
 *   ballast-parts ITEMS PARTS
 * then ITEMS lines, the part (0 to PARTS - 1) of each item in the input's
 * order (cells x fastest, or points as listed). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/output.h"
#include "field.h"
#include "field_internal.h"

bool part_assign_read(const char *path, int64_t items, int max_parts, int **part, int *parts) {
  FILE *in = fopen(path, "r");
  if (in == NULL) return part_bad(path, NULL, 0, "%s", strerror(errno));
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  long long line = 0;
  int64_t n = 0, p = 0, have = 0, v;
  int *out = NULL;
  bool ok = true;
  while (ok && (len = getline(&buf, &cap, in)) >= 0) {
    line++;
    if (len > 0 && buf[len - 1] == '\n') buf[--len] = '\0';
    char err[160];
    if (line == 1) {
      char *sp1 = strchr(buf, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
      if (strncmp(buf, PART_ASSIGN_MAGIC " ", sizeof PART_ASSIGN_MAGIC) != 0 || !sp2) {
        ok = part_bad(path, "line", 1, "expected '" PART_ASSIGN_MAGIC " ITEMS PARTS'");
        break;
      }
      *sp2 = '\0';
      if (!cli_int_text(sp1 + 1, 1, PART_MAX_ITEMS, &n, err, sizeof err))
        ok = part_bad(path, "line", 1, "ITEMS: %s", err);
      else if (!cli_int_text(sp2 + 1, 1, INT32_MAX, &p, err, sizeof err))
        ok = part_bad(path, "line", 1, "PARTS: %s", err);
      else if (p > max_parts)
        ok = part_bad(path, "line", 1, "%lld parts, more than the %d asked for", (long long)p,
                      max_parts);
      else if (n != items)
        ok = part_bad(path, "line", 1, "%lld items, the input has %lld", (long long)n,
                      (long long)items);
      else if (!(out = malloc((size_t)n * sizeof *out)))
        ok = part_bad(path, NULL, 0, "out of memory");
      continue;
    }
    if (have == n)
      ok = part_bad(path, "line", line, "more than the header's %lld items", (long long)n);
    else if (!cli_int_text(buf, 0, p - 1, &v, err, sizeof err))
      ok = part_bad(path, "line", line, "part: %s", err);
    else out[have++] = (int)v;
  }
  if (ok && ferror(in)) ok = part_bad(path, NULL, 0, "read error (%s)", strerror(errno));
  if (ok && line == 0) ok = part_bad(path, "line", 1, "empty file (expected '" PART_ASSIGN_MAGIC " ITEMS PARTS')");
  if (ok && have < n)
    ok = part_bad(path, "line", line + 1, "the file ends after %lld items, the header says %lld",
                  (long long)have, (long long)n);
  free(buf);
  fclose(in);
  if (!ok) {
    free(out);
    return false;
  }
  *part = out;
  *parts = (int)p;
  return true;
}

bool part_assign_write(const char *path, const char *flag, const int *part, int64_t items,
                       int parts) {
  out_file o;
  if (!out_open(&o, PART_PROG, flag, path)) return false;
  fprintf(o.f, PART_ASSIGN_MAGIC " %" PRId64 " %d\n", items, parts);
  for (int64_t i = 0; i < items; i++) fprintf(o.f, "%d\n", part[i]);
  return out_commit(&o);
}
