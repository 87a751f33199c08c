/* `ballast node`: manage a node registry (ballast/node.h) from the shell.
 * The first argument names the subcommand; its flags come from the one
 * table below, where each flag is marked with the subcommands that take
 * it, so that `ballast node set --help` shows set's flags and
 * `ballast node --help` shows every flag of every subcommand once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cli.h"
#include "common/share_flag.h"
#include "node_tool.h"

enum { C_INIT = 1, C_DESTROY = 2, C_LIST = 4, C_SET = 8, C_RUN = 16, C_REMOVE = 32, C_ALL = 63 };

typedef struct command {
  const char *name;
  unsigned bit;
  const char *usage;
  const char *summary;
  int (*fn)(const node_opts *);
} command;

static const command commands[] = {
    {"init", C_INIT,
     "ballast node init --registry NAME (--cpus N | --real) [--sharing-factor F]\n"
     "                         [--group G] [--json]",
     "create a registry of N virtual CPUs or of this machine's CPUs", node_init},
    {"destroy", C_DESTROY, "ballast node destroy [--registry NAME] [--force] [--json]",
     "remove a registry (attached processes keep their mapping)", node_destroy},
    {"list", C_LIST, "ballast node list [--registry NAME] [--json]",
     "processes, jobs, masks, who lent and uses which CPUs, free CPUs", node_list},
    {"set", C_SET, "ballast node set [--registry NAME] [--wait S] [--json] PID CPULIST",
     "set a process's mask (CPULIST like 0-3,8), optionally wait until applied", node_set},
    {"run", C_RUN,
     "ballast node run [--registry NAME] [--cpus N] [--job ID] [--ranks R]\n"
     "                        [--next-to JOB[,JOB...]] [--json] -- CMD [ARGS...]",
     "admit CMD next to running jobs, run it, give the CPUs back when it ends", node_run},
    {"remove", C_REMOVE, "ballast node remove [--registry NAME] [--json] PID",
     "remove a process as if it had ended (its CPUs are handed on)", node_remove},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

typedef struct node_flag {
  unsigned cmds; /* C_* of the subcommands that take it */
  cli_flag flag;
} node_flag;

/* --next-to JOB[,JOB...], repeatable: the jobs accumulate. */
static bool parse_next_to(const char *value, void *dest, char *err, size_t errlen) {
  node_opts *o = dest;
  const char *p = value;
  for (;;) {
    size_t len = strcspn(p, ",");
    char id[32];
    if (len == 0 || len >= sizeof id) {
      snprintf(err, errlen, "'%s' is not a list of job ids like 12,40", value);
      return false;
    }
    memcpy(id, p, len);
    id[len] = '\0';
    int64_t job;
    if (!cli_int_text(id, 0, INT64_MAX, &job, err, errlen)) return false;
    if (o->n_next_to == BAL_NODE_MAX_PROCS) {
      snprintf(err, errlen, "more than %d jobs", BAL_NODE_MAX_PROCS);
      return false;
    }
    o->next_to[o->n_next_to++] = job;
    if (!p[len]) return true;
    p += len + 1;
  }
}

#define MAX_FLAGS 16

