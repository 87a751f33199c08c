/* Starting another program and answering for it: `--ranks P` for MPI
 * tools (a program started outside mpirun runs itself under mpiexec with P
 * ranks, so `ballast CMD --ranks P ...` works without the user writing the
 * mpiexec line), and simulate-dlb's smpirun. The child runs in its own
 * process group; SIGTERM, SIGINT and SIGHUP sent to the tool are passed on
 * to that whole group and the tool waits for it, so that a tool stopped by
 * a signal (`timeout`, Ctrl-C, a closed terminal) leaves nothing running.
 * Files: launch.c (spawn, wait, signals, mpiexec), launch_fit.c (what the
 * machine can host), launch_rank.c (rank 0 speaks for the job).
 * Not thread-safe: one launch at a time, from the main thread. */
#ifndef BALLAST_TOOLS_LAUNCH_H
#define BALLAST_TOOLS_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"

/* True when this process was started by mpirun/mpiexec (Open MPI, MPICH,
 * PMIx and Hydra set one of the variables looked at), and always in an
 * SMPI build (BALLAST_SMPI: only smpirun starts those programs). */
bool launch_under_mpirun(void);

/* An MPI tool's `--ranks P`, for launch_ranks(). */
typedef struct launch_job {
  const char *prog;    /* "ballast-uts": the prefix of every message */
  const char *mpiexec; /* BALLAST_MPIEXEC of the tool's build */
  bool oversubscribe;  /* BALLAST_MPIEXEC_OVERSUBSCRIBE */
} launch_job;

/* The --ranks flag of every MPI tool (an entry of a cli_flag table;
 * dest: int64_t *, 0 when the flag is absent). */
#define LAUNCH_RANKS_FLAG(dest)                                                               \
  CLI_INT("--ranks", "P", (dest), 1, 1 << 20,                                                 \
          "MPI ranks to launch under mpiexec (oversubscribed);\n"                             \
          "refused past what this machine hosts (memory,\n"                                   \
          "process limit, ranks per core)")

/* Returned by launch_ranks() when this process is to run as a rank. */
#define LAUNCH_HERE (-1)

/* The `--ranks P` start-up every MPI tool shares. With ranks 0 (no
 * --ranks) or under mpirun, returns LAUNCH_HERE: call MPI_Init and go on.
 * Otherwise refuses a rank count this machine cannot host (launch_fits(),
 * exit status 2 after one line naming --ranks), or runs the job with
 * launch_mpiexec() and returns its exit status for the tool. */
int launch_ranks(const launch_job *job, int argc, char **argv, long long ranks);

/* After MPI_Init: 2 (rank 0 prints "PROG: --ranks R but running on P
 * ranks") if --ranks was given (ranks > 0) and differs from the size of
 * MPI_COMM_WORLD, else 0. The same answer on every rank. */
int launch_check_size(const char *prog, long long ranks, int size, int rank);

/* ---- launch_fit.c ---- */

/* Measured footprint of one Open MPI 4.1 rank of a Ballast tool here:
 * 15.8 MB resident at most (dlb-bench, 32 ranks on 2 cores; the shared
 * libraries counted in every rank, so an upper bound), 4 threads; mpiexec
 * itself 21 MB and 4 threads. */
#define LAUNCH_RANK_BYTES 16e6
#define LAUNCH_RANK_THREADS 4
/* Ranks per core beyond which a launch is refused: 64 ranks on 2 cores
 * run here (128 take ~30 s only to start), while 1,025 stalled the whole
 * machine for minutes. */
#define LAUNCH_MAX_RANKS_PER_CORE 64

