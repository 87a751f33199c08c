/* `--plot FILE.png` for `ballast overlay`: hop-count and shortcut-length
 * histograms drawn by gnuplot. */
#ifndef BALLAST_TOOLS_OVERLAY_PLOT_H
#define BALLAST_TOOLS_OVERLAY_PLOT_H

#include "stats.h"

/* Write the data and a gnuplot script to a temporary directory and run
 * gnuplot on them. Prints the reason to stderr and returns false on
 * failure (gnuplot missing included). */
bool ov_plot(const char *png, const ov_stats *st, int64_t nodes, int degree, double exponent);

#endif
