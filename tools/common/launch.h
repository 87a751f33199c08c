/* `--ranks P` for MPI tools: a program started outside mpirun re-executes
 * itself under mpiexec with P ranks, so `ballast CMD --ranks P ...` works
 * without the user writing the mpiexec line. Shared by the MPI tools. */
#ifndef BALLAST_TOOLS_LAUNCH_H
#define BALLAST_TOOLS_LAUNCH_H

#include <stdbool.h>

/* True when this process was started by mpirun/mpiexec (Open MPI, MPICH,
 * PMIx and Hydra set one of the variables looked at). */
bool launch_under_mpirun(void);

/* exec `MPIEXEC -n RANKS [--oversubscribe] SELF ARGS`, ARGS being argv
 * without `--ranks VALUE`. As root it also allows Open MPI to run as root.
 * Returns only on failure: prints "PROG: ..." and returns 2. */
int launch_mpiexec(const char *prog, const char *mpiexec, bool oversubscribe, int argc,
                   char **argv, long long ranks);

#endif
