#include "cli.h"

#include <ballast/version.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_i64(const char *prog, const char *flag, const char *text, int64_t min,
                   int64_t max, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 0);
  if (errno || end == text || *end) {
    fprintf(stderr, "%s: %s: '%s' is not an integer\n", prog, flag, text);
    return false;
  }
  if (v < min || v > max) {
    fprintf(stderr, "%s: %s: %lld is out of range [%" PRId64 ", %" PRId64 "]\n", prog, flag, v,
            min, max);
    return false;
  }
  *out = v;
  return true;
}

bool cli_parse_u64(const char *prog, const char *flag, const char *text, uint64_t *out) {
  char *end;
  errno = 0;
  if (*text == '-') {
    fprintf(stderr, "%s: %s: '%s' must not be negative\n", prog, flag, text);
    return false;
  }
  unsigned long long v = strtoull(text, &end, 0);
  if (errno || end == text || *end) {
    fprintf(stderr, "%s: %s: '%s' is not an unsigned integer\n", prog, flag, text);
    return false;
  }
  *out = v;
  return true;
}

bool cli_parse_double(const char *prog, const char *flag, const char *text, double min,
                      double max, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || !isfinite(v)) {
    fprintf(stderr, "%s: %s: '%s' is not a number\n", prog, flag, text);
    return false;
  }
  if (v < min || v > max) {
    fprintf(stderr, "%s: %s: %g is out of range [%g, %g]\n", prog, flag, v, min, max);
    return false;
  }
  *out = v;
  return true;
}

const char *cli_value(const char *prog, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value (see --help)\n", prog, argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

void cli_print_version(const char *prog) { printf("%s (Ballast %s)\n", prog, bal_version()); }

void cli_unknown(const char *prog, const char *arg) {
  fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", prog, arg);
}

bool cli_temp_template(char *buf, size_t n, const char *name) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  int len = snprintf(buf, n, "%s/%s-", dir, name);
  if (len < 0 || (size_t)len + 7 > n) return false;
  memset(buf + len, 'X', 6); /* the part mkdtemp/mkstemp replace */
  buf[len + 6] = '\0';
  return true;
}

bool cli_help_or_version(const char *prog, const char *arg, void (*usage)(FILE *out)) {
  if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
    usage(stdout);
    return true;
  }
  if (!strcmp(arg, "--version")) {
    cli_print_version(prog);
    return true;
  }
  return false;
}
