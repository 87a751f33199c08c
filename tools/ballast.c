/* `ballast`: the front end. `ballast CMD ARGS...` runs the program
 * `ballast-CMD` found next to this executable (or on PATH), git-style, so
 * each subcommand is a separate program with its own dependencies (OpenMP,
 * TBB, MPI) and the front end stays small. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"

/* Subcommands shown by --help; each is a program `ballast-<name>`. */
static const struct {
  const char *name;
  const char *summary;
} commands[] = {
    {"dlb-bench", "DLB_Bench: distributed work stealing over MPI (--ranks P launches mpiexec)"},
    {"for-bench", "benchmark bal_for against OpenMP and TBB schedules"},
    {"heat", "Jacobi heat solver rebalanced under a competing load (--ranks P launches mpiexec)"},
    {"malleable", "a bal_for loop whose rate follows the CPUs a node manager gives it"},
    {"node", "share a node's CPUs among jobs: registry, masks, run a job next to others"},
    {"overlay", "build a small-world overlay; measure degrees, routes, build times"},
    {"partition", "split a weight grid or points into P parts; imbalance, halo, moves"},
    {"pop", "POP efficiency metrics (load balance, ...) of an unmodified MPI program"},
    {"sched", "replay an SWF workload trace under FCFS, EASY or SD-Policy scheduling"},
    {"simulate-dlb", "DLB_Bench on thousands of simulated ranks (SimGrid SMPI cluster)"},
    {"simulate-uts", "UTS on thousands of simulated ranks (SimGrid SMPI cluster)"},
    {"slurm-job", "malleable test job: progress follows the CPUs it holds on its node"},
    {"slurm-replay", "replay a trace window on SLURM under slurm-sd, beside the simulator"},
    {"slurm-sd", "EASY or SD-Policy live on a stock SLURM (needs libslurm)"},
    {"uts", "Unbalanced Tree Search: tasks that spawn tasks (--ranks P launches mpiexec)"},
};

static void usage(FILE *out) {
  fprintf(out,
          "usage: ballast [--help] [--version] COMMAND [ARGS...]\n\n"
          "Ballast: dynamic load balancing for HPC. Commands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
  fprintf(out, "\n'ballast COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) return cli_usage_error("ballast", "missing COMMAND (see --help)");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "--version")) {
    cli_print_version("ballast");
    return 0;
  }
  if (argv[1][0] == '-' || strchr(argv[1], '/') || !argv[1][0])
    return cli_usage_error("ballast", "unknown flag or command '%s' (see --help)", argv[1]);
  char prog[PATH_MAX + 64];
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = '\0';
      snprintf(prog, sizeof prog, "%s/ballast-%s", self, argv[1]);
      if (access(prog, X_OK) == 0) {
        argv[1] = prog;
        execv(prog, argv + 1);
      }
    }
  }
  snprintf(prog, sizeof prog, "ballast-%s", argv[1]);
  argv[1] = prog;
  execvp(prog, argv + 1);
  fprintf(stderr, "ballast: '%s' is not a ballast command (%s; see 'ballast --help')\n",
          prog + strlen("ballast-"), strerror(errno));
  return 2;
}
