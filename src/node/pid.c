/* Process identity: a pid alone can be reused by an unrelated process after
 * the registered one died, so the registry keeps (pid, start time) and a
 * process is alive only if both still match. The start time is field 22 of
 * /proc/PID/stat (clock ticks since boot), readable for other users'
 * processes too, which kill(pid, 0) is not. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node_internal.h"

int bal__node_pid_start(pid_t pid, uint64_t *start) {
  if (pid <= 0) return BAL_ENOTFOUND;
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return BAL_ENOTFOUND;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return BAL_ENOTFOUND;
  buf[n] = '\0';
  /* The command name (field 2) may hold spaces and ')': fields resume after
   * the last ')'. Field 3 is the state; 22 the start time. */
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ') return BAL_ENOTFOUND;
  p += 2;
  if (*p == 'Z' || *p == 'X') return BAL_ENOTFOUND; /* ended, not yet reaped */
  for (int field = 3; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) return BAL_ENOTFOUND;
    p++;
  }
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  if (end == p) return BAL_ENOTFOUND;
  *start = (uint64_t)v;
  return BAL_OK;
}

bool bal__node_pid_alive(pid_t pid, uint64_t start) {
  uint64_t now;
  return bal__node_pid_start(pid, &now) == BAL_OK && now == start;
}
