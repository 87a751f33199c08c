/* The words left on a job. A job is malleable when its admin comment says
 * `sd:malleable` (written at submission by the sandbox's job_submit.lua for
 * jobs given the SPANK plugin's --malleable) or its comment does (`sbatch
 * --comment=sd:malleable`, for clusters without that job_submit script).
 * `sd:req=SECONDS` in the comment gives the requested time finer than
 * SLURM's minutes, as replays need. The scheduler writes its decisions in
 * the admin comment, which only operators can change, so a restarted
 * daemon reads them back: `sd:static`, `sd:mates=ID,ID` (a guest and the
 * jobs it shares nodes with; the SPANK plugin reads it too), and
 * `sd:pending=WHY` on a job the policy cannot start. Tokens are separated
 * by spaces; the daemon adds its own and keeps the others. The relation is
 * parsed by slurm/common/mates.c, which the SPANK plugin uses too. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mates.h"
#include "slurmsd.h"

/* The next space-separated token of *s into tok (truncated to n); false at the end. */
static bool next_token(const char **s, char *tok, size_t n) {
  const char *p = *s + strspn(*s, " ;");
  if (!*p) return false;
  size_t len = strcspn(p, " ;");
  snprintf(tok, n, "%.*s", (int)len, p);
  *s = p + len;
  return true;
}

void sd_parse_comment(const char *comment, bool *malleable, double *req_s) {
  *malleable = false;
  *req_s = 0;
  const char *s = comment ? comment : "";
  char tok[128];
  while (next_token(&s, tok, sizeof tok)) {
    if (!strcmp(tok, "sd:malleable")) *malleable = true;
    else if (!strncmp(tok, "sd:req=", 7)) {
      char *end;
      double v = strtod(tok + 7, &end);
      if (end != tok + 7 && !*end && v > 0) *req_s = v;
    }
  }
}

void sd_parse_admin(const char *admin, bool *decided, bool *malleable, int64_t *mates,
                    int *nmates) {
  *decided = false;
  *malleable = false;
  const char *s = admin ? admin : "";
  char tok[SD_ADMIN_LEN];
  while (next_token(&s, tok, sizeof tok)) {
    if (!strcmp(tok, "sd:static")) *decided = true;
    else if (!strcmp(tok, "sd:malleable")) *malleable = true;
    else if (!strncmp(tok, "sd:mates=", 9)) *decided = true;
  }
  /* The plugin's parser, so both read the same relation or both refuse it. */
  *nmates = bal__slurm_parse_mates(admin, mates, SD_MAX_MATES);
}

bool sd_admin_append(char *admin, size_t len, const char *token) {
  size_t used = strlen(admin);
  int n = snprintf(admin + used, len - used, "%s%s", used ? " " : "", token);
  if (n < 0 || (size_t)n >= len - used) {
    admin[used] = '\0';
    return false;
  }
  return true;
}
