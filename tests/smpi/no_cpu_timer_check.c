/* The simulators' CPU-timer stub (tools/simulate-common/no_cpu_timer.c),
 * preloaded as the launchers preload it into smpimain: after burning
 * ~20 ms of CPU, the thread CPU clock reads exactly 0 with the stub
 * ("stub") and more than 10 ms without it ("real", which shows the check
 * can fail), and the monotonic clock advances either way.
 * Usage: no_cpu_timer_check stub|real */
#include <stdio.h>
#include <string.h>
#include <time.h>

static double secs(clockid_t id) {
  struct timespec ts = {-1, 0};
  if (clock_gettime(id, &ts) != 0) return -1;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "stub") && strcmp(argv[1], "real"))) {
    fprintf(stderr, "usage: no_cpu_timer_check stub|real\n");
    return 2;
  }
  double t0 = secs(CLOCK_MONOTONIC);
  volatile unsigned long x = 0;
  while (secs(CLOCK_MONOTONIC) - t0 < 0.02) x = x * 31 + 7; /* CPU, not sleep */
  double mono = secs(CLOCK_MONOTONIC) - t0, cpu = secs(CLOCK_THREAD_CPUTIME_ID);
  printf("monotonic %.6f s, thread CPU clock %.6f s\n", mono, cpu);
  if (mono < 0.02) return 1;
  if (!strcmp(argv[1], "stub")) return cpu == 0.0 ? 0 : 1;
  return cpu > 0.01 ? 0 : 1;
}