/* The one table. Filled per run because the destinations are in *o. */
static size_t all_flags(node_opts *o, node_flag *t) {
  const node_flag flags[] = {
      {C_ALL, CLI_STRING("--registry", "NAME", &o->registry,
                         "the registry (default: $" BAL_NODE_REGISTRY_ENV ")")},
      {C_ALL, CLI_BOOL("--json", &o->json, "print one JSON object echoing every parameter")},
      {C_INIT, {.kind = CLI_KIND_INT, .name = "--cpus", .metavar = "N", .dest = &o->cpus,
                .given = &o->cpus_given, .imin = 1, .imax = BAL_NODE_MAX_CPUS,
                .help = "N virtual CPUs (binding off: masks are numbers only),\n"
                        "1 .. 1024; or:"}},
      {C_INIT, CLI_BOOL("--real", &o->real,
                        "this machine's configured CPUs (masks applied with\n"
                        "sched_setaffinity)")},
      {C_INIT, SHARE_FACTOR_FLAG(&o->sharing_factor, "a mate lends floor(F x its own CPUs)")},
      {C_INIT, CLI_STRING("--group", "G", &o->group,
                          "mode 0660, owned by group G, for a manager serving\n"
                          "several users (default: mode 0600)")},
      {C_DESTROY, CLI_BOOL("--force", &o->force,
                           "remove whatever object of yours is under the name,\n"
                           "a corrupted registry or another program's object")},
      {C_SET, CLI_DOUBLE("--wait", "S", &o->wait_s, 0, 86400,
                         "wait up to S seconds until the process has polled the\n"
                         "new mask (default 0: do not wait)")},
      {C_RUN, CLI_INT("--cpus", "N", &o->min_cpus, 1, BAL_NODE_MAX_CPUS,
                      "start CMD only if the rule gives it at least N CPUs\n"
                      "(default 1; else nothing changes, exit 1)")},
      {C_RUN, {.kind = CLI_KIND_INT, .name = "--job", .metavar = "ID", .dest = &o->job,
               .given = &o->job_given, .imin = 0, .imax = INT64_MAX,
               .help = "CMD's job id (default: CMD's pid)"}},
      {C_RUN, CLI_INT("--ranks", "R", &o->ranks, 1, BAL_NODE_MAX_CPUS,
                      "ranks of CMD's job on this node (default 1): it keeps\n"
                      "one CPU per rank when another job is admitted")},
      {C_RUN, CLI_CUSTOM("--next-to", "JOB[,JOB...]", o, parse_next_to,
                         "take CPUs from these jobs only (repeatable; default:\n"
                         "every job on the node)")},
  };
  _Static_assert(sizeof flags / sizeof flags[0] <= MAX_FLAGS, "raise MAX_FLAGS");
  memcpy(t, flags, sizeof flags);
  return sizeof flags / sizeof flags[0];
}

/* --help and --version without a subcommand: every subcommand, and every
 * flag under the subcommands that take it. */
static int top_level(node_opts *o, char *arg) {
  node_flag all[MAX_FLAGS] = {0}; /* zeroed: -O3 cannot see that all_flags fills the first n */
  size_t n = all_flags(o, all);
  cli_flag t[MAX_FLAGS + NCOMMANDS + 3];
  size_t k = 0;
  t[k++] = (cli_flag)CLI_SECTION("Every command:");
  for (size_t i = 0; i < n; i++)
    if (all[i].cmds == C_ALL) t[k++] = all[i].flag;
  for (size_t c = 0; c < NCOMMANDS; c++) {
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      if (all[i].cmds == C_ALL || !(all[i].cmds & commands[c].bit)) continue;
      if (!any) {
        static char heads[NCOMMANDS][32];
        snprintf(heads[c], sizeof heads[c], "%s:", commands[c].name);
        t[k++] = (cli_flag)CLI_SECTION(heads[c]);
        any = true;
      }
      t[k++] = all[i].flag;
    }
  }
  t[k++] = (cli_flag)CLI_SECTION("And:"); /* heads the --help and --version lines */
  t[k] = (cli_flag)CLI_END;
  char usage[2048] = "ballast node COMMAND [FLAGS...]";
  char desc[2048] = "Share the CPUs of one node among its jobs through a registry\n"
                    "(docs/node.md). Commands:\n";
  for (size_t c = 0; c < NCOMMANDS; c++) {
    size_t u = strlen(usage), d = strlen(desc);
    snprintf(usage + u, sizeof usage - u, "\n%s", commands[c].usage);
    snprintf(desc + d, sizeof desc - d, "  %-8s %s\n", commands[c].name, commands[c].summary);
  }
  const cli_program prog = {
      .name = NODE_PROG,
      .usage = usage,
      .description = desc,
      .flags = t,
      .epilog = "'ballast node COMMAND --help' describes one command."};
  char *args[] = {(char *)NODE_PROG, arg, NULL};
  return cli_parse(&prog, 2, args);
}

/* Positionals of set and remove: after "--" they may start with '-' (a
 * PID "-1" is then refused as a PID, not as an unknown flag). */
static bool positional(const char *arg, void *ctx) {
  node_opts *o = ctx;
  if (!strcmp(o->command, "run")) {
    cli_usage_error(NODE_PROG, "run: unexpected argument '%s' (write -- before CMD)", arg);
    return false;
  }
  unsigned max = !strcmp(o->command, "set") ? 2 : !strcmp(o->command, "remove") ? 1 : 0;
  unsigned have = (o->pid_text != NULL) + (o->cpulist_text != NULL);
  if (have >= max) {
    cli_usage_error(NODE_PROG, "%s: unexpected argument '%s' (see --help)", o->command, arg);
    return false;
  }
  if (!o->pid_text) o->pid_text = arg;
  else o->cpulist_text = arg;
  return true;
}

