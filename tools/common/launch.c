#include "launch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool launch_under_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
         getenv("MPI_LOCALNRANKS");
}

int launch_mpiexec(const char *prog, const char *mpiexec, bool oversubscribe, int argc,
                   char **argv, long long ranks) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "%s: cannot find my own executable to launch it\n", prog);
    return 2;
  }
  self[n] = '\0';
  char np[32];
  snprintf(np, sizeof np, "%lld", ranks);
  char **args = calloc((size_t)argc + 8, sizeof *args);
  if (!args) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 2;
  }
  int k = 0;
  args[k++] = (char *)mpiexec;
  args[k++] = (char *)"-n";
  args[k++] = np;
  if (oversubscribe) args[k++] = (char *)"--oversubscribe";
  args[k++] = self;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--ranks")) {
      i++;
      continue;
    }
    args[k++] = argv[i];
  }
  args[k] = NULL;
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  execv(mpiexec, args);
  fprintf(stderr, "%s: cannot run %s\n", prog, mpiexec);
  free(args);
  return 2;
}
