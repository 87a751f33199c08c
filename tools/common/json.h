/* The --json output of tools and benchmarks, built with json-c (Debian
 * libjson-c-dev): the calls below add values to a tree that json_finish()
 * prints as one line and frees. Keys keep the order they were added in.
 * Usage:
 *   json_writer j;
 *   json_init(&j, stdout);
 *   json_object_begin(&j, NULL);
 *   json_int(&j, "nodes", 3);
 *   json_object_end(&j);
 *   json_finish(&j);
 * A NULL key is for values at the top level and inside arrays. Not
 * thread-safe: one writer per thread. A value that cannot be added (out of
 * memory, or nesting deeper than JSON_MAX_DEPTH) fails the whole document:
 * json_finish() then prints nothing and returns false, and the caller
 * reports it (cli_output_failed()). */
#ifndef BALLAST_TOOLS_JSON_H
#define BALLAST_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
  FILE *out;
  int depth;
  struct json_object *root;                      /* the document */
  struct json_object *open[JSON_MAX_DEPTH];      /* objects and arrays being filled */
  bool failed;                                   /* a value was lost: print nothing */
} json_writer;

void json_init(json_writer *j, FILE *out);
void json_object_begin(json_writer *j, const char *key);
void json_object_end(json_writer *j);
void json_array_begin(json_writer *j, const char *key);
void json_array_end(json_writer *j);
/* value NULL: null. Bytes that are not valid UTF-8 (file names from the
 * outside world) become U+FFFD. */
void json_string(json_writer *j, const char *key, const char *value);
void json_int(json_writer *j, const char *key, int64_t value);
void json_uint(json_writer *j, const char *key, uint64_t value);
/* The shortest text that reads back as the same double; NaN and the
 * infinities (undefined figures) are null. */
void json_double(json_writer *j, const char *key, double value);
void json_bool(json_writer *j, const char *key, bool value);
/* A value that is already JSON text (e.g. another program's --json
 * output); null if json-c cannot parse it. */
void json_raw(json_writer *j, const char *key, const char *json_text);
/* Print the document and a newline to the stream of json_init(), flush it
 * and free the tree (call after the top-level object_end). Returns false,
 * having printed nothing, when a value was lost or the text could not be
 * made (out of memory); the writer is then empty again. */
bool json_finish(json_writer *j);

#endif
