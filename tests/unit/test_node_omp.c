/* ballast/node_omp.h: bal_node_omp_apply() sets OpenMP's thread count to
 * the mask's CPU count when the mask changed (virtual registry), and on a
 * registry of real CPUs binds thread t of a region to the mask's t-th CPU
 * (skipped with fewer than 2 CPUs, reported by the exit code 77). */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ballast/ballast.h>
#include <ballast/node_omp.h>

#include "node_check.h"

static int failures;
#define CHECK(c)                                                       \
  do {                                                                 \
    if (!(c)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
      failures++;                                                      \
    }                                                                  \
  } while (0)

static void set_mask(const char *reg, const char *list) {
  bal_node_manager *m;
  bal_node_mask mask;
  CHECK(bal_node_manager_open(reg, &m) == BAL_OK);
  CHECK(bal_node_mask_parse(list, &mask) == BAL_OK);
  CHECK(bal_node_manager_set(m, getpid(), &mask, 0) == BAL_OK);
  bal_node_manager_close(m);
}

static int region_threads(void) {
  int n = 0;
#pragma omp parallel
  {
#pragma omp single
    n = omp_get_num_threads();
  }
  return n;
}

static bal_node_proc *attach(const char *reg, const char *cpus) {
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = reg;
  bal_node_mask m;
  if (cpus) {
    bal_node_mask_parse(cpus, &m);
    cfg.cpus = &m;
  }
  bal_node_proc *p = NULL;
  CHECK(bal_node_attach(&cfg, &p) == BAL_OK);
  return p;
}

int main(void) {
  char reg[64];
  CHECK(node_test_registry(reg, 6) == BAL_OK);
  bal_node_proc *p = attach(reg, NULL);
  bool changed = false;
  CHECK(bal_node_omp_apply(p, &changed) == BAL_OK && changed);
  CHECK(omp_get_max_threads() == 6);
  CHECK(region_threads() == 6);
  CHECK(bal_node_omp_apply(p, &changed) == BAL_OK && !changed);
  set_mask(reg, "1,4");
  CHECK(bal_node_omp_apply(p, &changed) == BAL_OK && changed);
  CHECK(region_threads() == 2);
  set_mask(reg, "0-4");
  CHECK(bal_node_omp_apply(p, NULL) == BAL_OK);
  CHECK(region_threads() == 5);
  bal_node_detach(p);
  CHECK(bal_node_registry_destroy(reg) == BAL_OK);

  /* Real CPUs: thread t on the t-th CPU of the mask. */
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_ISSET(0, &mine) ||
      !CPU_ISSET(1, &mine) || node_test_registry(reg, 0) != BAL_OK) {
    printf("virtual registry: %s; real CPUs: skipped (needs CPUs 0 and 1)\n",
           failures ? "FAILED" : "ok");
    return failures ? 1 : 77;
  }
  p = attach(reg, "0-1");
  CHECK(bal_node_omp_apply(p, &changed) == BAL_OK && changed);
  int cpu_of[2] = {-1, -1}, count_of[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    cpu_set_t s;
    int t = omp_get_thread_num();
    if (t < 2 && sched_getaffinity(0, sizeof s, &s) == 0) {
      count_of[t] = CPU_COUNT(&s);
      cpu_of[t] = CPU_ISSET(0, &s) ? 0 : CPU_ISSET(1, &s) ? 1 : -1;
    }
  }
  CHECK(count_of[0] == 1 && cpu_of[0] == 0);
  CHECK(count_of[1] == 1 && cpu_of[1] == 1);
  set_mask(reg, "1");
  CHECK(bal_node_omp_apply(p, &changed) == BAL_OK && changed);
  CHECK(omp_get_max_threads() == 1);
  cpu_set_t s;
  CHECK(sched_getaffinity(0, sizeof s, &s) == 0 && CPU_COUNT(&s) == 1 && CPU_ISSET(1, &s));
  bal_node_detach(p);
  sched_setaffinity(0, sizeof mine, &mine);
  CHECK(bal_node_registry_destroy(reg) == BAL_OK);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
