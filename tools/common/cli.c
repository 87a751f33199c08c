#include "cli.h"

#include <ballast/version.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage_error(const char *prog, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* One line whatever the arguments hold: a value with a newline or other
   * control character is shown with '?' in its place. */
  for (char *c = msg; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  fprintf(stderr, "%s: %s\n", prog, msg);
  return 2;
}

/* Digits with an optional leading '-' (if `sign`), no leading zero. */
static bool decimal_syntax(const char *text, bool sign) {
  const char *p = text;
  if (sign && *p == '-') p++;
  if (!isdigit((unsigned char)*p)) return false;
  if (*p == '0' && p[1] != '\0') return false; /* "010": octal to C, 10 to a person */
  for (; *p; p++)
    if (!isdigit((unsigned char)*p)) return false;
  return true;
}

bool cli_int_text(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                  size_t errlen) {
  if (!decimal_syntax(text, true)) {
    snprintf(err, errlen, "'%s' is not a decimal integer", text);
    return false;
  }
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno || v < min || v > max) {
    snprintf(err, errlen, "%s is out of range [%" PRId64 ", %" PRId64 "]", text, min, max);
    return false;
  }
  *out = v;
  return true;
}

bool cli_uint_text(const char *text, uint64_t *out, char *err, size_t errlen) {
  if (!decimal_syntax(text, false)) {
    snprintf(err, errlen, "'%s' is not a decimal unsigned integer", text);
    return false;
  }
  errno = 0;
  unsigned long long v = strtoull(text, NULL, 10);
  if (errno) {
    snprintf(err, errlen, "%s is out of range [0, %" PRIu64 "]", text, UINT64_MAX);
    return false;
  }
  *out = v;
  return true;
}

bool cli_double_text(const char *text, double min, double max, bool open_min, bool open_max,
                     double *out, char *err, size_t errlen) {
  /* strtod also reads leading whitespace, '+', hexadecimal, inf and nan:
   * none is a plain decimal number. */
  const char *p = text + (*text == '-');
  bool plain = isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]));
  plain = plain && !strpbrk(p, "xX");
  char *end;
  errno = 0;
  double v = plain ? strtod(text, &end) : 0;
  if (!plain || *end || !isfinite(v)) {
    snprintf(err, errlen, "'%s' is not a finite decimal number", text);
    return false;
  }
  if (errno == ERANGE || v < min || v > max || (open_min && v == min) ||
      (open_max && v == max)) {
    snprintf(err, errlen, "%s is out of range %c%g, %g%c", text, open_min ? '(' : '[', min, max,
             open_max ? ')' : ']');
    return false;
  }
  *out = v;
  return true;
}

static bool parse_value(const cli_flag *f, const char *v, char *err, size_t n) {
  switch (f->kind) {
  case CLI_KIND_INT:
    return cli_int_text(v, f->imin, f->imax, f->dest, err, n);
  case CLI_KIND_UINT:
    return cli_uint_text(v, f->dest, err, n);
  case CLI_KIND_DOUBLE:
    return cli_double_text(v, f->dmin, f->dmax, f->open_min, f->open_max, f->dest, err, n);
  case CLI_KIND_PATH:
    if (!*v) {
      snprintf(err, n, "needs a file name, not ''");
      return false;
    }
    /* fall through */
  case CLI_KIND_STRING:
    *(const char **)f->dest = v;
    return true;
  case CLI_KIND_CHOICE: {
    for (int k = 0; f->choices[k]; k++)
      if (!strcmp(v, f->choices[k])) {
        *(int *)f->dest = k;
        return true;
      }
    int w = snprintf(err, n, "'%s' is not one of", v);
    for (int k = 0; f->choices[k] && w > 0 && (size_t)w < n; k++)
      w += snprintf(err + w, n - (size_t)w, "%s %s", k ? "," : "", f->choices[k]);
    return false;
  }
  case CLI_KIND_CUSTOM:
    return f->parse(v, f->dest, err, n);
  default:
    snprintf(err, n, "takes no value");
    return false;
  }
}

static const cli_flag *find(const cli_flag *flags, const char *name, size_t len) {
  for (const cli_flag *f = flags; f->kind != CLI_KIND_END; f++)
    if (f->kind != CLI_KIND_SECTION && strlen(f->name) == len && !strncmp(f->name, name, len))
      return f;
  return NULL;
}

static bool is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

/* At exit: a table or --json that did not reach stdout (a full disk, a
 * closed pipe) is a failed run, not a success (gnulib's close_stdout). */
static const char *exit_prog;
static bool exit_registered, output_failed;
static void close_stdout(void) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "%s: cannot write the standard output: %s\n", exit_prog ? exit_prog : "ballast",
            strerror(errno));
    _Exit(1);
  }
  if (output_failed) _Exit(1);
}

static void register_exit(void) {
  if (!exit_registered) atexit(close_stdout);
  exit_registered = true;
}

void cli_output_failed(const char *what) {
  fprintf(stderr, "%s: %s: not written: out of memory\n", exit_prog ? exit_prog : "ballast", what);
  output_failed = true;
  register_exit();
}

