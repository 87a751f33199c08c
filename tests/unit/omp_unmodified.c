/* An OpenMP program that knows nothing of Ballast (for test_node_gomp):
 * ROUNDS parallel regions of one construct, 2 ms apart, each printing its
 * team size. CONSTRUCT: parallel (GCC calls GOMP_parallel), dynamic,
 * guided, runtime (`parallel for` with that schedule: the
 * GOMP_parallel_loop_* entries) or sections (GOMP_parallel_sections). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Without a reduction clause, so that GCC emits the combined entries. */
static int team(const char *construct) {
  int n = 0, size[64] = {0};
  if (strcmp(construct, "parallel") == 0) {
#pragma omp parallel
    {
#pragma omp master
      n = omp_get_num_threads();
    }
  } else if (strcmp(construct, "dynamic") == 0) {
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < 64; i++) size[i] = omp_get_num_threads();
  } else if (strcmp(construct, "guided") == 0) {
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < 64; i++) size[i] = omp_get_num_threads();
  } else if (strcmp(construct, "runtime") == 0) {
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < 64; i++) size[i] = omp_get_num_threads();
  } else if (strcmp(construct, "sections") == 0) {
#pragma omp parallel sections
    {
#pragma omp section
      size[0] = omp_get_num_threads();
#pragma omp section
      size[1] = omp_get_num_threads();
    }
  }
  for (int i = 0; i < 64; i++)
    if (size[i] > n) n = size[i];
  return n;
}

int main(int argc, char **argv) {
  const char *construct = argc > 1 ? argv[1] : "parallel";
  int rounds = argc > 2 ? atoi(argv[2]) : 10;
  for (int r = 0; r < rounds; r++) {
    printf("%d\n", team(construct));
    fflush(stdout);
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}
