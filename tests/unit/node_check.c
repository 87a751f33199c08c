#include "node_check.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ballast/error.h>

int node_test_registry(char name[64], int64_t ncpus) {
  static int counter;
  /* The clock's nanoseconds too: a run killed by a timeout leaves its
   * segments behind, and a later run given the same pid must not collide
   * with them (create refuses an existing name with BAL_EBUSY). */
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  snprintf(name, 64, "/ballast-test-node-%ld-%d-%ld", (long)getpid(), counter++, (long)now.tv_nsec);
  bal_node_registry_config cfg;
  bal_node_registry_config_init(&cfg);
  cfg.name = name;
  cfg.virtual_cpus = ncpus;
  return bal_node_registry_create(&cfg);
}

int node_test_pool(const char *reg, int nthreads, bal_pool **out) {
  return node_test_pool_on(reg, nthreads, NULL, out);
}

int node_test_pool_on(const char *reg, int nthreads, const bal_node_mask *cpus, bal_pool **out) {
  bal_node_attach_config nc;
  bal_node_attach_config_init(&nc);
  nc.registry = reg;
  nc.cpus = cpus;
  bal_pool_config cfg;
  bal_pool_config_init(&cfg);
  cfg.nthreads = nthreads;
  cfg.node = &nc;
  return bal_pool_create_with(&cfg, out);
}

int node_fixture_setup(void **state) {
  static node_fixture f;
  if (node_test_registry(f.name, 16) != BAL_OK) return -1;
  if (bal_node_manager_open(f.name, &f.m) != BAL_OK) return -1;
  *state = &f;
  return 0;
}

int node_fixture_teardown(void **state) {
  node_fixture *f = *state;
  bal_node_manager_close(f->m);
  return bal_node_registry_destroy(f->name) == BAL_OK ? 0 : -1;
}

typedef struct reply {
  int rc;
  char mask[256];
} reply;

static void full_write(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n > 0) {
    ssize_t k = write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) _exit(3);
    p += k;
    n -= (size_t)k;
  }
}

static bool full_read(int fd, void *buf, size_t n) {
  char *p = buf;
  while (n > 0) {
    ssize_t k = read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= (size_t)k;
  }
  return true;
}

static void child_main(int in, int out, const char *registry, int64_t job, int64_t ranks, const char *cpus) {
  bal_node_proc *p = NULL;
  bal_node_mask want;
  bool have_cpus = cpus && *cpus && bal_node_mask_parse(cpus, &want) == BAL_OK;
  char cmd;
  while (full_read(in, &cmd, 1)) {
    reply r = {0};
    bal_node_mask m;
    bal_node_mask_zero(&m);
    if (cmd == 'x') _exit(0);
    if (cmd == 'a') {
      bal_node_attach_config cfg;
      bal_node_attach_config_init(&cfg);
      cfg.registry = registry;
      cfg.job = job;
      cfg.ranks = ranks;
      cfg.cpus = have_cpus ? &want : NULL;
      r.rc = bal_node_attach(&cfg, &p);
    } else if (cmd == 'p') {
      r.rc = bal_node_poll(p, &m, NULL);
    } else if (cmd == 'w') {
      bool changed = false;
      struct timespec ts = {0, 100000};
      for (int i = 0; i < 100000; i++) {
        r.rc = bal_node_poll(p, &m, &changed);
        if (r.rc != BAL_OK || changed) break;
        nanosleep(&ts, NULL);
      }
    } else if (cmd == 'g') { /* the affinity of this (polling) thread */
      cpu_set_t set;
      CPU_ZERO(&set);
      r.rc = sched_getaffinity(0, sizeof set, &set) == 0 ? BAL_OK : BAL_ESYS;
      for (int c = 0; c < CPU_SETSIZE && c < BAL_NODE_MAX_CPUS; c++)
        if (CPU_ISSET(c, &set)) bal_node_mask_add(&m, c, c);
    } else if (cmd == 'l') {
      r.rc = bal_node_lend(p);
    } else if (cmd == 'r') {
      r.rc = bal_node_reclaim(p);
    } else if (cmd == 'd') {
      r.rc = bal_node_detach(p);
      p = NULL;
    }
    bal_node_mask_format(&m, r.mask, sizeof r.mask);
    full_write(out, &r, sizeof r);
  }
  _exit(0);
}

void node_child_spawn(node_child *c, const char *registry, int64_t job, int64_t ranks, const char *cpus) {
  int down[2], up[2];
  signal(SIGPIPE, SIG_IGN); /* a killed child's pipe must not kill the test */
  if (pipe(down) || pipe(up)) abort();
  pid_t pid = fork();
  if (pid < 0) abort();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    child_main(down[0], up[1], registry, job, ranks, cpus);
  }
  close(down[0]);
  close(up[1]);
  c->pid = pid;
  c->to = down[1];
  c->from = up[0];
}

