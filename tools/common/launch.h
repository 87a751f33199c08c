/* Starting another program and answering for it: `--ranks P` for MPI
 * tools (a program started outside mpirun runs itself under mpiexec with P
 * ranks, so `ballast CMD --ranks P ...` works without the user writing the
 * mpiexec line), and simulate-dlb's smpirun. The child runs in its own
 * process group; SIGTERM, SIGINT and SIGHUP sent to the tool are passed on
 * to that whole group and the tool waits for it, so that a tool stopped by
 * a signal (`timeout`, Ctrl-C, a closed terminal) leaves nothing running. */
#ifndef BALLAST_TOOLS_LAUNCH_H
#define BALLAST_TOOLS_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

/* True when this process was started by mpirun/mpiexec (Open MPI, MPICH,
 * PMIx and Hydra set one of the variables looked at). */
bool launch_under_mpirun(void);

/* Run `MPIEXEC -n RANKS [--oversubscribe] SELF ARGS`, ARGS being argv
 * without `--ranks VALUE` (or `--ranks=VALUE`), with launch_spawn(), and
 * wait for it. As root it also allows Open MPI to run as root. Returns the
 * exit status for the tool: mpiexec's, 128 + N if it died of signal N, or
 * 1 (after printing "PROG: ...") if it could not be started. If the tool
 * got a forwarded signal, it dies of it once mpiexec has ended. */
int launch_mpiexec(const char *prog, const char *mpiexec, bool oversubscribe, int argc,
                   char **argv, long long ranks);

/* Fork and exec argv[0] (a path) in a new process group, stdin from
 * /dev/null (a background group must not read the terminal), with
 * stdout_fd (if >= 0) as its stdout, forwarding SIGTERM, SIGINT and SIGHUP
 * to the group until launch_wait() returns. Returns the child's pid, or -1
 * after printing "PROG: ...". One child at a time; not thread-safe. */
pid_t launch_spawn(const char *prog, char *const argv[], int stdout_fd);

/* Wait for the child of launch_spawn() and stop forwarding. Returns its
 * exit status, or 128 + N if it died of signal N. */
int launch_wait(pid_t pid);

/* The signal forwarded to the child (0 if none): the tool should clean up
 * and then call launch_die(). */
int launch_signal(void);

/* If a signal was forwarded, die of it (default action, re-raised). */
void launch_die(void);

#endif
