/* Private to ballast-sched: the parsed command line and the output writers. */
#ifndef BALLAST_TOOLS_SCHED_H
#define BALLAST_TOOLS_SCHED_H

#include <ballast/ballast.h>
#include <stdbool.h>

typedef struct sched_opts {
  const char *trace;
  bal_swf_options swf;
  bal_sched_config cfg;
  int64_t nodes, cores; /* as given, 0 = from the header */
  /* the trace transformation (bal_swf_scale()), when `scaled` */
  bal_swf_scaling scale;
  bal_swf_scaling_stats scale_stats;
  int64_t first_id; /* the window's first job number, when scaled */
  bool scaled;
  const char *jobs_csv, *plot_dir, *baseline;
  bool json;
} sched_opts;

typedef struct sched_timing {
  double read_s, sim_s, baseline_s;
} sched_timing;

/* report.c */
void sched_print_table(const sched_opts *o, const bal_swf_trace *t, const bal_sched_summary *s,
                       const sched_timing *tm);
void sched_print_json(const sched_opts *o, const bal_swf_trace *t, const bal_sched_summary *s,
                      const sched_timing *tm);
/* false (and a message naming the file) on failure */
bool sched_write_csv(const char *path, const bal_sched_result *r);

/* plot.c: heatmaps of base / run ratios and slowdown per day; false on failure */
bool sched_plot(const char *dir, const bal_sched_result *run, const bal_sched_result *base,
                const char *run_name, const char *base_name);

extern const char *const SCHED_PROG;

#endif
