/* Rank 0 speaks for the job while every rank parses the same command line
 * (launch.h, launch_mute_begin()). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "launch.h"

#ifndef BALLAST_SMPI
/* A rank from one launcher variable, or -1 when it is unset or not a rank. */
static long rank_of(const char *v) {
  char *end;
  if (!v || !*v) return -1;
  long r = strtol(v, &end, 10);
  return *end == '\0' && r >= 0 ? r : -1;
}
#endif

/* This process's rank as its launcher announces it (Open MPI, PMIx, MPICH
 * and Hydra), or -1 when none does. The variables are named one by one so
 * the bad-input table's rule sees each (tests/badinput/run.py). */
static long env_rank(void) {
#ifdef BALLAST_SMPI
  return -1; /* every rank is a thread of one process: nothing to mute */
#else
  long r = rank_of(getenv("OMPI_COMM_WORLD_RANK"));
  if (r < 0) r = rank_of(getenv("PMIX_RANK"));
  if (r < 0) r = rank_of(getenv("PMI_RANK"));
  return r;
#endif
}

static int saved_out = -1, saved_err = -1;

void launch_mute_begin(void) {
  if (env_rank() <= 0 || saved_out >= 0) return;
  int null = open("/dev/null", O_WRONLY);
  if (null < 0) return; /* then every rank speaks, as before */
  fflush(stdout);
  fflush(stderr);
  saved_out = dup(STDOUT_FILENO);
  saved_err = dup(STDERR_FILENO);
  dup2(null, STDOUT_FILENO);
  dup2(null, STDERR_FILENO);
  close(null);
}

void launch_mute_end(void) {
  if (saved_out < 0 && saved_err < 0) return;
  fflush(stdout); /* what was said while muted goes to /dev/null */
  fflush(stderr);
  if (saved_out >= 0) dup2(saved_out, STDOUT_FILENO);
  if (saved_err >= 0) dup2(saved_err, STDERR_FILENO);
  if (saved_out >= 0) close(saved_out);
  if (saved_err >= 0) close(saved_err);
  saved_out = saved_err = -1;
}
