#include "json.h"

#include <inttypes.h>
#include <math.h>

void json_init(json_writer *j, FILE *out) {
  j->out = out;
  j->depth = 0;
  j->need_comma[0] = false;
}

static void put_string(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", out); break;
    case '\\': fputs("\\\\", out); break;
    case '\n': fputs("\\n", out); break;
    case '\r': fputs("\\r", out); break;
    case '\t': fputs("\\t", out); break;
    default:
      if (*p < 0x20)
        fprintf(out, "\\u%04x", *p);
      else
        fputc(*p, out);
    }
  }
  fputc('"', out);
}

/* Comma and key before a value. */
static void prefix(json_writer *j, const char *key) {
  if (j->need_comma[j->depth]) fputc(',', j->out);
  j->need_comma[j->depth] = true;
  if (key) {
    put_string(j->out, key);
    fputc(':', j->out);
  }
}

static void open(json_writer *j, const char *key, char c) {
  prefix(j, key);
  fputc(c, j->out);
  if (j->depth + 1 < (int)(sizeof j->need_comma / sizeof j->need_comma[0])) j->depth++;
  j->need_comma[j->depth] = false;
}

void json_object_begin(json_writer *j, const char *key) { open(j, key, '{'); }
void json_array_begin(json_writer *j, const char *key) { open(j, key, '['); }
void json_object_end(json_writer *j) {
  fputc('}', j->out);
  if (j->depth > 0) j->depth--;
}
void json_array_end(json_writer *j) {
  fputc(']', j->out);
  if (j->depth > 0) j->depth--;
}

void json_string(json_writer *j, const char *key, const char *value) {
  prefix(j, key);
  if (value)
    put_string(j->out, value);
  else
    fputs("null", j->out);
}

void json_int(json_writer *j, const char *key, int64_t value) {
  prefix(j, key);
  fprintf(j->out, "%" PRId64, value);
}

void json_uint(json_writer *j, const char *key, uint64_t value) {
  prefix(j, key);
  fprintf(j->out, "%" PRIu64, value);
}

void json_double(json_writer *j, const char *key, double value) {
  prefix(j, key);
  if (isfinite(value))
    fprintf(j->out, "%.9g", value);
  else
    fputs("null", j->out);
}

void json_bool(json_writer *j, const char *key, bool value) {
  prefix(j, key);
  fputs(value ? "true" : "false", j->out);
}

void json_finish(json_writer *j) {
  fputc('\n', j->out);
  fflush(j->out);
}

void json_raw(json_writer *j, const char *key, const char *json_text) {
  prefix(j, key);
  fputs(json_text, j->out);
}
