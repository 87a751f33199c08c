/* bench_node_run: how long `ballast node run` takes to start a command
 * next to two running jobs, and how long those jobs take to apply the
 * masks it gave them.
 *
 * A registry of 16 virtual CPUs holds two mates, children of this program:
 * job 1 on CPUs 0-7 and job 2 on 8-15, each polling its mask every
 * MATE_PERIOD_US (a malleability point every 100 us) and reporting every
 * change, with its time, through a pipe. Each repetition runs
 *   ballast-node run --registry R --next-to 1,2 -- THIS --stamp
 * (the rule gives CMD 4-7,12-15; the mates shrink to 4 CPUs each), where
 * CMD is this program again: its main() prints CLOCK_MONOTONIC and exits,
 * and its CPUs go back. Measured per repetition, from just before the
 * spawn of `ballast-node run`:
 *   - to CMD's main() (exec, plus CMD's own dynamic loading: an upper
 *     bound of "to exec");
 *   - to each mate's poll that saw its new mask (shrink);
 * and, interleaved, the same spawn of THIS --stamp directly, without
 * `ballast node run` (the baseline: what starting any program costs here).
 * CMD holds its CPUs until both mates have shrunk (the driver then closes
 * its stdin), and each repetition waits until both have their 8 CPUs back.
 *
 * Usage: bench_node_run BALLAST_NODE [REPS]   (default 1000)
 *   BALLAST_NODE: the ballast-node program (build/tools/ballast-node) */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_node.h"

extern char **environ;

enum { MATE_PERIOD_US = 100 };

typedef struct record {
  int32_t job;
  int32_t ncpus;
  int64_t ns;
} record;

static volatile sig_atomic_t stop;
static void on_term(int sig) {
  (void)sig;
  stop = 1;
}

/* A mate: attach on CPUs first..last as job `job`, poll until told to stop. */
static int mate(const char *reg, int job, int64_t first, int64_t last, int out) {
  signal(SIGTERM, on_term);
  bal_node_mask cpus;
  bal_node_mask_zero(&cpus);
  bal_node_mask_add(&cpus, first, last);
  bal_node_attach_config cfg;
  bal_node_attach_config_init(&cfg);
  cfg.registry = reg;
  cfg.job = job;
  cfg.cpus = &cpus;
  bal_node_proc *p;
  int rc = bal_node_attach(&cfg, &p);
  if (rc != BAL_OK) {
    fprintf(stderr, "bench_node_run: mate %d: attach: %s\n", job, bal_strerror(rc));
    return 1;
  }
  struct timespec period = {0, MATE_PERIOD_US * 1000L};
  while (!stop) {
    bal_node_mask m;
    bool changed;
    if (bal_node_poll(p, &m, &changed) != BAL_OK) break;
    if (changed) {
      record r = {job, (int32_t)bal_node_mask_count(&m), bench_now_ns()};
      if (write(out, &r, sizeof r) != (ssize_t)sizeof r) break;
    }
    nanosleep(&period, NULL);
  }
  bal_node_detach(p);
  return 0;
}

/* Read one record (waiting up to 5 s). */
static bool next_record(int fd, record *r) {
  struct pollfd pf = {fd, POLLIN, 0};
  if (poll(&pf, 1, 5000) != 1) return false;
  return read(fd, r, sizeof *r) == (ssize_t)sizeof *r;
}

/* Wait until both mates report `ncpus` CPUs; their times go to t[0], t[1]. */
static bool mates_at(int fd, int32_t ncpus, int64_t t[2]) {
  bool seen[2] = {false, false};
  while (!seen[0] || !seen[1]) {
    record r;
    if (!next_record(fd, &r)) return false;
    if (r.ncpus == ncpus && (r.job == 1 || r.job == 2)) {
      seen[r.job - 1] = true;
      t[r.job - 1] = r.ns;
    }
  }
  return true;
}

typedef struct spawned {
  pid_t pid;
  int in, out; /* CMD's stdin (ours to close) and stdout (ours to read) */
} spawned;

/* Spawn argv with stdin and stdout on pipes and stderr on /dev/null;
 * return the time CMD printed (its main()), or -1. CMD holds its CPUs
 * until finish(). */
