/* `ballast overlay`: build a small-world overlay, measure its degrees,
 * connectivity, route lengths and build/next-hop times, optionally plot. */
#include <ballast/ballast.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "core/clock.h"
#include "plot.h"
#include "stats.h"

static const char *const PROG = "ballast-overlay";

typedef struct options {
  int64_t nodes, degree, pairs, samples;
  double exponent;
  uint64_t seed;
  bool json, local_only, degree_given, nodes_given;
  const char *plot;
} options;

static int parse(int argc, char **argv, options *o) {
  *o = (options){.pairs = 100000, .samples = 100, .exponent = BAL_OVERLAY_DEFAULT_EXPONENT,
                 .seed = 1};
  const cli_flag flags[] = {
      {.kind = CLI_KIND_INT, .name = "--nodes", .metavar = "N", .dest = &o->nodes,
       .given = &o->nodes_given, .imin = 1, .imax = BAL_OVERLAY_MAX_NODES,
       .help = "number of nodes (ranks), >= 1"},
      {.kind = CLI_KIND_INT, .name = "--degree", .metavar = "D", .dest = &o->degree,
       .given = &o->degree_given, .imin = 2, .imax = 1 << 20,
       .help = "target average degree incl. ring links, >= 2\n"
               "(default 4*log2(N), rounded; at least 2)"},
      {.kind = CLI_KIND_DOUBLE, .name = "--exponent", .metavar = "E", .dest = &o->exponent,
       .dmin = 0, .dmax = 64, .open_min = true,
       .help = "shortcut lengths d drawn with P(d) ~ d^-E, E in (0, 64] (default 1)"},
      CLI_UINT("--seed", "S", &o->seed, "overlay seed (default 1); pairs are drawn from it too"),
      CLI_INT("--pairs", "K", &o->pairs, 0, INT64_MAX, "random pairs to route (default 100000)"),
      CLI_INT("--local-samples", "M", &o->samples, 0, INT64_MAX,
              "local neighbourhood builds to time (default 100)"),
      CLI_BOOL("--local-only", &o->local_only,
               "do not build the whole graph (for very large N):\n"
               "degrees come from the samples, routes use a fresh\n"
               "local handle at every hop, as ranks would"),
      CLI_BOOL("--json", &o->json, "print one JSON object instead of the table"),
      CLI_PATH("--plot", "FILE.png", &o->plot,
               "draw hop-count and shortcut-length histograms\n(needs gnuplot)"),
      CLI_END};
  const cli_program prog = {
      .name = PROG,
      .usage = "ballast overlay --nodes N [--degree D] [--exponent E] [--seed S]\n"
               "                       [--pairs K] [--local-samples M] [--local-only]\n"
               "                       [--json] [--plot FILE.png]",
      .description =
          "Build the Kleinberg small-world overlay of N nodes and measure it: average\n"
          "degree, edges versus all pairs, connectivity, route length over K random\n"
          "source/destination pairs, whole-graph build time, next-hop time and the\n"
          "time to build one node's neighbourhood alone (bal_overlay_create_local).",
      .flags = flags};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (!o->nodes_given) return cli_usage_error(PROG, "--nodes is required (see --help)");
  if (!o->degree_given) {
    o->degree = (int64_t)llround(4 * log2((double)o->nodes));
    if (o->degree < 2) o->degree = 2;
  }
  if (o->plot && !out_check_dir(PROG, "--plot", o->plot)) return 1;
  return CLI_CONTINUE;
}

static void print_json(const options *o, const ov_stats *st, int target, double build_s) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_string(&j, "tool", "overlay");
  json_int(&j, "nodes", o->nodes);
  json_int(&j, "degree", o->degree);
  json_double(&j, "exponent", o->exponent);
  json_uint(&j, "seed", o->seed);
  json_int(&j, "pairs", o->pairs);
  json_int(&j, "local_samples", o->samples);
  json_bool(&j, "local_only", o->local_only);
  json_int(&j, "target_degree", target);
  /* Degrees are undefined when no node was measured (--local-only with
   * --local-samples 0): null, not -1 or 0. */
  json_double(&j, "avg_degree", st->min_degree >= 0 ? st->avg_degree : NAN);
  if (st->min_degree >= 0) { /* measured on at least one node */
    json_int(&j, "min_degree", st->min_degree);
    json_int(&j, "max_degree", st->max_degree);
  } else {
    json_string(&j, "min_degree", NULL);
    json_string(&j, "max_degree", NULL);
  }
  if (st->edges >= 0)
    json_int(&j, "edges", st->edges);
  else
    json_string(&j, "edges", NULL);
  json_double(&j, "all_pairs", (double)o->nodes * (double)(o->nodes - 1) / 2);
  if (st->connected_known)
    json_bool(&j, "connected", st->connected);
  else
    json_string(&j, "connected", NULL);
  json_double(&j, "avg_hops", st->pairs ? (double)st->hops_total / (double)st->pairs : NAN);
  if (st->pairs)
    json_int(&j, "max_hops", st->max_hops);
  else
    json_string(&j, "max_hops", NULL);
  json_array_begin(&j, "hop_histogram");
  int top = OV_MAX_HOPS_HIST - 1;
  while (top > 0 && !st->hop_hist[top]) top--;
  for (int h = 0; h <= top; h++) json_int(&j, NULL, st->hop_hist[h]);
  json_array_end(&j);
  json_double(&j, "build_s", build_s);
  json_double(&j, "next_hop_us", st->hops_total ? 1e6 * st->route_s / (double)st->hops_total : NAN);
  json_double(&j, "local_build_us",
              st->local_samples ? 1e6 * st->local_total_s / (double)st->local_samples : NAN);
  json_double(&j, "local_build_max_us", st->local_samples ? 1e6 * st->local_max_s : NAN);
  if (st->local_checked)
    json_bool(&j, "local_matches_whole", st->local_matches);
  else
    json_string(&j, "local_matches_whole", NULL);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

