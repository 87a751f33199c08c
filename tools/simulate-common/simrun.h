/* What `ballast simulate-dlb` and `ballast simulate-uts` share: the
 * simulated machine's flags, finding the SMPI-built program, and running it
 * under smpirun on a generated platform while measuring what the
 * simulation costs (wall time, peak memory). */
#ifndef SIMDLB_SIMRUN_H
#define SIMDLB_SIMRUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cli.h"
#include "common/json.h"
#include "platform.h"

#define SIM_MAX_ARGS 256

/* Memory mappings SimGrid gives every simulated rank: its stack and the
 * stack's guard page (simrun.c, ranks_fit()). */
#define SIM_STACK_MAPS 2
/* SMPI's shared-malloc block, in bytes: the size of the transport's bulk
 * buffer (BULK_CHUNK in src/steal/transport.c), so that buffer is one
 * memory mapping per rank. */
#define SIM_SHARED_BLOCK "16777216"

typedef struct sim_opts {
  sim_platform plat;
  int64_t ranks, cores; /* parsed into plat by sim_opts_finish() */
  bool ranks_given, keep;
  bool smpi_timers; /* --smpi-timers: leave SMPI's CPU timers as they are (simrun.c) */
  double probe_cost;
  const char *cfgs[SIM_MAX_ARGS]; /* --smpi-cfg K:V */
  int ncfgs;
  const char *fwd[SIM_MAX_ARGS]; /* the simulated program's flags, passed on in order */
  int nfwd;
  /* Set by the tool before sim_opts_finish(): memory mappings the simulated
   * program adds per rank beyond SIM_STACK_MAPS, and what they are (for the
   * message refusing --ranks). */
  int maps_per_rank;
  const char *maps_why;
} sim_opts;

/* Defaults: 28-core nodes of 2.4 GHz cores, 1 us / 12.5 GB/s links. */
void sim_opts_init(sim_opts *o);

/* --smpi-cfg's parser (dest: a sim_opts). */
bool sim_parse_cfg(const char *v, void *dest, char *err, size_t n);
/* cli_program.other: every argument that is not the launcher's own goes to
 * the simulated program (ctx: a sim_opts). */
bool sim_forward(const char *arg, void *ctx);

/* The machine's flags, for a cli_flag table (o: a sim_opts *). */
#define SIM_MACHINE_FLAGS(o)                                                                   \
  CLI_SECTION("Machine (defaults: 28-core nodes on Omni-Path, 100 Gb/s, ~1 us):"),            \
      {.kind = CLI_KIND_INT, .name = "--ranks", .metavar = "N", .dest = &(o)->ranks,          \
       .given = &(o)->ranks_given, .imin = 1, .imax = 1 << 20,                                \
       .help = "simulated MPI ranks (required)"},                                             \
      CLI_INT("--cores-per-node", "C", &(o)->cores, 1, 1 << 16, "ranks per node (default 28)"), \
      CLI_DOUBLE("--core-speed", "F", &(o)->plat.core_speed, 1, 1e15,                         \
                 "flop/s of a core, for cycles/byte (default 2.4e9)"),                        \
      CLI_DOUBLE("--latency", "S", &(o)->plat.latency, 0, 10,                                 \
                 "node link latency, s (default 1e-6; two links per hop)"),                   \
      CLI_DOUBLE("--bandwidth", "B", &(o)->plat.bandwidth, 1, 1e15,                           \
                 "node link bandwidth, bytes/s (default 12.5e9)"),                            \
      CLI_DOUBLE("--intra-latency", "S", &(o)->plat.intra_latency, 0, 10,                     \
                 "latency between ranks of a node, s (default 3e-7)"),                        \
      CLI_DOUBLE("--intra-bandwidth", "B", &(o)->plat.intra_bandwidth, 1, 1e15,               \
                 "bandwidth between ranks of a node, bytes/s (default 1e10)"),                \
      CLI_DOUBLE("--probe-cost", "S", &(o)->probe_cost, 0, 1,                                 \
                 "simulated cost of an MPI_Iprobe/MPI_Test, s (default 0)"),                  \
      CLI_CUSTOM("--smpi-cfg", "K:V", (o), sim_parse_cfg,                                     \
                 "extra SimGrid setting (repeatable), e.g. smpi/test:2e-6"),                  \
      CLI_BOOL("--smpi-timers", &(o)->smpi_timers,                                            \
               "let SMPI read the CPU clock at every MPI call, as it does by default (the "    \
               "same results, slower: the reads are unused here)")

