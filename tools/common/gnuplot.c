#include "gnuplot.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* While a script is written, a gnuplot that is missing or died must turn
 * into an error at gnuplot_close(), not kill the program with SIGPIPE. */
static void (*saved_sigpipe)(int) = SIG_DFL;

FILE *gnuplot_open(const char *prog, const char *flag) {
  fflush(stdout); /* or the child could repeat what is still buffered */
  saved_sigpipe = signal(SIGPIPE, SIG_IGN);
  /* gnuplot writes a PNG to stdout when `set output` fails: that must
   * reach neither stdout (--json) nor stderr, so stdout is dropped; its
   * messages go to stderr. */
  FILE *g = popen("exec gnuplot >/dev/null", "w");
  if (!g) {
    signal(SIGPIPE, saved_sigpipe);
    fprintf(stderr, "%s: %s: cannot start gnuplot\n", prog, flag);
  }
  return g;
}

static void not_found(const char *prog, const char *flag) {
  fprintf(stderr, "%s: %s needs gnuplot, which was not found on PATH "
                  "(install gnuplot-nox, see scripts/install-deps)\n", prog, flag);
}

bool gnuplot_found(const char *prog, const char *flag) {
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t len = strcspn(p, ":");
    char file[4096];
    /* an empty entry is the current directory, as for the shell */
    if (len) snprintf(file, sizeof file, "%.*s/gnuplot", (int)len, p);
    else snprintf(file, sizeof file, "./gnuplot");
    if (access(file, X_OK) == 0) return true;
    p += len + (p[len] == ':');
  }
  not_found(prog, flag);
  return false;
}

bool gnuplot_close(FILE *g, const char *prog, const char *flag) {
  int status = pclose(g);
  signal(SIGPIPE, saved_sigpipe);
  if (status == 0) return true;
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
    not_found(prog, flag);
  else
    fprintf(stderr, "%s: %s: gnuplot failed (status %d)\n", prog, flag, status);
  return false;
}

void gnuplot_string(FILE *g, const char *s) {
  fputc('\'', g);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', g); /* '' is a quote inside '...' */
    fputc(*s, g);
  }
  fputc('\'', g);
}
