/* ballast-pop's command line. */
#include <string.h>

#include "common/cli.h"
#include "common/output.h"
#include "pop_tool.h"

static bool operand(const char *arg, void *ctx) {
  pop_opts *o = ctx;
  if (o->argc >= POP_MAX_ARGS)
    return cli_usage_error(POP_PROG, "more than %d arguments in the command", POP_MAX_ARGS), false;
  o->argv[o->argc++] = (char *)arg;
  return true;
}

int pop_parse(int argc, char **argv, pop_opts *o) {
  memset(o, 0, sizeof *o);
  const cli_flag flags[] = {
      CLI_SECTION("Output:"),
      CLI_BOOL("--json", &o->json, "print one JSON object (the program's stdout goes to stderr)"),
      CLI_PATH("--csv", "FILE", &o->csv, "write the per-rank times of every region as CSV"),
      CLI_PATH("--plot", "FILE.png", &o->plot,
               "draw each rank's useful and MPI time (gnuplot) for\nthe region of --region, "
               "else the whole run"),
      CLI_STRING("--region", "NAME", &o->region, "report this region only (\"global\": the whole run)"),
      CLI_SECTION("Run:"),
      CLI_BOOL("--lend", &o->lend,
               "set BALLAST_LEND=1: ranks lend their CPUs while they\nwait in MPI (docs/pop.md)"),
      CLI_END};
  const cli_program prog = {
      .name = POP_PROG,
      .usage = "ballast pop [OPTIONS] -- mpiexec -n P PROGRAM [ARGS...]",
      .description =
          "Runs an unmodified MPI program with libballast_pop.so preloaded, which times\n"
          "every blocking MPI call, and prints the POP efficiency metrics of each\n"
          "region at its end: load balance (avg/max useful time, within and across\n"
          "nodes), communication efficiency (max useful / elapsed) and parallel\n"
          "efficiency (their product). The program's exit status is passed through.",
      .flags = flags,
      .operand = operand,
      .operand_ctx = o};
  int rc = cli_parse(&prog, argc, argv);
  if (rc != CLI_CONTINUE) return rc;
  if (o->argc == 0) return cli_usage_error(POP_PROG, "no command to run (ballast pop -- mpiexec -n P PROGRAM)");
  if (o->region && o->region[0] == '\0') return cli_usage_error(POP_PROG, "--region: empty name");
  if (o->csv && !out_check_dir(POP_PROG, "--csv", o->csv)) return 1;
  if (o->plot && !out_check_dir(POP_PROG, "--plot", o->plot)) return 1;
  return CLI_CONTINUE;
}
