/* Flags shared by the programs that run sched's policies (sched_flags.h). */
#include "sched_flags.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "names.h"

const char *sched_policy_list(char *buf, size_t n, const char *sep) {
  return names_list(buf, n, bal_sched_policy_name, sep);
}

const char *sched_policy_help(char *buf, size_t n, const char *dflt) {
  char names[128];
  snprintf(buf, n, "%s (default: %s)", sched_policy_list(names, sizeof names, ", "), dflt);
  return buf;
}

int sched_check_policy(const char *prog, const char *flag, const char *name) {
  if (names_find(bal_sched_policy_name, name)) return CLI_CONTINUE;
  char names[256];
  return cli_usage_error(prog, "%s: unknown policy '%s' (%s)", flag, name,
                         sched_policy_list(names, sizeof names, ", "));
}

bool sched_parse_max_slowdown(const char *v, void *dest, char *err, size_t n) {
  bal_sched_config *cfg = dest;
  if (!strcmp(v, "inf") || !strcmp(v, "infinite")) {
    cfg->max_slowdown = INFINITY;
    return true;
  }
  if (!strcmp(v, "dynamic")) {
    cfg->dynamic_max_slowdown = true;
    return true;
  }
  return cli_double_text(v, 1e-9, 1e300, false, false, &cfg->max_slowdown, err, n);
}
