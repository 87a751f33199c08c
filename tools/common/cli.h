/* The command line of Ballast's programs (tools/, bench/): each program
 * declares its flags once, in a table of cli_flag, and cli_parse() reads
 * argv against it and answers --help (generated from the table, in one
 * layout for every program) and --version. Not part of the library.
 *
 * Rules every program gets from the parser (docs/CONVENTIONS.md, "Tools"):
 * - A usage error is one line on stderr naming the flag, and exit status 2.
 * - Integers are decimal: an optional '-', then digits; no leading
 *   whitespace, no '+', no leading zero ("010" is refused rather than read
 *   as 8 or 10), no "0x". A value out of [min, max] is an error naming the
 *   range, never clamped.
 * - Doubles are finite decimal numbers (strtod syntax without leading
 *   whitespace, '+', hexadecimal, inf or nan) within their bounds.
 * - A flag's value is the next argument, or follows '=' (--nodes=8). The
 *   next argument is NOT taken as a value when it starts with "--": it is
 *   a forgotten value before another flag (`--jobs-csv --json` must not
 *   write a file named "--json"). Write --flag=--x to mean it.
 * - A bare "--" ends the flags: what follows is positional.
 *
 * Usage:
 *   static const cli_flag flags[] = {
 *       CLI_SECTION("Machine:"),
 *       CLI_INT("--nodes", "N", &o.nodes, 1, INT32_MAX, "number of nodes"),
 *       CLI_BOOL("--json", &o.json, "print one JSON object"),
 *       CLI_END};
 *   static const cli_program prog = {.name = "ballast-x", .usage = "...", .flags = flags};
 *   int rc = cli_parse(&prog, argc, argv);
 *   if (rc != CLI_CONTINUE) return rc;
 */
#ifndef BALLAST_TOOLS_CLI_H
#define BALLAST_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum cli_kind {
  CLI_KIND_END = 0, /* ends a table */
  CLI_KIND_SECTION, /* a heading in --help, not a flag */
  CLI_KIND_BOOL,    /* no value; sets *(bool *)dest = true */
  CLI_KIND_INT,     /* int64_t in [imin, imax] */
  CLI_KIND_UINT,    /* uint64_t, any */
  CLI_KIND_DOUBLE,  /* finite double in [dmin, dmax], or (dmin, ...] with open_min, ... */
  CLI_KIND_STRING,  /* const char *, any text */
  CLI_KIND_PATH,    /* const char *, a file to read or write; not empty */
  CLI_KIND_CHOICE,  /* int: the index of the value in choices (NULL-terminated) */
  CLI_KIND_CUSTOM,  /* parse(value, dest, err, errlen) */
} cli_kind;

/* A custom value parser: store what `value` means in dest and return true,
 * or write why it is wrong to err (without the flag: the parser prints
 * "PROG: FLAG: ERR") and return false. */
typedef bool (*cli_parse_fn)(const char *value, void *dest, char *err, size_t errlen);

typedef struct cli_flag {
  cli_kind kind;
  const char *name;    /* "--nodes"; the heading for CLI_KIND_SECTION */
  const char *metavar; /* "N" in --help; NULL for booleans */
  void *dest;          /* where the value goes (type by kind, see cli_kind) */
  bool *given;         /* if not NULL, set to true when the flag appears */
  int64_t imin, imax;
  double dmin, dmax;
  bool open_min, open_max; /* CLI_KIND_DOUBLE: exclude dmin / dmax */
  const char *const *choices;
  cli_parse_fn parse;
  const char *help; /* '\n' starts a new line, aligned under the first */
} cli_flag;

#define CLI_END {.kind = CLI_KIND_END}
#define CLI_SECTION(heading) {.kind = CLI_KIND_SECTION, .name = (heading)}
#define CLI_BOOL(flag, d, h) {.kind = CLI_KIND_BOOL, .name = (flag), .dest = (d), .help = (h)}
#define CLI_INT(flag, mv, d, lo, hi, h)                                                       \
  {.kind = CLI_KIND_INT, .name = (flag), .metavar = (mv), .dest = (d), .imin = (lo),          \
   .imax = (hi), .help = (h)}
#define CLI_UINT(flag, mv, d, h)                                                              \
  {.kind = CLI_KIND_UINT, .name = (flag), .metavar = (mv), .dest = (d), .help = (h)}
#define CLI_DOUBLE(flag, mv, d, lo, hi, h)                                                    \
  {.kind = CLI_KIND_DOUBLE, .name = (flag), .metavar = (mv), .dest = (d), .dmin = (lo),       \
   .dmax = (hi), .help = (h)}
