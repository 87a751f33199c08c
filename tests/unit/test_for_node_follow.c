/* An attached pool follows the mask within one bal_for() call, across real
 * processes: a forked manager process shrinks and grows the parent's mask
 * (virtual registry of 8 CPUs, bal_node_manager_set waiting until the
 * parent applied it) while the parent runs one long loop whose bodies
 * record when and on which worker each index started. For every phase,
 * from 100 ms after the manager's set returned to the start of the next
 * set, the workers that started indices must be exactly workers 0 .. k-1
 * for a mask of k CPUs: never more than the mask after a shrink, all of
 * them after a grow. Every index runs exactly once. Then the same on a
 * registry of real CPUs 0 and 1 (skipped without them), where each index
 * must also run on the CPU its worker is bound to: worker 1 on CPU 1 of
 * mask 0-1, worker 0 on the single CPU of a one-CPU mask. */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ballast/ballast.h>

#include "node_check.h"

#define N 400000
#define MAX_PHASES 8
#define SETTLE_NS 100000000LL /* a 1 ms chunk, a poll, delays of a loaded machine */
#define PHASE_NS 400000000LL

/* One run: a registry (virtual CPUs, or 0: real), the pool's capacity, the
 * CPUs it attaches with (NULL: all free ones) and the masks a manager sets. */
typedef struct scenario {
  int64_t registry_cpus;
  int capacity;
  const char *attach;
  int nphases;
  const char *masks[MAX_PHASES];
} scenario;

static const scenario VIRTUAL = {8, 8, NULL, 6, {"0-2", "0-7", "0", "0-4", "3-7", "0-7"}};
static const scenario REAL = {0, 2, "0-1", 4, {"1", "0-1", "0", "0-1"}};

typedef struct shared {
  atomic_int done;
  int failed;
  int64_t start_ns;
  int64_t t[MAX_PHASES + 1];  /* t[i]: mask i applied; t[nphases]: end */
  int64_t tb[MAX_PHASES + 1]; /* tb[i]: just before mask i was set (it may apply from then on) */
} shared;

typedef struct record {
  int64_t *start;
  int *worker;
  int *cpu;
  _Atomic unsigned *hits;
  shared *sh;
} record;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts); /* system-wide: comparable across processes */
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ns(int64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
  nanosleep(&ts, NULL);
}

static void body(int64_t begin, int64_t end, void *arg) {
  record *r = arg;
  for (int64_t i = begin; i < end; i++) {
    r->start[i] = now_ns();
    r->worker[i] = bal_worker_id();
    r->cpu[i] = sched_getcpu();
    atomic_fetch_add(&r->hits[i], 1);
    if (!atomic_load(&r->sh->done)) sleep_ns(1000000);
  }
}

static int manager(const scenario *sc, const char *reg, pid_t job, int go, shared *sh) {
  char x;
  if (read(go, &x, 1) != 1) return 1;
  bal_node_manager *m;
  if (bal_node_manager_open(reg, &m) != BAL_OK) return 1;
  sh->start_ns = now_ns();
  for (int i = 0; i < sc->nphases; i++) {
    sleep_ns(PHASE_NS);
    bal_node_mask mask;
    bal_node_mask_parse(sc->masks[i], &mask);
    sh->tb[i] = now_ns();
    int rc = bal_node_manager_set(m, job, &mask, 10.0);
    if (rc != BAL_OK) {
      fprintf(stderr, "manager: set %s: %s\n", sc->masks[i], bal_strerror(rc));
      sh->failed = 1;
      break;
    }
    sh->t[i] = now_ns();
  }
  sleep_ns(PHASE_NS);
  sh->t[sc->nphases] = sh->tb[sc->nphases] = now_ns();
  atomic_store(&sh->done, 1);
  bal_node_manager_close(m);
  return 0;
}

/* Workers that started an index in [from, to). */
static unsigned workers_in(const record *r, int64_t from, int64_t to) {
  unsigned set = 0;
  for (int64_t i = 0; i < N; i++)
    if (r->start[i] >= from && r->start[i] < to && r->worker[i] >= 0 && r->worker[i] < 32)
      set |= 1u << r->worker[i];
  return set;
}

