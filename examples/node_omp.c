/* An OpenMP job that follows its CPU mask: attach to the node registry
 * named by $BALLAST_NODE_REGISTRY (as `ballast node run` sets it) and, at
 * every step — its malleability point, between parallel regions — apply
 * the current mask with bal_node_omp_apply(): the next regions run one
 * thread per CPU of the mask (each bound to its CPU on a registry of real
 * CPUs). Run it under `ballast node run -- ./node_omp 30` and shrink it with
 * `ballast node set PID CPULIST` (docs/node.md).
 * Build: cc -fopenmp node_omp.c $(pkg-config --cflags --libs ballast) */
#include <ballast/ballast.h>
#include <ballast/node_omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long steps = argc > 1 ? atol(argv[1]) : 10;
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  bal_node_proc *p;
  int rc = bal_node_attach(&cfg, &p);
  if (rc != BAL_OK) {
    fprintf(stderr, "node_omp: attach: %s\n", bal_strerror(rc));
    return 1;
  }
  double sum = 0;
  for (long step = 0; step < steps; step++) {
    bool changed;
    rc = bal_node_omp_apply(p, &changed);
    if (rc == BAL_ENOTFOUND) break; /* removed by a manager */
    if (changed) {
      printf("step %ld: %d threads\n", step, omp_get_max_threads());
      fflush(stdout);
    }
    /* One step of work, about 0.1 s on one core. */
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (long i = 0; i < 20000000; i++) sum += (double)(i % 7) * 1e-9;
  }
  printf("sum %.3f\n", sum);
  bal_node_detach(p);
  return 0;
}