/* After cli_parse(): copies the machine into plat, checks that this
 * machine can start --ranks simulated ranks (vm.max_map_count, or
 * $BALLAST_MAX_MAP_COUNT in its place) and that
 * the directory of --csv (csv, or NULL) exists and that the file, if it
 * exists, starts with csv_header (the tool's columns) -- the file is
 * appended to, not written whole, but neither a missing directory nor a
 * file of other columns must cost the simulation.
 * Returns CLI_CONTINUE, or the exit status: 2 when --ranks is missing or
 * $BALLAST_MAX_MAP_COUNT is bad, 1 for too many ranks, the directory or
 * the file's header. */
int sim_opts_finish(sim_opts *o, const char *prog, const char *csv, const char *csv_header);

/* The program at `rel` from this program's directory (executable). */
bool sim_find_helper(const char *rel, char *out, size_t n);
/* The file at `rel` from this program's directory, accessible for mode
 * (access(2): R_OK, X_OK). */
bool sim_find_beside(const char *rel, int mode, char *out, size_t n);

typedef struct sim_cost {
  double wall_s, peak_mb; /* peak PSS of the simulation (memwatch.h) */
  int status;             /* exit status, or 128 + signal */
  bool refused;           /* the program refused its flags before the run (said why) */
  bool no_cpu_timer;      /* ran with smpi-no-cpu-timer.so preloaded (simrun.c) */
} sim_cost;

/* Writes the platform into a temporary directory, runs `smpirun -np 1
 * [settings] exe [forwarded flags] --check-flags` (when it fails: prints
 * the program's reason, sets cost->refused and its status, returns false),
 * then `smpirun [settings] exe [forwarded flags] --json` with its stdout
 * captured into *out
 * (malloc'd, NUL-terminated), removes the directory (unless --keep-files)
 * and fills *cost. Returns false if it could not run or capture (*out is
 * then NULL); a signal forwarded meanwhile is for the caller to die of
 * (launch_die()) once it has cleaned up. */
bool sim_run(const char *prog, const sim_opts *o, const char *smpirun, const char *exe,
             char **out, sim_cost *cost);

/* Finds the program at helper_rel (from this program's directory) and runs
 * it with sim_run(); dies of a signal forwarded meanwhile. Returns its
 * captured output (malloc'd; NULL if it could not run or be found, after
 * printing why, with *cost->status set to 2 when it is missing). */
char *sim_launch(const char *prog, const sim_opts *o, const char *smpirun, const char *helper_rel,
                 sim_cost *cost);

/* A launcher's --json object on stdout: ok, platform, NAME_args (the
 * forwarded flags), simulation (its cost), and NAME: the program's own
 * JSON text, or null. */
void sim_print_json(const sim_opts *o, const char *name, const char *text, const sim_cost *cost,
                    bool ok);

/* The end of a launcher: says the simulation failed unless ok (naming
 * `what` when nothing was parsed), prints the --json object (json) or
 * else calls table(arg), appends the --csv rows with csv(arg) (when
 * non-NULL), and frees text. parsed: the output was read; ok: and the run
 * succeeded. Returns the exit status: 0, 1, or 2 when the program refused
 * a flag passed on to it. */
int sim_finish(const char *prog, const sim_opts *o, const char *name, const char *what, char *text,
               const sim_cost *cost, bool parsed, bool ok, bool json, void (*table)(void *arg),
               bool (*csv)(void *arg), void *arg);

/* --csv FILE: opened for appending, with the header line when it is new;
 * NULL after printing an error, also when the file exists and its first
 * line is not `header` (rows of other columns). sim_csv_close() reports
 * write errors. */
FILE *sim_csv_open(const char *prog, const char *path, const char *header);
bool sim_csv_close(const char *prog, const char *path, FILE *f);

#endif
