/* Minimal streaming JSON writer for the --json output of tools and
 * benchmarks. Hand-written because Ballast only ever emits JSON (Debian's
 * JSON libraries are parsers first, and pulling one in for ~100 lines of
 * escaping and comma bookkeeping would add a dependency to every tool).
 * Usage: json_begin_object(&j, stdout); json_key_int(&j, "n", 3); ... */
#ifndef BALLAST_TOOLS_JSON_H
#define BALLAST_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct json_writer {
  FILE *out;
  int depth;
  bool need_comma[32];
} json_writer;

void json_init(json_writer *j, FILE *out);
void json_object_begin(json_writer *j, const char *key); /* key NULL at top level / in arrays */
void json_object_end(json_writer *j);
void json_array_begin(json_writer *j, const char *key);
void json_array_end(json_writer *j);
void json_string(json_writer *j, const char *key, const char *value); /* value NULL: null */
void json_int(json_writer *j, const char *key, int64_t value);
void json_uint(json_writer *j, const char *key, uint64_t value);
void json_double(json_writer *j, const char *key, double value); /* non-finite: null */
void json_bool(json_writer *j, const char *key, bool value);
/* A value that is already JSON text (e.g. another program's --json
 * output), written as is: the caller vouches that it is valid JSON. */
void json_raw(json_writer *j, const char *key, const char *json_text);
/* Ends the document with a newline (call after the top-level object_end). */
void json_finish(json_writer *j);

#endif
