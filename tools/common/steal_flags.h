/* Flags that the programs running the steal module (`ballast uts`,
 * `ballast dlb-bench` and their simulations) map onto a bal_steal_config
 * field in the same way, so that they read and report it alike. */
#ifndef BALLAST_TOOLS_STEAL_FLAGS_H
#define BALLAST_TOOLS_STEAL_FLAGS_H

#include "cli.h"

/* --idle-wait's values in bal_steal_config::idle_wait's order: an index
 * into it is the field's value (0 poll, 1 mpi). */
extern const char *const idle_wait_names[];

/* A cli_flag table entry for --idle-wait poll|mpi into the int *d. */
#define IDLE_WAIT_FLAG(d)                                                                     \
  CLI_CHOICE("--idle-wait", "W", (d), idle_wait_names,                                        \
             "how a thief waits for its answer: poll (default: every\n"                       \
             "--poll-interval) or mpi (blocked in a receive; POLL\n"                          \
             "progress, one worker, not sharing; for simulations)")

/* A cli_flag table entry for --lifelines N (bal_steal_config::lifelines)
 * into the int64_t *d. */
#define LIFELINES_FLAG(d)                                                                     \
  CLI_INT("--lifelines", "N", (d), 0, 1000000,                                                \
          "after N steal replies in a row without a task, a thief\n"                          \
          "registers with its overlay neighbours and asks no more\n"                          \
          "until one pushes it work (default 0: never)")

#endif
