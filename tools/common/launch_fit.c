/* What this machine can host, before `--ranks P` hands P to mpiexec
 * (launch.h): mpiexec takes any count and, past what the machine holds,
 * spends minutes starting ranks that cannot all run, deaf to SIGTERM. */
#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "launch.h"

/* Cores this process may run on (its affinity mask: a container's or a
 * batch job's share), at least 1. */
static long cores_here(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

double launch_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  double kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  if (f) fclose(f);
  if (kb >= 0) return kb * 1024.0;
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* One number from a /proc file, or -1. */
static long long proc_number(const char *path) {
  FILE *f = fopen(path, "r");
  long long v = -1;
  if (f) {
    if (fscanf(f, "%lld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

long long launch_max_map_count(void) {
  const char *env = getenv(LAUNCH_MAX_MAP_COUNT_ENV);
  if (env) {
    /* As strict as a flag: decimal digits only, no sign, no leading zero. */
    size_t n = strlen(env);
    if (n == 0 || n > 10 || env[0] == '0' || strspn(env, "0123456789") != n) return -2;
    long long v = strtoll(env, NULL, 10);
    return v < (1LL << 31) ? v : -2;
  }
  long long v = proc_number("/proc/sys/vm/max_map_count");
  return v > 0 ? v : -1;
}

/* Threads running now: the user's own (what RLIMIT_NPROC counts) in
 * *mine, everyone's (what threads-max counts) in *all. -1 if /proc cannot
 * be read. */
static void threads_now(long long *mine, long long *all) {
  *mine = *all = -1;
  DIR *d = opendir("/proc");
  if (!d) return;
  uid_t me = getuid();
  long long m = 0, a = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!isdigit((unsigned char)e->d_name[0])) continue;
    char path[300], line[128];
    snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f) continue; /* ended meanwhile */
    long long uid = -1, threads = 0;
    while (fgets(line, sizeof line, f)) {
      if (sscanf(line, "Uid: %lld", &uid) == 1) continue;
      if (sscanf(line, "Threads: %lld", &threads) == 1) break;
    }
    fclose(f);
    a += threads;
    if (uid == (long long)me) m += threads;
  }
  closedir(d);
  *mine = m;
  *all = a;
}

bool launch_fits(const char *prog, long long ranks) {
  /* mpiexec itself counted as one more rank. */
  double need = (double)(ranks + 1) * LAUNCH_RANK_BYTES, avail = launch_mem_available();
  if (avail > 0 && need > avail) {
    fprintf(stderr,
            "%s: --ranks %lld: the job needs about %.1f GB of memory (%.0f MB per rank), %.1f GB "
            "are available\n",
            prog, ranks, need / 1e9, LAUNCH_RANK_BYTES / 1e6, avail / 1e9);
    return false;
  }
  long long threads = (ranks + 1) * LAUNCH_RANK_THREADS, mine, all;
  threads_now(&mine, &all);
  struct rlimit rl;
  if (mine >= 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
      (long long)rl.rlim_cur - mine < threads) {
    fprintf(stderr,
            "%s: --ranks %lld: the job needs about %lld processes and threads (%d per rank), "
            "the process limit (ulimit -u, RLIMIT_NPROC) leaves %lld\n",
            prog, ranks, threads, LAUNCH_RANK_THREADS,
            (long long)rl.rlim_cur > mine ? (long long)rl.rlim_cur - mine : 0);
    return false;
  }
  long long max = proc_number("/proc/sys/kernel/threads-max");
  if (all >= 0 && max > 0 && max - all < threads) {
    fprintf(stderr,
            "%s: --ranks %lld: the job needs about %lld processes and threads (%d per rank), "
            "the system's limit (kernel.threads-max) leaves %lld\n",
            prog, ranks, threads, LAUNCH_RANK_THREADS, max > all ? max - all : 0);
    return false;
  }
  /* Last: the checks above are what the machine holds at all, this one
   * what it starts and runs in reasonable time. */
  long cores = cores_here();
  if (ranks > (long long)cores * LAUNCH_MAX_RANKS_PER_CORE) {
    fprintf(stderr,
            "%s: --ranks %lld: more than %d ranks per core on the %ld core%s this process may "
            "use (at most %lld here); run mpiexec yourself to go beyond\n",
            prog, ranks, LAUNCH_MAX_RANKS_PER_CORE, cores, cores > 1 ? "s" : "",
            (long long)cores * LAUNCH_MAX_RANKS_PER_CORE);
    return false;
  }
  return true;
}
