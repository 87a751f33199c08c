/* ballast-pop: the POP efficiency metrics of an unmodified MPI program
 * (pop_tool.h for the files, docs/pop.md for the figures). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/launch.h"
#include "pop_tool.h"

/* BALLAST_LEND as the library reads it (0 or 1), checked before the run
 * so that a typo is a usage error rather than a warning per rank. */
static bool lend_env_ok(void) {
  const char *v = getenv("BALLAST_LEND");
  if (v == NULL || strcmp(v, "0") == 0 || strcmp(v, "1") == 0) return true;
  char q[128];
  cli_usage_error(POP_PROG, "$BALLAST_LEND: '%s': expected 0 or 1", cli_quote(v, q, sizeof q));
  return false;
}

int main(int argc, char **argv) {
  pop_opts o;
  int rc = pop_parse(argc, argv, &o);
  if (rc != CLI_CONTINUE) return rc;
  if (!lend_env_ok()) return 2;
  char dir[4096], report[4200];
  if (!cli_temp_template(dir, sizeof dir, "ballast-pop") || mkdtemp(dir) == NULL) {
    fprintf(stderr, POP_PROG ": cannot create a temporary directory\n");
    return 1;
  }
  snprintf(report, sizeof report, "%s/report.tsv", dir);
  int status = pop_run(&o, report);
  if (launch_signal() == 0) {
    if (status > 128 && status < 128 + NSIG)
      fprintf(stderr, POP_PROG ": the program was killed by signal %d (%s)\n", status - 128,
              strsignal(status - 128));
    else if (status > 0)
      fprintf(stderr, POP_PROG ": the program exited with status %d\n", status);
  }
  pop_report r;
  bool have = status >= 0 && launch_signal() == 0 && pop_read(report, &r);
  unlink(report);
  rmdir(dir);
  launch_die(); /* stopped by a signal: die of it, as the program did */
  if (status < 0) return 1;
  if (!have) return status != 0 ? status : 1;
  int only = -1;
  if (o.region) {
    for (int i = 0; i < r.regions; i++)
      if (strcmp(r.region[i].name, o.region) == 0) only = i;
    if (only < 0) {
      char q[128];
      fprintf(stderr, POP_PROG ": --region: no region '%s' in the report\n",
              cli_quote(o.region, q, sizeof q));
      pop_report_free(&r);
      return status != 0 ? status : 1;
    }
  }
  bool ok = true;
  if (o.csv) ok = pop_write_csv(o.csv, &r, only) && ok;
  if (o.plot) ok = pop_plot(o.plot, &r, only >= 0 ? only : BAL_POP_GLOBAL) && ok;
  if (o.json)
    ok = pop_print_json(&o, &r, only, status) && ok;
  else
    pop_print_table(&r, only);
  pop_report_free(&r);
  if (status != 0) return status;
  return ok ? 0 : 1;
}
