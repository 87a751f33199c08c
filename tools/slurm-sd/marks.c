/* The words left on a job. The user marks a job malleable in its comment
 * (`sbatch --comment=sd:malleable`; `sd:req=SECONDS` gives the requested
 * time finer than SLURM's minutes, as replays need). The scheduler writes
 * its decisions in the admin comment, which only operators can change, so
 * a restarted daemon reads them back: `sd:static`, `sd:mates=ID,ID` (a
 * guest and the jobs it shares nodes with), `sd:ext=GUEST+MIN` on a mate
 * (its limit was extended by MIN minutes for that guest), and
 * `sd:pending=WHY` on a job the policy cannot start. Tokens are separated
 * by spaces. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void sd_parse_admin(const char *admin, bool *decided, int64_t *mates, int *nmates) {
  *decided = false;
  *nmates = 0;
  const char *s = admin ? admin : "";
  char tok[SD_ADMIN_LEN];
  while (next_token(&s, tok, sizeof tok)) {
    if (!strcmp(tok, "sd:static")) *decided = true;
    else if (!strncmp(tok, "sd:mates=", 9)) {
      *decided = true;
      for (char *p = tok + 9; *p && *nmates < SD_MAX_MATES;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p) break;
        mates[(*nmates)++] = v;
        p = *end == ',' ? end + 1 : end;
      }
    }
  }
}

int64_t sd_admin_ext(const char *admin, int64_t guest) {
  const char *s = admin ? admin : "";
  char tok[128];
  while (next_token(&s, tok, sizeof tok)) {
    long long g, m;
    if (sscanf(tok, "sd:ext=%lld+%lld", &g, &m) == 2 && g == guest) return m;
  }
  return -1;
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