const char *cli_quote(const char *s, char *buf, size_t len) {
  size_t k = 0;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[5];
    if (c == '\n') snprintf(esc, sizeof esc, "\\n");
    else if (c == '\t') snprintf(esc, sizeof esc, "\\t");
    else if (c < 0x20 || c == 0x7f) snprintf(esc, sizeof esc, "\\x%02x", c);
    else esc[0] = (char)c, esc[1] = '\0';
    size_t n = strlen(esc);
    if (k + n + 4 > len) { /* room for "..." and the terminator */
      memcpy(buf + k, "...", 4);
      return buf;
    }
    memcpy(buf + k, esc, n);
    k += n;
  }
  buf[k] = '\0';
  return buf;
}

int cli_parse(const cli_program *p, int argc, char **argv) {
  register_exit();
  exit_prog = p->name;
  /* --help and --version win wherever they are (before "--"), even after
   * a bad value: asking for help is never an error. */
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (is_help(argv[i])) {
      cli_help(p, stdout);
      return 0;
    }
    if (!strcmp(argv[i], "--version")) {
      cli_print_version(p->name);
      return 0;
    }
  }
  bool flags_done = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!flags_done && !strcmp(a, "--")) {
      flags_done = true;
      continue;
    }
    if (flags_done || a[0] != '-' || a[1] == '\0') { /* "-" alone: a positional (stdin) */
      if (p->operand) {
        if (!p->operand(a, p->operand_ctx)) return 2;
      } else if (p->other) {
        if (!p->other(a, p->other_ctx)) return 2;
      } else if (p->positional_dest && !*p->positional_dest) {
        *p->positional_dest = a;
      } else if (p->positional_dest) {
        return cli_usage_error(p->name, "only one %s, got '%s' and '%s'", p->positional,
                               *p->positional_dest, a);
      } else {
        return cli_usage_error(p->name, "unexpected argument '%s' (see --help)", a);
      }
      continue;
    }
    const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
    const cli_flag *f = find(p->flags, a, eq ? (size_t)(eq - a) : strlen(a));
    if (!f) {
      if (p->other) {
        if (!p->other(a, p->other_ctx)) return 2;
        continue;
      }
      return cli_usage_error(p->name, "unknown flag '%s' (see --help)", a);
    }
    if (f->given) *f->given = true;
    if (f->kind == CLI_KIND_BOOL) {
      if (eq) return cli_usage_error(p->name, "%s takes no value (got '%s')", f->name, eq + 1);
      *(bool *)f->dest = true;
      continue;
    }
    const char *v;
    if (eq) {
      v = eq + 1;
    } else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
      v = argv[++i];
    } else {
      return cli_usage_error(p->name, "%s needs a value %s%s%s", f->name, f->metavar ? f->metavar : "",
                             i + 1 < argc ? ", not the flag " : "", i + 1 < argc ? argv[i + 1] : "");
    }
    char err[256];
    if (!parse_value(f, v, err, sizeof err))
      return cli_usage_error(p->name, "%s: %s", f->name, err);
  }
  return CLI_CONTINUE;
}

/* Print text, whose lines after the first are indented by `indent`. */
static void put_indented(FILE *out, const char *text, int indent) {
  for (const char *s = text; *s;) {
    size_t len = strcspn(s, "\n");
    fprintf(out, "%.*s\n", (int)len, s);
    s += len;
    if (*s == '\n' && *++s) fprintf(out, "%*s", indent, "");
  }
}

void cli_help(const cli_program *p, FILE *out) {
  fprintf(out, "usage: ");
  put_indented(out, p->usage, 0);
  if (p->description) {
    fputc('\n', out);
    put_indented(out, p->description, 0);
  }
  int width = (int)strlen("--help, -h");
  for (const cli_flag *f = p->flags; f->kind != CLI_KIND_END; f++) {
    if (f->kind == CLI_KIND_SECTION) continue;
    int w = (int)strlen(f->name) + (f->metavar ? 1 + (int)strlen(f->metavar) : 0);
    if (w > width) width = w;
  }
  fputc('\n', out);
  if (p->flags[0].kind != CLI_KIND_SECTION) fprintf(out, "Options:\n");
  for (const cli_flag *f = p->flags; f->kind != CLI_KIND_END; f++) {
    if (f->kind == CLI_KIND_SECTION) {
      fprintf(out, "%s\n", f->name);
      continue;
    }
    char head[128];
    snprintf(head, sizeof head, "%s%s%s", f->name, f->metavar ? " " : "",
             f->metavar ? f->metavar : "");
    fprintf(out, "  %-*s  ", width, head);
    put_indented(out, f->help ? f->help : "", width + 4);
  }
  fprintf(out, "  %-*s  print this help and exit\n", width, "--help, -h");
  fprintf(out, "  %-*s  print the program's version and exit\n", width, "--version");
  if (p->epilog) {
    fputc('\n', out);
    put_indented(out, p->epilog, 0);
  }
}

void cli_print_version(const char *prog) { printf("%s (Ballast %s)\n", prog, bal_version()); }

bool cli_mkstemp_template(char *buf, size_t n, const char *dir, const char *prefix) {
  int len = snprintf(buf, n, "%s/%s", dir, prefix);
  if (len < 0 || (size_t)len + 7 > n) return false;
  memset(buf + len, 'X', 6); /* the part mkdtemp/mkstemp replace */
  buf[len + 6] = '\0';
  return true;
}

bool cli_temp_template(char *buf, size_t n, const char *name) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  char prefix[256];
  int len = snprintf(prefix, sizeof prefix, "%s-", name);
  return len > 0 && (size_t)len < sizeof prefix && cli_mkstemp_template(buf, n, dir, prefix);
}