void node_child_send(node_child *c, char cmd) { full_write(c->to, &cmd, 1); }

int node_child_reply(node_child *c, char *mask) {
  reply r;
  if (!full_read(c->from, &r, sizeof r)) return -1000;
  if (mask) snprintf(mask, 256, "%s", r.mask);
  return r.rc;
}

int node_child_cmd(node_child *c, char cmd, char *mask) {
  node_child_send(c, cmd);
  return node_child_reply(c, mask);
}

void node_child_end(node_child *c) {
  char cmd = 'x';
  if (write(c->to, &cmd, 1) < 0) kill(c->pid, SIGKILL);
  close(c->to);
  close(c->from);
  waitpid(c->pid, NULL, 0);
}

void node_mask_of(bal_node_manager *m, int64_t pid, char out[256]) {
  bal_node_proc_info info[BAL_NODE_MAX_PROCS];
  int n = bal_node_manager_list(m, info, BAL_NODE_MAX_PROCS);
  snprintf(out, 256, "-");
  for (int i = 0; i < n; i++)
    if (info[i].pid == pid) bal_node_mask_format(&info[i].mask, out, 256);
}

int node_stress_scale(void) {
  const char *s = getenv("BALLAST_STRESS_SCALE");
  int v = s ? atoi(s) : 1;
  return v >= 1 && v <= 100 ? v : 1;
}

bool node_invariant(bal_node_manager *m) {
  static bal_node_proc_info info[BAL_NODE_MAX_PROCS];
  static bal_node_cpu_info cpu[BAL_NODE_MAX_CPUS];
  int n = bal_node_manager_list(m, info, BAL_NODE_MAX_PROCS);
  int ncpus = bal_node_manager_cpus(m, cpu, BAL_NODE_MAX_CPUS);
  if (n < 0 || ncpus < 0) return false;
  /* The two snapshots are taken under separate locks and others may act
   * in between, so each is checked on its own. */
  bal_node_mask seen;
  bal_node_mask_zero(&seen);
  for (int i = 0; i < n; i++) {
    if (bal_node_mask_count(&info[i].mask) < 1) return false;
    for (int64_t c = 0; c < BAL_NODE_MAX_CPUS; c++) {
      if (!bal_node_mask_has(&info[i].mask, c)) continue;
      if (c >= ncpus || bal_node_mask_has(&seen, c)) return false;
      bal_node_mask_add(&seen, c, c);
    }
    for (int64_t c = 0; c < BAL_NODE_MAX_CPUS; c++)
      if (bal_node_mask_has(&info[i].borrowed, c) && !bal_node_mask_has(&info[i].mask, c)) return false;
  }
  for (int c = 0; c < ncpus; c++) {
    if (cpu[c].pid < 0 && (cpu[c].job != -1 || cpu[c].owner != -1)) return false;
    if (cpu[c].owner >= 0 && cpu[c].owner == cpu[c].job) return false;
    /* a lender is a job still here: its processes hold at least one CPU */
    bool lender_here = cpu[c].owner < 0;
    for (int d = 0; d < ncpus && !lender_here; d++) lender_here = cpu[d].job == cpu[c].owner;
    if (!lender_here) return false;
    /* Lending: a free CPU is used by nobody; a CPU not lent is used by its
     * holder; a lent one is used by nobody or by another process, which
     * was registered and attached at the time of the snapshot. */
    if (cpu[c].pid < 0 && (cpu[c].user != -1 || cpu[c].lent)) return false;
    if (cpu[c].pid >= 0 && !cpu[c].lent && cpu[c].user != cpu[c].pid) return false;
    if (cpu[c].lent && cpu[c].user == cpu[c].pid) return false;
    /* A process lends all it holds or nothing, and one that lends uses no
     * CPU: a lent CPU's user holds CPUs of its own (every registered
     * process does) and lends none of them. */
    for (int d = 0; d < ncpus; d++) {
      if (cpu[d].pid == cpu[c].pid && cpu[c].pid >= 0 && cpu[d].lent != cpu[c].lent) return false;
      if (cpu[c].lent && cpu[c].user >= 0 && cpu[d].pid == cpu[c].user && cpu[d].lent) return false;
    }
    bool user_holds = cpu[c].user < 0;
    for (int d = 0; d < ncpus && !user_holds; d++) user_holds = cpu[d].pid == cpu[c].user;
    if (!user_holds) return false;
  }
  return true;
}