/* Can this machine host `ranks` ranks of an MPI tool? What --ranks itself
 * asks for: LAUNCH_RANK_BYTES and LAUNCH_RANK_THREADS per rank, mpiexec
 * counted as one more rank. (A tool's own data is the tool's to check,
 * naming the flags that size it: dlb-bench's memory check.) Checks, in
 * this order, the memory (MemAvailable of /proc/meminfo), the threads this
 * user may still start (RLIMIT_NPROC and the kernel's threads-max, less the
 * threads running now) and the cores this process may run on (at most
 * LAUNCH_MAX_RANKS_PER_CORE ranks per core). Returns true, or false after printing one line "PROG:
 * --ranks P: ..." that names the estimate and what is available. */
bool launch_fits(const char *prog, long long ranks);

/* Memory the kernel can give without swapping (MemAvailable of
 * /proc/meminfo), in bytes; the free physical pages if it says nothing; 0
 * if unknown. */
double launch_mem_available(void);

/* The memory mappings one process may hold (vm.max_map_count, read from
 * /proc/sys/vm/max_map_count), or -1 if unknown: what caps the ranks of a
 * SimGrid simulation, all of them in one process (simulate-common's
 * --ranks check, dlb-bench's bulk buffer check). The environment variable
 * LAUNCH_MAX_MAP_COUNT_ENV, when set, stands for the system's value (so
 * that tests can play a host with a low limit); -2 when it is set but not
 * a decimal integer in [1, 2^31). */
#define LAUNCH_MAX_MAP_COUNT_ENV "BALLAST_MAX_MAP_COUNT"
long long launch_max_map_count(void);

/* ---- launch_rank.c ---- */

/* Under mpirun every rank parses the same command line and would print
 * the same usage error, --help or --version once per rank. Between
 * launch_mute_begin() and launch_mute_end(), the standard output and error
 * of a process whose rank (from the launcher's environment) is not 0 go to
 * /dev/null; rank 0, a process not started by mpirun, and SMPI builds
 * (whose ranks are threads sharing one process's files) are left alone. */
void launch_mute_begin(void);
void launch_mute_end(void);

/* ---- launch.c ---- */

/* Run `MPIEXEC -n RANKS [--oversubscribe] SELF ARGS`, ARGS being argv
 * without `--ranks VALUE` (or `--ranks=VALUE`), with launch_spawn(), and
 * wait for it. mpiexec and the ranks get a private TMPDIR (a directory the
 * launcher creates and removes, with what mpiexec left in it: its session
 * directory; only a tool killed outright by SIGKILL leaves it, emptied by
 * mpiexec as it ends on the SIGTERM launch_spawn() arranged). As root it also allows Open MPI to run as root. Returns the
 * exit status for the tool: mpiexec's, 128 + N if it died of signal N, or
 * 1 (after printing "PROG: ...") if it could not be started. If the tool
 * got a forwarded signal, it dies of it once mpiexec has ended. */
int launch_mpiexec(const char *prog, const char *mpiexec, bool oversubscribe, int argc,
                   char **argv, long long ranks);

/* Seconds a child has to end after a forwarded signal before its group
 * gets SIGKILL. */
#define LAUNCH_GRACE_S 10

/* Fork and exec argv[0] (a path) in a new process group, stdin from
 * /dev/null (a background group must not read the terminal), with
 * stdout_fd (if >= 0) as its stdout, forwarding SIGTERM, SIGINT and SIGHUP
 * to the group until launch_wait() returns. The child gets SIGTERM if the
 * tool dies (even of SIGKILL), so it is never left orphaned. Returns the
 * child's pid, or -1 after printing "PROG: ...". One child at a time. */
pid_t launch_spawn(const char *prog, char *const argv[], int stdout_fd);

/* Wait for the child of launch_spawn() and stop forwarding; a child still
 * running LAUNCH_GRACE_S seconds after a forwarded signal gets SIGKILL,
 * its group with it. Returns its exit status, or 128 + N if it died of
 * signal N. */
int launch_wait(pid_t pid);

/* The signal forwarded to the child (0 if none): the tool should clean up
 * and then call launch_die(). */
int launch_signal(void);

/* If a signal was forwarded, die of it (default action, re-raised). */
void launch_die(void);

#endif
