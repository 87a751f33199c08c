/* PSS of a process group (memwatch.h), read from /proc. */
#include "memwatch.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Process group of pid from /proc/PID/stat (field 5, after the command in
 * parentheses, which may itself contain spaces and parentheses). */
static long pgrp_of(const char *pid) {
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *got = fgets(line, sizeof line, f);
  fclose(f);
  char *p = got ? strrchr(line, ')') : NULL;
  long ppid, pg;
  char state;
  if (!p || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pg) != 3) return -1;
  return pg;
}

static double pss_kb(const char *pid) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%s/smaps_rollup", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  double kb = 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "Pss:", 4)) {
      kb = strtod(line + 4, NULL);
      break;
    }
  fclose(f);
  return kb;
}

double memwatch_group_pss_mb(pid_t pgrp) {
  DIR *d = opendir("/proc");
  if (!d) return 0;
  double kb = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    if (pgrp_of(e->d_name) == (long)pgrp) kb += pss_kb(e->d_name);
  }
  closedir(d);
  return kb / 1024.0;
}
