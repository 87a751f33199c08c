/* Shared helpers for Ballast's command-line programs (tools/, bench/):
 * strict number parsing that names the offending flag, and the standard
 * --help/--version handling. Not part of the library. */
#ifndef BALLAST_TOOLS_CLI_H
#define BALLAST_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

/* Parse `text`, the value of command-line flag `flag`, as an integer in
 * [min, max]. On failure print "PROG: --flag: ..." to stderr and return false. */
bool cli_parse_i64(const char *prog, const char *flag, const char *text, int64_t min,
                   int64_t max, int64_t *out);
bool cli_parse_u64(const char *prog, const char *flag, const char *text, uint64_t *out);
/* Parse a finite double in [min, max]. */
bool cli_parse_double(const char *prog, const char *flag, const char *text, double min,
                      double max, double *out);

/* For flags that take a value: return argv[*i + 1] and advance *i, or print
 * "PROG: FLAG needs a value" and return NULL. */
const char *cli_value(const char *prog, int argc, char **argv, int *i);

/* Fill buf with a template for mkdtemp()/mkstemp(): "$TMPDIR/NAME-" (or
 * /tmp) followed by the six placeholder characters those functions replace.
 * Returns false if it does not fit in n bytes. */
bool cli_temp_template(char *buf, size_t n, const char *name);

/* The flags every program answers: for "--help"/"-h" call usage(stdout),
 * for "--version" print the version; return true if `arg` was one of them
 * (the program then exits 0). */
bool cli_help_or_version(const char *prog, const char *arg, void (*usage)(FILE *out));

/* Print "PROG (Ballast X.Y.Z)" to stdout. */
void cli_print_version(const char *prog);

/* Report an unknown argument and point at --help (to stderr). */
void cli_unknown(const char *prog, const char *arg);

#endif
