/* ballast-partition: partition a weight grid or weighted points with
 * bal_partition_compute() and report the result's quality
 * (partition_tool.h for the files, docs/partition.md for the formats). */
#include <stdio.h>

#include "common/cli.h"
#include "partition_tool.h"

int main(int argc, char **argv) {
  part_opts o;
  int rc = part_parse(argc, argv, &o);
  if (rc != CLI_CONTINUE) return rc;
  part_field f;
  if (!part_field_read(o.input, &f)) return 1;
  part_result r;
  rc = part_run(&o, &f, &r);
  bool ok = rc == 0;
  /* Files first: a failed output is reported before the figures. */
  if (ok && o.out) ok = part_assign_write(o.out, "--out", r.part, f.items, (int)o.parts);
  if (ok && o.plot) ok = part_plot(o.plot, &o, &f, &r);
  if (ok) {
    if (o.json) ok = part_print_json(&o, &f, &r);
    else part_print_table(&o, &f, &r);
  }
  part_result_free(&r);
  part_field_free(&f);
  return rc != 0 ? rc : ok ? 0 : 1;
}
