/* ballast-pop's outputs: the table, --json, --csv (pop_tool.h). */
#include <stdio.h>

#include "common/cli.h"
#include "common/json.h"
#include "common/output.h"
#include "pop/pmpi/table.h"
#include "pop_tool.h"

void pop_print_table(const pop_report *r, int only) {
  const char *names[BAL_POP_MAX_REGIONS];
  bal_pop_figures fig[BAL_POP_MAX_REGIONS];
  int n = 0;
  for (int i = 0; i < r->regions; i++)
    if (only < 0 || i == only) {
      names[n] = r->region[i].name;
      fig[n++] = r->region[i].fig;
    }
  pop_table_print(stdout, n, names, fig);
}

static void json_figures(json_writer *j, const bal_pop_figures *f) {
  json_int(j, "ranks", f->ranks);
  json_int(j, "nodes", f->nodes);
  json_double(j, "elapsed_s", f->elapsed_s);
  json_double(j, "useful_avg_s", f->useful_avg_s);
  json_double(j, "useful_max_s", f->useful_max_s);
  json_double(j, "load_balance", f->load_balance);
  json_double(j, "load_balance_in", f->load_balance_in);
  json_double(j, "load_balance_out", f->load_balance_out);
  json_double(j, "communication_efficiency", f->communication_efficiency);
  json_double(j, "parallel_efficiency", f->parallel_efficiency);
}

bool pop_print_json(const pop_opts *o, const pop_report *r, int only, int status) {
  json_writer j;
  json_init(&j, stdout);
  json_object_begin(&j, NULL);
  json_array_begin(&j, "command");
  for (int i = 0; i < o->argc; i++) json_string(&j, NULL, o->argv[i]);
  json_array_end(&j);
  json_bool(&j, "lend", o->lend);
  json_string(&j, "region", o->region);
  json_string(&j, "csv", o->csv);
  json_string(&j, "plot", o->plot);
  json_int(&j, "exit_status", status);
  json_array_begin(&j, "regions");
  for (int i = 0; i < r->regions; i++) {
    if (only >= 0 && i != only) continue;
    json_object_begin(&j, NULL);
    json_string(&j, "name", r->region[i].name);
    json_figures(&j, &r->region[i].fig);
    json_array_begin(&j, "per_rank");
    for (int k = 0; k < r->ranks; k++) {
      const bal_pop_rank_times *t = &r->region[i].rank[k];
      json_object_begin(&j, NULL);
      json_int(&j, "rank", k);
      json_int(&j, "node", t->node);
      json_double(&j, "elapsed_s", t->elapsed_s);
      json_double(&j, "useful_s", t->useful_s);
      json_double(&j, "mpi_s", t->mpi_s);
      json_int(&j, "calls", t->calls);
      json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
  }
  json_array_end(&j);
  json_object_end(&j);
  if (!json_finish(&j)) {
    cli_output_failed("--json");
    return false;
  }
  return true;
}

bool pop_write_csv(const char *path, const pop_report *r, int only) {
  out_file o;
  if (!out_open(&o, POP_PROG, "--csv", path)) return false;
  fprintf(o.f, "region,rank,node,elapsed_s,useful_s,mpi_s,calls\n");
  for (int i = 0; i < r->regions; i++) {
    if (only >= 0 && i != only) continue;
    for (int k = 0; k < r->ranks; k++) {
      const bal_pop_rank_times *t = &r->region[i].rank[k];
      /* a name holding a comma or quote is quoted, RFC 4180 style */
      fputc('"', o.f);
      for (const char *c = r->region[i].name; *c; c++) {
        if (*c == '"') fputc('"', o.f);
        fputc(*c, o.f);
      }
      fprintf(o.f, "\",%d,%d,%.9f,%.9f,%.9f,%lld\n", k, t->node, t->elapsed_s, t->useful_s,
              t->mpi_s, (long long)t->calls);
    }
  }
  return out_commit(&o);
}
