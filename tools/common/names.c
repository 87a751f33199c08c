#include "names.h"

#include <stdio.h>
#include <string.h>

#define NAMES_WIDTH 55

typedef struct line_buf {
  char *buf;
  size_t n, len, col; /* capacity, bytes written, column on the current line */
} line_buf;

static void put_raw(line_buf *b, const char *s, size_t k) {
  if (b->len >= b->n - 1) return; /* full: the rest is cut off */
  if (k > b->n - 1 - b->len) k = b->n - 1 - b->len;
  memcpy(b->buf + b->len, s, k);
  b->len += k;
  b->buf[b->len] = '\0';
}

/* Append a unit of k bytes (no newline in it), after a space unless it
 * starts a line, breaking the line before it if it would pass NAMES_WIDTH. */
static void put_unit(line_buf *b, const char *s, size_t k) {
  if (b->col > 0 && b->col + 1 + k > NAMES_WIDTH) {
    put_raw(b, "\n", 1);
    b->col = 0;
  }
  if (b->col > 0) {
    put_raw(b, " ", 1);
    b->col++;
  }
  put_raw(b, s, k);
  b->col += k;
}

/* Append text word by word; a '\n' in it ends the line there. */
static void put_text(line_buf *b, const char *text) {
  while (*text) {
    if (*text == '\n') {
      put_raw(b, "\n", 1);
      b->col = 0;
      text++;
    } else if (*text == ' ') {
      text++;
    } else {
      size_t w = strcspn(text, " \n");
      put_unit(b, text, w);
      text += w;
    }
  }
}

const char *names_help(char *buf, size_t n, const char *head, names_fn name, const char *dflt,
                       const char *tail) {
  if (n == 0) return buf;
  buf[0] = '\0';
  line_buf b = {buf, n, 0, 0};
  put_text(&b, head);
  for (int i = 0; name(i); i++) {
    char unit[160];
    bool is_dflt = dflt && !strcmp(name(i), dflt), last = !name(i + 1);
    int k = snprintf(unit, sizeof unit, "%s%s%s", name(i), is_dflt ? " (default)" : "",
                     last ? "" : ",");
    if (k > 0) put_unit(&b, unit, (size_t)k < sizeof unit ? (size_t)k : sizeof unit - 1);
  }
  put_text(&b, tail);
  return buf;
}

const char *names_list(char *buf, size_t n, names_fn name, const char *sep) {
  if (n == 0) return buf;
  buf[0] = '\0';
  size_t len = 0;
  for (int i = 0; name(i) && len < n; i++) {
    int w = snprintf(buf + len, n - len, "%s%s", i ? sep : "", name(i));
    if (w < 0) break;
    len += (size_t)w;
  }
  return buf;
}

const char *names_find(names_fn name, const char *text) {
  for (int i = 0; name(i); i++)
    if (!strcmp(name(i), text)) return name(i);
  return NULL;
}
