/* Running the command with libballast_pop.so preloaded (pop_tool.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/launch.h"
#include "pop_tool.h"

/* Where the library is, relative to this program's directory: in the build
 * tree (tools/ -> src/pop/pmpi/), then after install (bin/ -> lib/). Both
 * set by CMake (tools/pop/CMakeLists.txt). */
static const char *const lib_rel[] = {BALLAST_POP_LIB_BUILD_REL, BALLAST_POP_LIB_INSTALL_REL};

static bool find_lib(char *out, size_t n) {
  char self[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return false;
  self[len] = '\0';
  char *slash = strrchr(self, '/');
  if (slash == NULL) return false;
  *slash = '\0';
  for (size_t i = 0; i < sizeof lib_rel / sizeof *lib_rel; i++) {
    if (snprintf(out, n, "%s/%s", self, lib_rel[i]) >= (int)n) continue;
    if (access(out, R_OK) == 0) return true;
  }
  return false;
}

/* The command's path: as given if it holds a '/', else the first
 * executable of that name on PATH (execv does not search). */
static bool find_command(const char *cmd, char *out, size_t n) {
  if (strchr(cmd, '/')) return snprintf(out, n, "%s", cmd) < (int)n && access(out, X_OK) == 0;
  const char *path = getenv("PATH");
  if (path == NULL) path = "/usr/bin:/bin";
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", cmd) < (int)n && access(out, X_OK) == 0)
      return true;
    if (end == NULL) return false;
    p = end + 1;
  }
}

int pop_run(const pop_opts *o, const char *report_path) {
  char lib[PATH_MAX], cmd[PATH_MAX], q[256];
  if (!find_lib(lib, sizeof lib)) {
    fprintf(stderr, POP_PROG ": libballast_pop.so not found next to this program (%s, %s)\n",
            BALLAST_POP_LIB_BUILD_REL, BALLAST_POP_LIB_INSTALL_REL);
    return -1;
  }
  if (!find_command(o->argv[0], cmd, sizeof cmd)) {
    fprintf(stderr, POP_PROG ": %s: command not found\n", cli_quote(o->argv[0], q, sizeof q));
    return -1;
  }
  /* The library goes before any preload the user had, which still loads. */
  char preload[3 * PATH_MAX + 3];
  const char *old = getenv("LD_PRELOAD");
#ifdef BALLAST_POP_SANITIZER_RUNTIME
  /* A sanitizer build (tools/pop/CMakeLists.txt): the runtime first, and
   * leak checking off in the measured programs, whose leaks are not ours
   * (test_pop checks the library's own). */
  const char *first = BALLAST_POP_SANITIZER_RUNTIME ":";
  const char *asan = getenv("ASAN_OPTIONS");
  char asan_opts[1024];
  snprintf(asan_opts, sizeof asan_opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && *asan ? ":" : "");
  if (setenv("ASAN_OPTIONS", asan_opts, 1) != 0) {
    fprintf(stderr, POP_PROG ": cannot set the environment: %s\n", strerror(errno));
    return -1;
  }
#else
  const char *first = "";
#endif
  snprintf(preload, sizeof preload, "%s%s%s%s", first, lib, old && *old ? ":" : "", old ? old : "");
  if (setenv("LD_PRELOAD", preload, 1) != 0 || setenv("BALLAST_POP_OUTPUT", report_path, 1) != 0 ||
      (o->lend && setenv("BALLAST_LEND", "1", 1) != 0)) {
    fprintf(stderr, POP_PROG ": cannot set the environment: %s\n", strerror(errno));
    return -1;
  }
  char *argv[POP_MAX_ARGS + 1];
  argv[0] = cmd;
  for (int i = 1; i <= o->argc; i++) argv[i] = o->argv[i];
  pid_t pid = launch_spawn(POP_PROG, argv, o->json ? STDERR_FILENO : -1);
  unsetenv("LD_PRELOAD"); /* gnuplot, started later, must not load it */
  if (old) setenv("LD_PRELOAD", old, 1);
  if (pid < 0) return -1;
  return launch_wait(pid);
}
