#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

bool launch_under_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
         getenv("MPI_LOCALNRANKS");
}

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])
static struct sigaction saved[NFORWARDED];
static volatile sig_atomic_t child_group; /* 0 until the child has its group */
static volatile sig_atomic_t got_signal;

static void forward(int sig) {
  int e = errno;
  got_signal = sig;
  if (child_group > 0) kill(-(pid_t)child_group, sig);
  errno = e;
}

pid_t launch_spawn(const char *prog, char *const argv[], int stdout_fd) {
  /* Handlers first: a signal between fork() and setpgid() is recorded and
   * passed on as soon as the group exists. */
  got_signal = 0;
  child_group = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = forward;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &sa, &saved[k]);
  fflush(NULL); /* or the child would repeat what is still buffered */
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: cannot start %s: %s\n", prog, argv[0], strerror(errno));
    for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &saved[k], NULL);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &saved[k], NULL);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      close(null);
    }
    if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
    execv(argv[0], argv);
    fprintf(stderr, "%s: cannot run %s: %s\n", prog, argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid); /* as the child does: whichever runs first */
  child_group = pid;
  if (got_signal) kill(-pid, got_signal);
  return pid;
}

int launch_wait(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  child_group = 0;
  for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &saved[k], NULL);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int launch_signal(void) { return got_signal; }

void launch_die(void) {
  int sig = got_signal;
  if (!sig) return;
  signal(sig, SIG_DFL);
  raise(sig);
}

int launch_mpiexec(const char *prog, const char *mpiexec, bool oversubscribe, int argc,
                   char **argv, long long ranks) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "%s: cannot find my own executable to launch it\n", prog);
    return 1;
  }
  self[n] = '\0';
  char np[32];
  snprintf(np, sizeof np, "%lld", ranks);
  char **args = calloc((size_t)argc + 8, sizeof *args);
  if (!args) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 1;
  }
  int k = 0;
  args[k++] = (char *)mpiexec;
  args[k++] = (char *)"-n";
  args[k++] = np;
  if (oversubscribe) args[k++] = (char *)"--oversubscribe";
  args[k++] = self;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) { /* the rest is positional */
      while (i < argc) args[k++] = argv[i++];
      break;
    }
    if (!strncmp(argv[i], "--ranks=", 8)) continue;
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
  pid_t pid = launch_spawn(prog, args, -1);
  free(args);
  if (pid < 0) return 1; /* a run-time failure, not a usage error */
  int status = launch_wait(pid);
  launch_die();
  return status;
}