static void print_table(const options *o, const ov_stats *st, int target, double build_s) {
  double all = (double)o->nodes * (double)(o->nodes - 1) / 2;
  printf("overlay: N = %lld, degree %lld (target %d), exponent %g, seed %llu\n",
         (long long)o->nodes, (long long)o->degree, target, o->exponent,
         (unsigned long long)o->seed);
  if (st->min_degree >= 0)
    printf("  %-24s %.3f (min %d, max %d)%s\n", "average degree", st->avg_degree,
           st->min_degree, st->max_degree, o->local_only ? "  [local samples]" : "");
  else
    printf("  %-24s n/a (no node measured)\n", "average degree");
  if (st->edges >= 0)
    printf("  %-24s %lld of %.0f pairs (%.4g%%)\n", "edges (linked pairs)", (long long)st->edges,
           all, all > 0 ? 100.0 * (double)st->edges / all : 0.0);
  if (st->connected_known) printf("  %-24s %s\n", "connected", st->connected ? "yes" : "NO");
  if (!st->pairs) printf("  %-24s n/a (no pairs routed)\n", "route length (hops)");
  if (st->pairs)
    printf("  %-24s avg %.4f, max %lld over %lld pairs\n", "route length (hops)",
           (double)st->hops_total / (double)st->pairs, (long long)st->max_hops,
           (long long)st->pairs);
  if (!o->local_only) printf("  %-24s %.4f s\n", "whole-graph build", build_s);
  if (st->hops_total)
    printf("  %-24s %.3f us\n", "next_hop (avg per call)",
           1e6 * st->route_s / (double)st->hops_total);
  if (st->local_samples)
    printf("  %-24s avg %.1f us, max %.1f us over %lld nodes%s\n", "local neighbourhood",
           1e6 * st->local_total_s / (double)st->local_samples, 1e6 * st->local_max_s,
           (long long)st->local_samples,
           st->local_checked
               ? (st->local_matches ? " (== whole graph)" : " (DIFFERS from whole graph)")
               : "");
}

int main(int argc, char **argv) {
  options o;
  int rc = parse(argc, argv, &o);
  if (rc != CLI_CONTINUE) return rc;
  rc = BAL_OK;
  ov_stats st;
  memset(&st, 0, sizeof st);
  st.edges = -1;
  double build_s = NAN;
  int target = (int)(o.degree < o.nodes - 1 ? o.degree : o.nodes - 1);
  bal_overlay *ov = NULL;
  if (!o.local_only) {
    double t0 = bal__now_s();
    rc = bal_overlay_create(o.nodes, (int)o.degree, o.exponent, o.seed, &ov);
    build_s = bal__now_s() - t0;
    if (!rc) rc = ov_graph_stats(ov, &st);
    if (!rc) rc = ov_route_stats(ov, o.pairs, o.seed, &st);
  }
  if (!rc) rc = ov_local_stats(o.nodes, (int)o.degree, o.exponent, o.seed, o.samples, ov, &st);
  if (!rc && o.local_only)
    rc = ov_route_local_stats(o.nodes, (int)o.degree, o.exponent, o.seed, o.pairs, &st);
  bal_overlay_destroy(ov);
  if (rc) {
    fprintf(stderr, "%s: %s\n", PROG, bal_strerror(rc));
    return 1;
  }
  if (st.min_degree < 0 || !st.pairs)
    fprintf(stderr, "%s: warning: nothing to measure for %s (--pairs or --local-samples is 0)\n",
            PROG, st.min_degree < 0 ? "the degrees" : "the routes");
  if (o.json)
    print_json(&o, &st, target, build_s);
  else
    print_table(&o, &st, target, build_s);
  if (o.plot && !ov_plot(o.plot, &st, o.nodes, (int)o.degree, o.exponent)) return 1;
  if (o.plot && !o.json) printf("  %-24s %s\n", "plot", o.plot);
  return 0;
}
