/* The --sharing-factor flag of every program that takes SD-Policy's
 * sharing factor (`ballast sched`, `ballast node init`, and the programs
 * using SCHED_SD_FLAGS): its range, default and the range in its help all
 * come from ballast/share.h, so the programs accept the same values as
 * the library. */
#ifndef BALLAST_TOOLS_SHARE_FLAG_H
#define BALLAST_TOOLS_SHARE_FLAG_H

#include <ballast/share.h>

#include "cli.h"

#define SHARE_FLAG_STR_(x) #x
#define SHARE_FLAG_STR(x) SHARE_FLAG_STR_(x)

/* The default as text, for help strings: "0.5". */
#define SHARE_FACTOR_DEFAULT_TEXT SHARE_FLAG_STR(BAL_SHARE_FACTOR_DEFAULT)

/* A cli_flag table entry for --sharing-factor F into the double *d; help
 * is the flag's text before " F in <range> (default <default>)". */
#define SHARE_FACTOR_FLAG(d, h)                                                               \
  {.kind = CLI_KIND_DOUBLE, .name = "--sharing-factor", .metavar = "F", .dest = (d),          \
   .dmin = BAL_SHARE_FACTOR_MIN, .dmax = BAL_SHARE_FACTOR_MAX, .open_min = true,              \
   .open_max = false,                                                                         \
   .help = h ", F in " BAL_SHARE_FACTOR_RANGE "\n(default " SHARE_FACTOR_DEFAULT_TEXT ")"}

#endif