static int64_t spawn_stamp(char *const argv[], spawned *sp) {
  int fd[2], in[2];
  if (pipe2(fd, O_CLOEXEC) != 0) return -1;
  if (pipe2(in, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd[1]);
  close(in[0]);
  sp->pid = pid;
  sp->in = in[1];
  sp->out = fd[0];
  if (rc != 0) {
    sp->pid = -1;
    return -1;
  }
  char buf[64] = {0};
  ssize_t n = 0, k;
  while (!strchr(buf, '\n') && n < (ssize_t)sizeof buf - 1 &&
         (k = read(fd[0], buf + n, sizeof buf - 1 - (size_t)n)) > 0)
    n += k;
  return n > 0 ? atoll(buf) : -1;
}

/* Let CMD end (close its stdin) and wait for it; its exit status. */
static int finish(spawned *sp) {
  close(sp->in);
  close(sp->out);
  int st = -1;
  if (sp->pid > 0)
    while (waitpid(sp->pid, &st, 0) < 0 && errno == EINTR) {
    }
  return st;
}

static void report(const char *what, double *v, int64_t n) {
  double med = bench_median(v, n);
  printf("  %-42s median %8.3f ms  (p10 %.3f, p90 %.3f)\n", what, med,
         bench_quantile_sorted(v, n, 0.1), bench_quantile_sorted(v, n, 0.9));
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--stamp")) {
    printf("%lld\n", (long long)bench_now_ns());
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0) { /* hold the CPUs until the driver closes stdin */
    }
    return 0;
  }
  int64_t reps = argc > 2 ? atoll(argv[2]) : 1000;
  if (argc < 2 || argc > 3 || reps < 1) {
    fprintf(stderr, "usage: bench_node_run BALLAST_NODE [REPS]\n");
    return 2;
  }
  char self[4096];
  ssize_t sn = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sn <= 0) return 1;
  self[sn] = '\0';
  char reg[64];
  if (bench_node_registry(reg, sizeof reg, "run", 16) != BAL_OK) return 1;

  int rec[2];
  if (pipe2(rec, O_CLOEXEC) != 0) return 1;
  pid_t mates[2];
  for (int k = 0; k < 2; k++) {
    mates[k] = fork();
    if (mates[k] == 0) {
      close(rec[0]);
      _exit(mate(reg, k + 1, 8 * k, 8 * k + 7, rec[1]));
    }
  }
  close(rec[1]);
  int64_t t[2];
  int code = 1;
  if (!mates_at(rec[0], 8, t)) {
    fprintf(stderr, "bench_node_run: the mates did not attach\n");
    goto out;
  }
  char *run_argv[] = {argv[1], "run", "--registry", reg, "--next-to", "1,2", "--", self,
                      "--stamp", NULL};
  char *direct_argv[] = {self, "--stamp", NULL};
  double *run_ms = malloc(sizeof(double) * (size_t)reps);
  double *direct_ms = malloc(sizeof(double) * (size_t)reps);
  double *shrink_ms = malloc(sizeof(double) * (size_t)reps * 2);
  double *after_exec_ms = malloc(sizeof(double) * (size_t)reps * 2);
  if (!run_ms || !direct_ms || !shrink_ms || !after_exec_ms) goto out;
  for (int64_t r = 0; r < reps; r++) {
    spawned sp;
    int64_t t0 = bench_now_ns();
    int64_t s = spawn_stamp(direct_argv, &sp);
    int st = finish(&sp);
    if (s < 0 || st != 0) {
      fprintf(stderr, "bench_node_run: %s --stamp failed\n", self);
      goto out;
    }
    direct_ms[r] = (double)(s - t0) * 1e-6;
    t0 = bench_now_ns();
    s = spawn_stamp(run_argv, &sp);
    bool shrunk = s >= 0 && mates_at(rec[0], 4, t);
    st = finish(&sp);
    if (s < 0 || st != 0) {
      fprintf(stderr, "bench_node_run: %s run ... failed (status %d)\n", argv[1], st);
      goto out;
    }
    if (!shrunk) {
      fprintf(stderr, "bench_node_run: the mates did not shrink to 4 CPUs\n");
      goto out;
    }
    run_ms[r] = (double)(s - t0) * 1e-6;
    for (int k = 0; k < 2; k++) {
      shrink_ms[2 * r + k] = (double)(t[k] - t0) * 1e-6;
      after_exec_ms[2 * r + k] = (double)(t[k] - s) * 1e-6;
    }
    if (!mates_at(rec[0], 8, t)) {
      fprintf(stderr, "bench_node_run: the mates did not get their CPUs back\n");
      goto out;
    }
  }
  printf("ballast node run next to two jobs (16 virtual CPUs, mates poll every %d us), "
         "%lld repetitions\n",
         MATE_PERIOD_US, (long long)reps);
  report("command -> CMD's main(), through `run`", run_ms, reps);
  report("command -> CMD's main(), spawned directly", direct_ms, reps);
  printf("  difference of the medians (run's own cost)        %8.3f ms\n",
         bench_median(run_ms, reps) - bench_median(direct_ms, reps));
  report("command -> a mate applied its new mask", shrink_ms, 2 * reps);
  report("CMD's main() -> a mate applied it (< 0: before)", after_exec_ms, 2 * reps);
  bench_print_load();
  code = 0;
out:
  for (int k = 0; k < 2; k++) {
    kill(mates[k], SIGTERM);
    waitpid(mates[k], NULL, 0);
  }
  bal_node_registry_destroy(reg);
  return code;
}
