/* `ballast node`: the command line of a node registry (ballast/node.h).
 *
 *  main.c    the subcommands and their flags: one flag table, each flag
 *            marked with the subcommands that take it, filtered into the
 *            table cli_parse() reads, and printed whole by the top-level
 *            --help
 *  manage.c  init, destroy, list, set, remove: one manager call each
 *  run.c     run: fork CMD, admit its pid before it execs, wait for it,
 *            give its CPUs back
 *
 * Exit status (docs/CONVENTIONS.md, "Tools"): 0 success; 1 a refusal of
 * the registry (no such registry, unknown pid, CPU held, nothing to give)
 * or a system failure; 2 usage (what the arguments alone show is wrong);
 * `run` exits with CMD's status. */
#ifndef BALLAST_TOOLS_NODE_TOOL_H
#define BALLAST_TOOLS_NODE_TOOL_H

#include <ballast/ballast.h>
#include <stdbool.h>
#include <stdint.h>

#define NODE_PROG "ballast-node"

typedef struct node_opts {
  const char *command;  /* "init", "list", ... */
  const char *registry; /* as given, or from $BALLAST_NODE_REGISTRY */
  const char *registry_src; /* which of the two, for messages */
  bool json;
  /* init */
  int64_t cpus; /* virtual CPUs */
  bool cpus_given, real;
  double sharing_factor;
  const char *group;
  /* destroy */
  bool force;
  /* set */
  double wait_s;
  /* set, remove: positionals */
  const char *pid_text, *cpulist_text;
  int64_t pid;
  bal_node_mask mask;
  /* run */
  int64_t min_cpus, job, ranks;
  bool job_given;
  int64_t next_to[BAL_NODE_MAX_PROCS];
  int64_t n_next_to;
  char **cmd; /* NULL-terminated, after "--" */
} node_opts;

/* manage.c. Each returns the exit status. */
int node_init(const node_opts *o);
int node_destroy(const node_opts *o);
int node_list(const node_opts *o);
int node_set(const node_opts *o);
int node_remove(const node_opts *o);

/* run.c */
int node_run(const node_opts *o);

/* manage.c: open o->registry, or print why not (naming --registry) and
 * return the exit status (1, or 2 for a malformed name). */
int node_open(const node_opts *o, bal_node_manager **m);

/* manage.c: print "ballast-node: " and a message for a library code that
 * has no more precise explanation (what, then the code's text). Returns 1. */
int node_fail(const char *what, int code);

/* manage.c: the start of every --json object: tool, command, registry. */
struct json_writer;
void node_json_begin(struct json_writer *j, const node_opts *o);

#endif
