/* json-c names its boolean type json_bool, which is also the name of our
 * function (json.h, kept so that callers need not change): its headers see
 * the type under another name. */
#define json_bool bal_json_c_bool
#include <json-c/json.h>
#undef json_bool

#include "json.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void json_init(json_writer *j, FILE *out) {
  memset(j, 0, sizeof *j);
  j->out = out;
}

/* Put v under key into the innermost open container (or make it the
 * document); takes the reference to v. v NULL is JSON null. A value that
 * cannot be added (json-c out of memory) marks the document failed. */
static void add(json_writer *j, const char *key, json_object *v) {
  if (j->depth == 0) {
    json_object_put(j->root);
    j->root = v;
    return;
  }
  json_object *parent = j->open[j->depth - 1];
  int rc = json_object_is_type(parent, json_type_array)
               ? json_object_array_add(parent, v)
               : json_object_object_add(parent, key ? key : "", v);
  if (rc != 0) {
    json_object_put(v);
    j->failed = true;
  }
}

/* add() for a value just made by a json-c constructor: NULL there means
 * out of memory, not null. */
static void add_new(json_writer *j, const char *key, json_object *v) {
  if (!v) j->failed = true;
  else add(j, key, v);
}

static void begin(json_writer *j, const char *key, json_object *c) {
  if (!c) {
    j->failed = true;
    return;
  }
  add(j, key, json_object_get(c)); /* one reference for the parent, one for open[] */
  if (j->depth < JSON_MAX_DEPTH) {
    j->open[j->depth++] = c;
  } else { /* its values would land in its parent: the document is wrong */
    json_object_put(c);
    j->failed = true;
  }
}

static void end(json_writer *j) {
  if (j->depth > 0) json_object_put(j->open[--j->depth]);
}

void json_object_begin(json_writer *j, const char *key) { begin(j, key, json_object_new_object()); }
void json_array_begin(json_writer *j, const char *key) { begin(j, key, json_object_new_array()); }
void json_object_end(json_writer *j) { end(j); }
void json_array_end(json_writer *j) { end(j); }

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), 0 if it is not one. */
static size_t utf8_len(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else
    return 0;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < n; k++)
    if (s[k] < 0x80 || s[k] > 0xBF) return 0;
  return n;
}

void json_string(json_writer *j, const char *key, const char *value) {
  if (!value) {
    add(j, key, NULL);
    return;
  }
  size_t len = strlen(value);
  char *clean = len < SIZE_MAX / 3 ? malloc(3 * len + 1) : NULL; /* a bad byte: 3 (U+FFFD) */
  if (!clean) {
    j->failed = true;
    return;
  }
  size_t w = 0;
  for (const unsigned char *p = (const unsigned char *)value; *p;) {
    size_t n = utf8_len(p);
    if (n) {
      memcpy(clean + w, p, n);
      w += n;
      p += n;
    } else {
      memcpy(clean + w, "\xEF\xBF\xBD", 3);
      w += 3;
      p++;
    }
  }
  clean[w] = '\0';
  add_new(j, key, w <= INT_MAX ? json_object_new_string_len(clean, (int)w) : NULL);
  free(clean);
}

void json_int(json_writer *j, const char *key, int64_t value) {
  add_new(j, key, json_object_new_int64(value));
}

void json_uint(json_writer *j, const char *key, uint64_t value) {
  add_new(j, key, json_object_new_uint64(value));
}

void json_double(json_writer *j, const char *key, double value) {
  if (!isfinite(value)) {
    add(j, key, NULL);
    return;
  }
  /* json-c's own format ("%.17g" and a ".0" for whole numbers) is exact
   * but long; the shortest precision that reads back the same is too.
   * It starts at the digits of the integer part, so that 100 is "100" and
   * not "1e+02". */
  char text[32];
  double mag = fabs(value);
  int first = mag >= 1 ? (int)floor(log10(mag)) + 1 : 1;
  if (first > 17) first = 17;
  for (int prec = first; prec <= 17; prec++) {
    snprintf(text, sizeof text, "%.*g", prec, value);
    if (strtod(text, NULL) == value) break;
  }
  add_new(j, key, json_object_new_double_s(value, text));
}

void json_bool(json_writer *j, const char *key, bool value) {
  add_new(j, key, json_object_new_boolean(value));
}

void json_raw(json_writer *j, const char *key, const char *json_text) {
  /* json-c's parser keeps the text of the numbers it reads, so they are
   * printed as the other program wrote them. */
  add(j, key, json_tokener_parse(json_text));
}

bool json_finish(json_writer *j) {
  while (j->depth > 0) end(j);
  const char *text = "null";
  if (j->root && !j->failed)
    text = json_object_to_json_string_ext(j->root, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE);
  bool ok = !j->failed && text;
  /* a document with a value missing is not printed: a reader would take
   * it for the whole result */
  if (ok) {
    fputs(text, j->out);
    fputc('\n', j->out);
    fflush(j->out);
  }
  json_object_put(j->root);
  j->root = NULL;
  j->failed = false;
  return ok;
}
