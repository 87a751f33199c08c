/* A job that follows its CPU mask: attach to the node registry named by
 * $BALLAST_NODE_REGISTRY (as `ballast node run` sets it), poll at every
 * iteration — its malleability point — and say when the mask changes.
 * Run it under `ballast node run -- ./node_job 60`, then shrink it with
 * `ballast node set PID CPULIST` or start another job next to it
 * (docs/node.md, "Two terminals").
 * Build: cc node_job.c $(pkg-config --cflags --libs ballast) */
#define _POSIX_C_SOURCE 200809L /* nanosleep, getpid under -std=c11 */
#include <ballast/ballast.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_signal(int sig) { stop = sig; }

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10.0;
  signal(SIGTERM, on_signal); /* detach on the way out: CPUs go back at once */
  signal(SIGINT, on_signal);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg); /* registry, job and ranks: as admitted */
  bal_node_proc *p;
  int rc = bal_node_attach(&cfg, &p);
  if (rc != BAL_OK) {
    fprintf(stderr, "node_job: attach: %s\n", bal_strerror(rc));
    return 1;
  }
  const struct timespec tick = {0, 10 * 1000 * 1000}; /* one 10 ms iteration */
  for (long i = 0; !stop && i < (long)(seconds * 100); i++) {
    bal_node_mask mask;
    bool changed;
    rc = bal_node_poll(p, &mask, &changed);
    if (rc != BAL_OK) { /* removed by a manager: its CPUs are gone */
      fprintf(stderr, "node_job: poll: %s\n", bal_strerror(rc));
      break;
    }
    if (changed) {
      char list[4096]; /* room for any mask of 1024 CPUs */
      bal_node_mask_format(&mask, list, sizeof list);
      printf("pid %ld: CPUs %s\n", (long)getpid(), list);
      fflush(stdout);
    }
    nanosleep(&tick, NULL); /* the work of one iteration, on the CPUs of `mask` */
  }
  bal_node_detach(p);
  return rc == BAL_OK ? 0 : 1;
}
