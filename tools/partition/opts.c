/* ballast-partition's command line. */
#include <stdio.h>
#include <string.h>

#include "common/cli.h"
#include "common/gnuplot.h"
#include "common/names.h"
#include "common/output.h"
#include "partition_tool.h"

static bool parse_method(const char *v, void *dest, char *err, size_t n) {
  const char *name = names_find(bal_partition_method_name, v);
  if (name == NULL) {
    char list[128];
    snprintf(err, n, "unknown method '%s' (%s)", v,
             names_list(list, sizeof list, bal_partition_method_name, ", "));
    return false;
  }
  *(const char **)dest = name;
  return true;
}

/* PXxPY or PXxPYxPZ, each >= 1. */
static bool parse_grid(const char *v, void *dest, char *err, size_t n) {
  int *g = dest;
  char buf[64], *save = NULL;
  if (strlen(v) >= sizeof buf) return snprintf(err, n, "too long"), false;
  strcpy(buf, v);
  int k = 0;
  for (char *t = strtok_r(buf, "x", &save); t; t = strtok_r(NULL, "x", &save)) {
    int64_t x;
    char why[96];
    if (k == 3) return snprintf(err, n, "'%s': more than three dimensions", v), false;
    if (!cli_int_text(t, 1, BAL_PARTITION_MAX_PARTS, &x, why, sizeof why))
      return snprintf(err, n, "'%s': %s", v, why), false;
    g[k++] = (int)x;
  }
  if (k < 2 || v[0] == 'x' || v[strlen(v) - 1] == 'x' || strstr(v, "xx"))
    return snprintf(err, n, "'%s': expected PXxPY or PXxPYxPZ (4x4, 8x4x2)", v), false;
  return true;
}

int part_parse(int argc, char **argv, part_opts *o) {
  memset(o, 0, sizeof *o);
  bal_partition_config dflt;
  bal_partition_config_init(&dflt);
  o->method = dflt.method;
  char method_help[256];
  names_help(method_help, sizeof method_help, "partitioning method: ", bal_partition_method_name,
             dflt.method, "");
  const cli_flag flags[] = {
      CLI_SECTION("Partition:"),
      CLI_CUSTOM("--method", "NAME", &o->method, parse_method, method_help),
      CLI_INT("--parts", "P", &o->parts, 1, BAL_PARTITION_MAX_PARTS, "number of parts (required)"),
      CLI_CUSTOM("--grid-dims", "PXxPY[xPZ]", o->grid, parse_grid,
                 "process grid of tensor and staggered (product P);\n"
                 "default: boxes closest to cubes"),
      CLI_PATH("--from", "FILE", &o->from,
               "the current assignment (as --out writes it): report\nthe items moved, "
               "and let the method move its\nboundaries from there"),
      {.kind = CLI_KIND_DOUBLE, .name = "--cutoff", .metavar = "R", .dest = &o->cutoff,
       .dmin = 0.0, .open_min = true, .dmax = 1e300,
       .help = "points: halo = points with a point of another part\nwithin R (default: the "
               "side of a square or cube\nholding one point on average)"},
      CLI_SECTION("Output:"),
      CLI_PATH("--out", "FILE", &o->out, "write the assignment (one part per item)"),
      CLI_BOOL("--json", &o->json, "print one JSON object"),
      CLI_PATH("--plot", "FILE.png", &o->plot,
               "draw the parts over the field (gnuplot; 3-D: the\nmiddle z slice)"),
      CLI_END};
  const cli_program prog = {
      .name = PART_PROG,
      .usage = "ballast partition [OPTIONS] --parts P FILE",
      .description =
          "Partitions a weight grid (a 'ballast-grid' header, then CSV or raw floats) or\n"
          "weighted points (CSV x,y[,z],w) into P parts, and reports the load imbalance\n"
          "(max/avg), the halo (cut faces of a grid; for points, those with a point of\n"
          "another part within --cutoff), neighbours per part, the items moved from\n"
          "--from, and the time of the partition call. File formats: docs/partition.md.",
      .flags = flags,
      .positional = "FILE",
      .positional_dest = &o->input};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (!o->input) return cli_usage_error(PART_PROG, "missing FILE (see --help)");
  if (o->parts == 0) return cli_usage_error(PART_PROG, "--parts is required");
  if (o->grid[0] != 0) { /* given: every entry >= 1 */
    int64_t product = 1;
    for (int d = 0; d < 3; d++) product *= o->grid[d] ? o->grid[d] : 1;
    if (product != o->parts)
      return cli_usage_error(PART_PROG, "--grid-dims: %d x %d x %d = %lld parts, --parts is %lld",
                             o->grid[0], o->grid[1], o->grid[2] ? o->grid[2] : 1,
                             (long long)product, (long long)o->parts);
    if (strcmp(o->method, "tensor") != 0 && strcmp(o->method, "staggered") != 0)
      return cli_usage_error(PART_PROG, "--grid-dims: only for --method tensor or staggered");
  }
  if (o->out && !out_check_dir(PART_PROG, "--out", o->out)) return 1;
  if (o->plot && !out_check_dir(PART_PROG, "--plot", o->plot)) return 1;
  if (o->plot && !gnuplot_found(PART_PROG, "--plot")) return 1;
  return CLI_CONTINUE;
}
