#include "mates.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char KEY[] = "sd:mates=";

int bal__slurm_parse_mates(const char *comment, int64_t *out, int cap) {
  if (!comment) return 0;
  const char *p = comment;
  /* The key must start the comment or follow a separator. */
  for (;;) {
    p = strstr(p, KEY);
    if (!p) return 0;
    if (p == comment || p[-1] == ' ' || p[-1] == ';' || p[-1] == ',') break;
    p++;
  }
  p += sizeof KEY - 1;
  int n = 0;
  for (;;) {
    if (*p < '0' || *p > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno != 0 || v > INT64_MAX) return -1;
    if (n >= cap) return -1;
    out[n++] = (int64_t)v;
    p = end;
    if (*p == ',') {
      p++;
      continue;
    }
    if (*p == '\0' || *p == ' ' || *p == ';') return n;
    return -1;
  }
}

int bal__slurm_registry_name(const char *pattern, const char *node, char *buf, size_t size) {
  size_t o = 0;
  for (const char *p = pattern; *p; p++) {
    const char *piece = p;
    size_t len = 1;
    if (*p == '%') {
      if (p[1] == 'n') {
        piece = node;
        len = strlen(node);
      } else if (p[1] != '%') {
        return -1;
      }
      p++;
    }
    if (o + len >= size) return -1;
    memcpy(buf + o, piece, len);
    o += len;
  }
  if (o >= size) return -1;
  buf[o] = '\0';
  return 0;
}
