/* A process of a node registry driven from a test script, to put the
 * registry in a known lending state for `ballast node list`
 * (tests/tools/node_lend.sh): attaches as job JOB with the CPUs CPULIST
 * of registry REG, then reads one command per line from stdin and answers
 * each with one line on stdout once it is done:
 *   lend     bal_node_lend()     -> "lent N"
 *   reclaim  bal_node_reclaim()  -> "reclaimed N"
 *   poll     bal_node_poll()     -> "mask CPULIST"
 * A failed call is "error NAME" and exit 1; end of input detaches, exit 0.
 * Usage: node_lender REG JOB CPULIST */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ballast/ballast.h>

static int fail(const char *what, int rc) {
  printf("error %s %s\n", what, bal_err_name(rc));
  fflush(stdout);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: node_lender REG JOB CPULIST\n");
    return 2;
  }
  bal_node_mask cpus;
  int rc = bal_node_mask_parse(argv[3], &cpus);
  if (rc != BAL_OK) return fail("parse", rc);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = argv[1];
  cfg.job = atoll(argv[2]);
  cfg.cpus = &cpus;
  bal_node_proc *p;
  if ((rc = bal_node_attach(&cfg, &p)) != BAL_OK) return fail("attach", rc);
  printf("attached\n");
  fflush(stdout);
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = '\0';
    if (strcmp(line, "lend") == 0) {
      if ((rc = bal_node_lend(p)) < 0) return fail("lend", rc);
      printf("lent %d\n", rc);
    } else if (strcmp(line, "reclaim") == 0) {
      if ((rc = bal_node_reclaim(p)) < 0) return fail("reclaim", rc);
      printf("reclaimed %d\n", rc);
    } else if (strcmp(line, "poll") == 0) {
      bal_node_mask m;
      char buf[BAL_NODE_MAX_CPUS * 6];
      if ((rc = bal_node_poll(p, &m, NULL)) != BAL_OK) return fail("poll", rc);
      if (bal_node_mask_format(&m, buf, sizeof buf) < 0) return fail("format", BAL_ERANGE);
      printf("mask %s\n", buf);
    } else {
      printf("error unknown-command\n");
      fflush(stdout);
      return 1;
    }
    fflush(stdout);
  }
  rc = bal_node_detach(p);
  return rc == BAL_OK ? 0 : fail("detach", rc);
}