/* What the arguments alone show: required values and positionals. */
static int check(node_opts *o) {
  o->registry_src = "--registry";
  if (!o->registry) { /* a --registry given empty is a bad name, said when opening it */
    o->registry = getenv(BAL_NODE_REGISTRY_ENV);
    o->registry_src = "$" BAL_NODE_REGISTRY_ENV;
    if (!o->registry || !*o->registry)
      return cli_usage_error(NODE_PROG, "--registry is required (or set %s)",
                             BAL_NODE_REGISTRY_ENV);
  }
  if (!strcmp(o->command, "init")) {
    if (o->cpus_given == o->real)
      return cli_usage_error(NODE_PROG, o->real ? "init: --cpus and --real exclude each other"
                                                : "init: --cpus N or --real is required");
  }
  if (!strcmp(o->command, "set") || !strcmp(o->command, "remove")) {
    if (!o->pid_text) return cli_usage_error(NODE_PROG, "%s: missing PID", o->command);
    char err[256];
    if (!cli_int_text(o->pid_text, 1, INT32_MAX, &o->pid, err, sizeof err))
      return cli_usage_error(NODE_PROG, "PID: %s", err);
  }
  if (!strcmp(o->command, "set")) {
    if (!o->cpulist_text) return cli_usage_error(NODE_PROG, "set: missing CPULIST");
    if (bal_node_mask_parse(o->cpulist_text, &o->mask) != BAL_OK)
      return cli_usage_error(NODE_PROG,
                             "CPULIST: '%s' is not a CPU list like 0-3,8 (ids below %d)",
                             o->cpulist_text, BAL_NODE_MAX_CPUS);
    if (bal_node_mask_count(&o->mask) == 0)
      return cli_usage_error(NODE_PROG, "CPULIST: empty: a process keeps at least one CPU");
  }
  if (!strcmp(o->command, "run") && (!o->cmd || !o->cmd[0]))
    return cli_usage_error(NODE_PROG, "run: missing -- CMD [ARGS...]");
  return CLI_CONTINUE;
}

int main(int argc, char **argv) {
  static node_opts o = {.sharing_factor = BAL_SHARE_FACTOR_DEFAULT, .min_cpus = 1, .ranks = 1};
  if (argc < 2)
    return cli_usage_error(NODE_PROG, "missing COMMAND: init, destroy, list, set, run or "
                                      "remove (see --help)");
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--version"))
    return top_level(&o, argv[1]);
  const command *cmd = NULL;
  for (size_t c = 0; c < NCOMMANDS; c++)
    if (!strcmp(argv[1], commands[c].name)) cmd = &commands[c];
  if (!cmd)
    return cli_usage_error(NODE_PROG, "unknown command '%s': the first argument is one of "
                                      "init, destroy, list, set, run, remove (see --help)",
                           argv[1]);
  o.command = cmd->name;
  /* run: what follows the first "--" is CMD, never flags of ours (the
   * parser also takes "--" as the end of the flags, so this is the same
   * split it would make). */
  int nargs = argc - 1;
  if (cmd->bit == C_RUN)
    for (int i = 2; i < argc; i++)
      if (!strcmp(argv[i], "--")) {
        nargs = i - 1;
        o.cmd = argv + i + 1;
        break;
      }
  node_flag all[MAX_FLAGS] = {0}; /* zeroed: -O3 cannot see that all_flags fills the first n */
  size_t n = all_flags(&o, all);
  cli_flag t[MAX_FLAGS + 1];
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (all[i].cmds & cmd->bit) t[k++] = all[i].flag;
  t[k] = (cli_flag)CLI_END;
  const cli_program prog = {.name = NODE_PROG,
                            .usage = cmd->usage,
                            .description = cmd->summary,
                            .flags = t,
                            .operand = positional,
                            .operand_ctx = &o};
  int rc = cli_parse(&prog, nargs, argv + 1);
  if (rc == CLI_CONTINUE) rc = check(&o);
  return rc == CLI_CONTINUE ? cmd->fn(&o) : rc;
}
