/* An OpenMP program that knows nothing of Ballast (for test_node_gomp):
 * ROUNDS parallel regions, 2 ms apart, each printing its team size. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  for (int r = 0; r < rounds; r++) {
    int n = 0;
#pragma omp parallel
    {
#pragma omp master
      n = omp_get_num_threads();
    }
    printf("%d\n", n);
    fflush(stdout);
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  return 0;
}
