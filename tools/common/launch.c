#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

bool launch_under_mpirun(void) {
#ifdef BALLAST_SMPI
  return true;
#else
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
         getenv("MPI_LOCALNRANKS");
#endif
}

int launch_ranks(const launch_job *job, int argc, char **argv, long long ranks) {
  if (ranks <= 0 || launch_under_mpirun()) return LAUNCH_HERE;
  if (!launch_fits(job->prog, ranks)) return 2;
  return launch_mpiexec(job->prog, job->mpiexec, job->oversubscribe, argc, argv, ranks);
}

int launch_check_size(const char *prog, long long ranks, int size, int rank) {
  if (ranks <= 0 || ranks == size) return 0;
  if (rank == 0) fprintf(stderr, "%s: --ranks %lld but running on %d ranks\n", prog, ranks, size);
  return 2;
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
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: cannot start %s: %s\n", prog, argv[0], strerror(errno));
    for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &saved[k], NULL);
    return -1;
  }
  if (pid == 0) {
    setpgid(0, 0);
    /* A tool killed outright (SIGKILL) cannot pass anything on: the
     * kernel's SIGTERM then reaches the child instead, which mpiexec and
     * smpirun answer by ending their job. A parent already gone before
     * prctl() would never send it. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
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
  /* Polled rather than blocked in waitpid(), so that a child that ignores
   * a forwarded signal (mpiexec busy starting ranks) is killed after the
   * grace period rather than waited for forever (20 ms: a wake-up costs
   * nothing next to the job). */
  struct timespec tick = {0, 20 * 1000 * 1000};
  long long since_signal_ms = 0;
  bool killed = false;
  for (;;) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break; /* no such child: nothing to wait for */
    nanosleep(&tick, NULL);
    if (!got_signal || killed) continue;
    since_signal_ms += 20;
    if (since_signal_ms >= LAUNCH_GRACE_S * 1000LL) {
      kill(-pid, SIGKILL);
      killed = true;
    }
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

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw) {
  (void)sb;
  (void)type;
  (void)ftw;
  remove(path);
  return 0;
}

/* Remove dir and everything under it, not following symbolic links. */
static void remove_tree(const char *dir) { nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

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
  /* mpiexec keeps its session directory under TMPDIR and leaves it behind
   * when it is killed: give it a directory of its own, removed below
   * whatever happened to the job. */
  char tmp[PATH_MAX];
  if (!cli_temp_template(tmp, sizeof tmp, "ballast-mpiexec") || !mkdtemp(tmp)) {
    fprintf(stderr, "%s: cannot create a temporary directory for mpiexec in %s: %s\n", prog,
            getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
    free(args);
    return 1;
  }
  char *old_tmp = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
  if (getenv("TMPDIR") && !old_tmp) {
    fprintf(stderr, "%s: out of memory\n", prog);
    remove_tree(tmp);
    free(args);
    return 1;
  }
  setenv("TMPDIR", tmp, 1);
  pid_t pid = launch_spawn(prog, args, -1);
  free(args);
  if (old_tmp)
    setenv("TMPDIR", old_tmp, 1);
  else
    unsetenv("TMPDIR");
  free(old_tmp);
  int status = pid < 0 ? 1 : launch_wait(pid); /* 1: a run-time failure, not a usage error */
  remove_tree(tmp);
  launch_die();
  return status;
}
