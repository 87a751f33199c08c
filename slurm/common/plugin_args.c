#define _POSIX_C_SOURCE 200809L
#include "plugin_args.h"

#include <errno.h>
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/share.h>

/* plugstack.conf lines have few words; more are refused rather than cut. */
#define MAX_WORDS 32
/* SLURM's own configuration lines are short; a longer one is refused at
 * its line (with room for the newline and the NUL). */
#define MAX_LINE 4096
/* `include` may nest; a loop of includes stops here. */
#define MAX_DEPTH 8

void bal__slurm_plugin_args_init(bal__slurm_plugin_args *a) {
  memset(a, 0, sizeof *a);
  strcpy(a->registry, "/ballast-%n");
  a->sharing_factor = BAL_SHARE_FACTOR_DEFAULT;
}

/* Copy a non-empty value that fits. */
static int copy_value(char *dst, size_t size, const char *v) {
  size_t len = strlen(v);
  if (len == 0 || len >= size) return -1;
  memcpy(dst, v, len + 1);
  return 0;
}

static int parse_one(bal__slurm_plugin_args *a, const char *arg) {
  char *end;
  if (strncmp(arg, "registry=", 9) == 0) return copy_value(a->registry, sizeof a->registry, arg + 9);
  if (strncmp(arg, "group=", 6) == 0) return copy_value(a->group, sizeof a->group, arg + 6);
  if (strncmp(arg, "cpus=", 5) == 0) {
    if (strcmp(arg + 5, "real") == 0) {
      a->cpus = 0;
      return 0;
    }
    errno = 0;
    long long v = strtoll(arg + 5, &end, 10);
    if (errno || *end || end == arg + 5 || v < 1 || v > BAL_NODE_MAX_CPUS) return -1;
    a->cpus = v;
    return 0;
  }
  if (strncmp(arg, "sharing_factor=", 15) == 0) {
    errno = 0;
    double v = strtod(arg + 15, &end);
    if (errno || *end || end == arg + 15 || !bal_share_factor_valid(v)) return -1;
    a->sharing_factor = v;
    return 0;
  }
  return -1;
}

int bal__slurm_plugin_args_parse(bal__slurm_plugin_args *a, int ac, char *const *av, int *bad) {
  bal__slurm_plugin_args t = *a; /* nothing changes on error */
  for (int i = 0; i < ac; i++)
    if (parse_one(&t, av[i]) != 0) {
      *bad = i;
      return -1;
    }
  *a = t;
  return 0;
}

/* Split line into whitespace-separated words, up to '#'. */
static int split(char *line, char **w) {
  char *hash = strchr(line, '#');
  if (hash) *hash = '\0';
  int n = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t;
       t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == MAX_WORDS) return -1;
    w[n++] = t;
  }
  return n;
}

static bool is_plugin(const char *path) {
  const char *base = strrchr(path, '/');
  return strcmp(base ? base + 1 : path, BAL_SLURM_PLUGIN_FILE) == 0;
}

static int read_file(const char *path, bal__slurm_plugin_args *a, char *err, size_t n, int depth);

/* `include GLOB`: every file it names, in order; relative to the including file's directory. */
static int include(const char *from, const char *pattern, bal__slurm_plugin_args *a, char *err,
                   size_t n, int depth) {
  char full[4096];
  const char *slash = strrchr(from, '/');
  if (pattern[0] != '/' && slash)
    snprintf(full, sizeof full, "%.*s/%s", (int)(slash - from), from, pattern);
  else
    snprintf(full, sizeof full, "%s", pattern);
  glob_t g;
  int rc = glob(full, 0, NULL, &g);
  if (rc == GLOB_NOMATCH) return 0;
  if (rc != 0) {
    snprintf(err, n, "%s: cannot expand include '%s'", from, pattern);
    return -1;
  }
  int found = 0;
  for (size_t i = 0; i < g.gl_pathc && found == 0; i++)
    found = read_file(g.gl_pathv[i], a, err, n, depth + 1);
  globfree(&g);
  return found;
}

static int read_file(const char *path, bal__slurm_plugin_args *a, char *err, size_t n, int depth) {
  if (depth > MAX_DEPTH) {
    snprintf(err, n, "%s: includes nested deeper than %d", path, MAX_DEPTH);
    return -1;
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, n, "%s: %s", path, strerror(errno));
    return -1;
  }
  /* A fixed buffer, not getline(): an endless line (a path that names
   * /dev/zero) must fail at its line instead of growing without bound. */
  char line[MAX_LINE];
  int found = 0;
  for (long lineno = 1; found == 0 && fgets(line, sizeof line, f); lineno++) {
    if (!strchr(line, '\n') && !feof(f)) {
      snprintf(err, n, "%s:%ld: line longer than %d bytes", path, lineno, MAX_LINE - 2);
      found = -1;
      break;
    }
    char *w[MAX_WORDS];
    int nw = split(line, w);
    if (nw == 0) continue;
    if (nw < 0) {
      snprintf(err, n, "%s:%ld: more than %d words", path, lineno, MAX_WORDS);
      found = -1;
    } else if (strcmp(w[0], "include") == 0) {
      found = nw == 2 ? include(path, w[1], a, err, n, depth) : -1;
      if (nw != 2) snprintf(err, n, "%s:%ld: include takes one path", path, lineno);
    } else if (nw >= 2 && is_plugin(w[1])) {
      int bad = 0;
      if (strcmp(w[0], "required") != 0 && strcmp(w[0], "optional") != 0) {
        snprintf(err, n, "%s:%ld: '%s' is neither required nor optional", path, lineno, w[0]);
        found = -1;
      } else if (bal__slurm_plugin_args_parse(a, nw - 2, w + 2, &bad) != 0) {
        snprintf(err, n, "%s:%ld: bad argument '%s' of %s (sharing_factor in %s)", path, lineno,
                 w[2 + bad], BAL_SLURM_PLUGIN_FILE, BAL_SHARE_FACTOR_RANGE);
        found = -1;
      } else {
        found = 1;
      }
    }
  }
  if (found == 0 && ferror(f)) {
    snprintf(err, n, "%s: %s", path, strerror(errno));
    found = -1;
  }
  fclose(f);
  return found;
}

int bal__slurm_plugstack_read(const char *path, bal__slurm_plugin_args *a, char *err, size_t n) {
  return read_file(path, a, err, n, 0);
}
