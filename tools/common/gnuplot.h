/* Drawing PNGs with gnuplot (Debian gnuplot-nox), shared by the tools: the
 * program writes its data files, then a gnuplot script to the stream
 * gnuplot_open() returns. The PNG goes to a temporary file (output.h,
 * out_reserve) renamed into place once gnuplot succeeded. */
#ifndef BALLAST_TOOLS_GNUPLOT_H
#define BALLAST_TOOLS_GNUPLOT_H

#include <stdbool.h>
#include <stdio.h>

/* Start gnuplot reading a script from the returned stream. gnuplot's
 * messages go to stderr; its stdout (where a PNG would go without a
 * working `set output`) is discarded, so stdout stays clean for --json. Returns NULL,
 * after printing "PROG: FLAG: ..." to stderr, if no process can be started. */
FILE *gnuplot_open(const char *prog, const char *flag);

/* Is gnuplot on PATH? If not, prints the message gnuplot_close() gives
 * then ("PROG: FLAG needs gnuplot, ...") and returns false: for a check
 * before the work whose result is to be drawn. */
bool gnuplot_found(const char *prog, const char *flag);

/* End the script and wait for gnuplot. Returns true on success; otherwise
 * prints "PROG: FLAG: ..." (saying to install gnuplot-nox when gnuplot is
 * not on PATH) and returns false. */
bool gnuplot_close(FILE *g, const char *prog, const char *flag);

/* Write s to the script as a gnuplot single-quoted string (file names). */
void gnuplot_string(FILE *g, const char *s);

#endif