#define CLI_STRING(flag, mv, d, h)                                                            \
  {.kind = CLI_KIND_STRING, .name = (flag), .metavar = (mv), .dest = (d), .help = (h)}
#define CLI_PATH(flag, mv, d, h)                                                              \
  {.kind = CLI_KIND_PATH, .name = (flag), .metavar = (mv), .dest = (d), .help = (h)}
#define CLI_CHOICE(flag, mv, d, list, h)                                                      \
  {.kind = CLI_KIND_CHOICE, .name = (flag), .metavar = (mv), .dest = (d), .choices = (list),  \
   .help = (h)}
#define CLI_CUSTOM(flag, mv, d, fn, h)                                                        \
  {.kind = CLI_KIND_CUSTOM, .name = (flag), .metavar = (mv), .dest = (d), .parse = (fn),      \
   .help = (h)}

/* Returned by cli_parse() when the program should go on. */
#define CLI_CONTINUE (-1)

typedef struct cli_program {
  const char *name;        /* "ballast-overlay": the prefix of every message */
  const char *usage;       /* after "usage: "; more lines may follow '\n' */
  const char *description; /* paragraph(s) after the usage line, or NULL */
  const cli_flag *flags;   /* ends with CLI_END */
  const char *epilog;      /* text after the flags, or NULL */
  /* Positional arguments (and, with `other`, unknown flags). With neither
   * `positional` nor `other`, any is a usage error. */
  const char *positional;       /* metavar of the one positional, e.g. "TRACE" */
  const char **positional_dest; /* where it goes; a second one is an error */
  /* If set, called for every argument that is neither a known flag nor its
   * value (in order), e.g. to pass it on to another program; returns false
   * after printing an error. */
  bool (*other)(const char *arg, void *ctx);
  void *other_ctx;
  /* If set, called for every positional argument instead (with
   * operand_ctx): one that does not start with '-' ("-" alone included),
   * and every one after "--", "-1" included, as "--" ends the flags.
   * `other` then receives only unknown flags; without it they are errors.
   * Returns false after printing an error. */
  bool (*operand)(const char *arg, void *ctx);
  void *operand_ctx;
} cli_program;

/* s with control characters (bytes below 0x20, and 0x7f) written as C
 * escapes (\n, \t, \x1b), for messages that echo what the user gave: a
 * name holding a newline must not split a one-line error, nor an escape
 * sequence reach the terminal. Cut with "..." to fit buf (len >= 4).
 * Returns buf. */
const char *cli_quote(const char *s, char *buf, size_t len);

/* Read argv against p->flags. Returns CLI_CONTINUE when the program should
 * run, 0 after printing --help or --version (to stdout), or 2 after
 * printing a usage error (one line, to stderr). Also makes the program exit
 * with status 1 if what it wrote to stdout could not all be written. */
int cli_parse(const cli_program *p, int argc, char **argv);

/* Print the generated help of p. */
void cli_help(const cli_program *p, FILE *out);

/* Print "PROG: " and the formatted message as one line on stderr (control
 * characters, such as a newline in a quoted value, shown as '?'); returns
 * 2, the exit status of a usage error (for checks after cli_parse()). */
int cli_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The value parsers cli_parse() uses, for custom parsers of lists: each
 * reads all of text (the rules above), or writes why not to err and
 * returns false. */
bool cli_int_text(const char *text, int64_t min, int64_t max, int64_t *out, char *err,
                  size_t errlen);
bool cli_uint_text(const char *text, uint64_t *out, char *err, size_t errlen);
bool cli_double_text(const char *text, double min, double max, bool open_min, bool open_max,
                     double *out, char *err, size_t errlen);

/* Fill buf with a template for mkdtemp()/mkstemp(): "$TMPDIR/NAME-" (or
 * /tmp) followed by the six placeholder characters those functions replace.
 * Returns false if it does not fit in n bytes. */
bool cli_temp_template(char *buf, size_t n, const char *name);

/* Fill buf with "DIR/PREFIX" followed by the six placeholder characters
 * mkstemp()/mkdtemp() replace. Returns false if it does not fit in n bytes. */
bool cli_mkstemp_template(char *buf, size_t n, const char *dir, const char *prefix);

/* An output that could not be made (json_finish() false: out of memory):
 * prints "PROG: WHAT: not written: out of memory" on stderr and makes the
 * program exit with status 1, whatever main returns (as an unwritable
 * stdout does). */
void cli_output_failed(const char *what);

/* Print "PROG (Ballast X.Y.Z)" to stdout. */
void cli_print_version(const char *prog);

#endif