/* Returns the number of failed checks. */
static int run(const scenario *sc) {
  char reg[64];
  if (node_test_registry(reg, sc->registry_cpus) != BAL_OK) {
    fprintf(stderr, "cannot create a registry\n");
    return 1;
  }
  shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (sh == MAP_FAILED) return 1;
  memset(sh, 0, sizeof *sh);
  int go[2];
  if (pipe(go) != 0) return 1;
  pid_t self = getpid();
  pid_t child = fork(); /* before any pool thread exists */
  if (child < 0) return 1;
  if (child == 0) {
    close(go[1]);
    _exit(manager(sc, reg, self, go[0], sh));
  }
  close(go[0]);

  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  nc.registry = reg;
  bal_node_mask cpus;
  if (sc->attach) {
    bal_node_mask_parse(sc->attach, &cpus);
    nc.cpus = &cpus;
  }
  bal_pool_config cfg;
  bal_pool_config_init(&cfg);
  cfg.node = &nc;
  cfg.nthreads = sc->capacity;
  bal_pool *pool;
  int rc = bal_pool_create_with(&cfg, &pool);
  if (rc != BAL_OK) {
    fprintf(stderr, "pool: %s\n", bal_strerror(rc));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    bal_node_registry_destroy(reg);
    return 1;
  }
  record r = {calloc(N, sizeof(int64_t)), calloc(N, sizeof(int)), calloc(N, sizeof(int)),
              calloc(N, sizeof(unsigned)), sh};
  if (write(go[1], "g", 1) != 1) return 1;
  rc = bal_for(pool, 0, N, 1, body, &r);
  int status = 0;
  waitpid(child, &status, 0);
  int failures = 0;
  if (rc != BAL_OK || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || sh->failed) {
    fprintf(stderr, "bal_for %d, manager status %d\n", rc, status);
    failures++;
  }
  for (int64_t i = 0; i < N; i++)
    if (atomic_load(&r.hits[i]) != 1) {
      fprintf(stderr, "index %lld ran %u times\n", (long long)i, atomic_load(&r.hits[i]));
      failures++;
      break;
    }
  /* Phase -1: the attach mask, as many CPUs as the capacity. */
  int64_t from = sh->start_ns + SETTLE_NS;
  for (int i = -1; i < sc->nphases && !sh->failed; i++) {
    int k = sc->capacity;
    bal_node_mask mask;
    if (i >= 0) {
      bal_node_mask_parse(sc->masks[i], &mask);
      k = (int)bal_node_mask_count(&mask);
      from = sh->t[i] + SETTLE_NS;
    } else if (sc->attach) {
      bal_node_mask_parse(sc->attach, &mask);
    }
    int64_t to = sh->tb[i + 1];
    unsigned got = workers_in(&r, from, to), want = (1u << k) - 1;
    printf("mask %-4s from %+8.1f ms to %+8.1f ms: workers 0x%02x (want 0x%02x)\n",
           i < 0 ? "all" : sc->masks[i], (double)(from - sh->start_ns) / 1e6,
           (double)(to - sh->start_ns) / 1e6, got, want);
    if (got != want) {
      failures++;
      int shown = 0;
      for (int64_t j = 0; j < N && shown < 5; j++)
        if (r.start[j] >= from && r.start[j] < to && r.worker[j] >= k) {
          printf("  index %lld on worker %d at %+.3f ms\n", (long long)j, r.worker[j],
                 (double)(r.start[j] - sh->start_ns) / 1e6);
          shown++;
        }
    }
    if (sc->registry_cpus != 0) continue;
    /* Real CPUs: worker w >= 1 on the mask's w-th CPU, worker 0 within it. */
    int64_t misplaced = 0;
    for (int64_t j = 0; j < N; j++) {
      if (r.start[j] < from || r.start[j] >= to || r.worker[j] < 0) continue;
      int64_t seen = 0, want_cpu = -1;
      for (int64_t c = 0; c < BAL_NODE_MAX_CPUS && want_cpu < 0; c++)
        if (bal_node_mask_has(&mask, c) && seen++ == r.worker[j]) want_cpu = c;
      bool ok = r.worker[j] == 0 ? bal_node_mask_has(&mask, r.cpu[j]) : r.cpu[j] == want_cpu;
      if (!ok && misplaced++ < 3)
        printf("  index %lld: worker %d on CPU %d\n", (long long)j, r.worker[j], r.cpu[j]);
    }
    if (misplaced) failures++;
  }
  bal_pool_destroy(pool);
  bal_node_registry_destroy(reg);
  free(r.start);
  free(r.worker);
  free(r.cpu);
  free((void *)r.hits);
  munmap(sh, sizeof *sh);
  return failures;
}

/* No argument: the virtual registry; "real": CPUs 0 and 1 (77: skipped
 * without them). */
int main(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "real") != 0) {
    printf("virtual registry of 8 CPUs, 8 workers:\n");
    int failures = run(&VIRTUAL);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
  }
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_ISSET(0, &mine) ||
      !CPU_ISSET(1, &mine) || sysconf(_SC_NPROCESSORS_CONF) > BAL_NODE_MAX_CPUS) {
    printf("skipped: needs CPUs 0 and 1 (and at most %d CPUs)\n", BAL_NODE_MAX_CPUS);
    return 77;
  }
  printf("real CPUs 0-1, 2 workers:\n");
  int failures = run(&REAL);
  sched_setaffinity(0, sizeof mine, &mine);
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
