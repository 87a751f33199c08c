/* Where the kernel wakes a sleeping thread (docs/for.md, "Waking a
 * sleeping worker"): the reason src/for/steer.c exists, measured without
 * Ballast. A thread sleeps on a condition variable; the main thread
 * sleeps a gap, wakes it, and spins. The woken thread records when it
 * started and on which CPU. Two ways, alternating every round:
 *   plain    the kernel places the woken thread
 *   steered  just before the wake-up it gets a one-CPU affinity on a CPU
 *            other than the waker's, and restores its own set once running
 * Prints per way the wake-up latency (p10, p50, p90, max) and how often the
 * woken thread started on the waker's CPU; the ratio of the medians,
 * steered / plain, is the figure.
 * Usage: bench_for_wake_place [ROUNDS (default 100)] [GAP_MS (default 30)] */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static atomic_int epoch, started_cpu, steered;
static atomic_llong started_ns;
static cpu_set_t home;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin_until(long long t) {
  while (now_ns() < t) {
  }
}

static void *sleeper(void *arg) {
  (void)arg;
  int seen = 0;
  for (;;) {
    pthread_mutex_lock(&lock);
    while (atomic_load(&epoch) == seen) pthread_cond_wait(&cond, &lock);
    seen = atomic_load(&epoch);
    pthread_mutex_unlock(&lock);
    if (seen < 0) return NULL;
    atomic_store(&started_cpu, sched_getcpu());
    atomic_store(&started_ns, now_ns());
    if (atomic_exchange(&steered, 0)) pthread_setaffinity_np(pthread_self(), sizeof home, &home);
    spin_until(now_ns() + 2000000); /* 2 ms of work, as a loop's share */
  }
}

static int cmp(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 100, gap_ms = argc > 2 ? atoi(argv[2]) : 30;
  if (rounds < 2 || gap_ms < 1 || sched_getaffinity(0, sizeof home, &home) != 0 ||
      CPU_COUNT(&home) < 2) {
    fprintf(stderr, "usage: %s [ROUNDS >= 2] [GAP_MS >= 1]; needs 2 CPUs\n", argv[0]);
    return 77;
  }
  pthread_t t;
  pthread_create(&t, NULL, sleeper, NULL);
  long long *lat[2];
  int same[2] = {0, 0}, n[2] = {0, 0};
  lat[0] = malloc(sizeof(long long) * (size_t)rounds);
  lat[1] = malloc(sizeof(long long) * (size_t)rounds);
  for (int r = 0; r < 2 * rounds; r++) {
    int way = r % 2; /* 0 plain, 1 steered */
    struct timespec gap = {gap_ms / 1000, (gap_ms % 1000) * 1000000L};
    nanosleep(&gap, NULL);
    atomic_store(&started_ns, 0);
    int here = sched_getcpu();
    long long t0 = now_ns();
    if (way == 1) {
      cpu_set_t one;
      CPU_ZERO(&one);
      for (int k = 1; k <= CPU_SETSIZE; k++) {
        int cpu = (here + k) % CPU_SETSIZE;
        if (cpu != here && CPU_ISSET(cpu, &home)) {
          CPU_SET(cpu, &one);
          break;
        }
      }
      pthread_setaffinity_np(t, sizeof one, &one);
      atomic_store(&steered, 1);
    }
    pthread_mutex_lock(&lock);
    atomic_fetch_add(&epoch, 1);
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    spin_until(t0 + 5000000); /* the caller's own 5 ms */
    while (atomic_load(&started_ns) == 0) {
    }
    lat[way][n[way]++] = atomic_load(&started_ns) - t0;
    same[way] += atomic_load(&started_cpu) == here;
    spin_until(now_ns() + 2000000); /* let the sleeper finish its work */
  }
  const char *names[2] = {"plain", "steered"};
  double p50[2];
  for (int w = 0; w < 2; w++) {
    qsort(lat[w], (size_t)n[w], sizeof **lat, cmp);
    p50[w] = lat[w][n[w] / 2] / 1e3;
    printf("%-8s wake-up latency us: p10 %.0f p50 %.0f p90 %.0f max %.0f; on the waker's CPU "
           "%d of %d\n",
           names[w], lat[w][n[w] / 10] / 1e3, p50[w], lat[w][n[w] * 9 / 10] / 1e3,
           lat[w][n[w] - 1] / 1e3, same[w], n[w]);
  }
  printf("steered / plain, median latency: %.3f\n", p50[1] / p50[0]);
  pthread_mutex_lock(&lock);
  atomic_store(&epoch, -1);
  pthread_cond_broadcast(&cond);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  free(lat[0]);
  free(lat[1]);
  return 0;
}
