/* `ballast node run -- CMD ARGS`: like DLB's `dlb_taskset --run`
 * ([D'Amico 2018]), start CMD as a guest of the jobs on the node.
 *
 * CMD must be admitted before it runs: once exec'ed, a Ballast program
 * attaches at start-up, and it must find its admitted entry rather than
 * claim free CPUs of its own. So the child is forked and waits on a pipe
 * (the gate) while this process admits its pid (pid and start time do not
 * change at exec); the gate opens only after a successful admission, and
 * a refused one ends the child without running anything.
 *
 * CMD stays in this process's group, so that it keeps the terminal (stdin,
 * job control) as with taskset. SIGTERM, SIGINT and SIGHUP sent to this
 * process are passed to CMD; those the terminal sends (si_code SI_KERNEL)
 * reach the whole foreground group, CMD included, and are not sent twice.
 *
 * When CMD ends it is removed while still a zombie (waitid with WNOWAIT),
 * so its pid cannot have been reused by another process yet; then it is
 * reaped. Its CPUs go back by the rule. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cli.h"
#include "common/json.h"
#include "node_tool.h"

static volatile sig_atomic_t child_pid;  /* > 0 once CMD may run */
static volatile sig_atomic_t got_signal; /* a forwarded signal, for an early stop */

static void forward(int sig, siginfo_t *info, void *uctx) {
  (void)uctx;
  int e = errno;
  got_signal = sig;
  if (child_pid > 0 && info->si_code != SI_KERNEL) kill((pid_t)child_pid, sig);
  errno = e;
}

static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])

/* The child: wait for the gate, then become CMD. */
static void child(int gate, const node_opts *o) {
  char go = 0;
  ssize_t r;
  while ((r = read(gate, &go, 1)) < 0 && errno == EINTR) {
  }
  if (r != 1) _exit(126); /* not admitted: run nothing */
  setenv(BAL_NODE_REGISTRY_ENV, o->registry, 1);
  execvp(o->cmd[0], o->cmd);
  int e = errno;
  fprintf(stderr, "%s: cannot run '%s': %s\n", NODE_PROG, o->cmd[0], strerror(e));
  _exit(e == ENOENT ? 127 : 126);
}

/* Every job of --next-to has a process here; else say which has none. */
static int check_next_to(bal_node_manager *m, const node_opts *o) {
  static bal_node_proc_info procs[BAL_NODE_MAX_PROCS];
  int n = bal_node_manager_list(m, procs, BAL_NODE_MAX_PROCS);
  if (n < 0) return node_fail(o->registry, n);
  for (int64_t k = 0; k < o->n_next_to; k++) {
    bool found = false;
    for (int i = 0; i < n && i < BAL_NODE_MAX_PROCS; i++) found = found || procs[i].job == o->next_to[k];
    if (!found) {
      fprintf(stderr, "%s: --next-to: job %" PRId64 " has no process in registry '%s'\n",
              NODE_PROG, o->next_to[k], o->registry);
      return 1;
    }
  }
  return 0;
}

/* Admit pid by the rule and check what it got; 0 or the exit status. */
static int admit(bal_node_manager *m, const node_opts *o, pid_t pid, int64_t job,
                 bal_node_mask *granted) {
  int rc = bal_node_manager_admit(m, pid, job, o->ranks, o->next_to, o->n_next_to, granted);
  if (rc == BAL_EBUSY) {
    fprintf(stderr,
            "%s: run: no CPU for CMD: none is free and no other job next to it has one to "
            "lend (each keeps one per rank), or the registry is full; nothing started\n",
            NODE_PROG);
    return 1;
  }
  if (rc == BAL_ENOTFOUND) { /* a job of --next-to ended meanwhile, or the child died */
    fprintf(stderr, "%s: run: a job of --next-to has no process left, or CMD's process died\n",
            NODE_PROG);
    return 1;
  }
  if (rc != BAL_OK) return node_fail("run: admission", rc);
  int64_t got = bal_node_mask_count(granted);
  if (got < o->min_cpus) {
    bal_node_manager_remove(m, pid); /* every CPU back where it came from */
    char list[BAL_NODE_MAX_CPUS * 6];
    bal_node_mask_format(granted, list, sizeof list);
    fprintf(stderr,
            "%s: --cpus: the rule gives CMD %" PRId64 " CPUs (%s), fewer than %" PRId64
            "; nothing started\n",
            NODE_PROG, got, list, o->min_cpus);
    return 1;
  }
  return 0;
}

/* Real CPUs: bind the child before it runs, as taskset would, so that a
 * program that never attaches stays on its CPUs too. */
static int bind(bal_node_manager *m, pid_t pid, const bal_node_mask *granted) {
  bool is_virtual = true;
  int64_t ncpus = 0;
  bal_node_manager_info(m, &ncpus, &is_virtual);
  if (is_virtual) return 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int64_t c = 0; c < ncpus && c < CPU_SETSIZE; c++)
    if (bal_node_mask_has(granted, c)) CPU_SET((int)c, &set);
  if (sched_setaffinity(pid, sizeof set, &set) == 0) return 0;
  fprintf(stderr, "%s: run: cannot bind CMD to its CPUs: %s; nothing started\n", NODE_PROG,
          strerror(errno));
  bal_node_manager_remove(m, pid);
  return 1;
}

static int reap(pid_t pid) {
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void print_json(const node_opts *o, pid_t pid, int64_t job, const bal_node_mask *granted,
                       int status) {
  char list[BAL_NODE_MAX_CPUS * 6];
  bal_node_mask_format(granted, list, sizeof list);
  json_writer j;
  node_json_begin(&j, o);
  json_int(&j, "cpus", o->min_cpus);
  json_int(&j, "job", job);
  json_int(&j, "ranks", o->ranks);
  json_array_begin(&j, "next_to");
  for (int64_t k = 0; k < o->n_next_to; k++) json_int(&j, NULL, o->next_to[k]);
  json_array_end(&j);
  json_array_begin(&j, "argv");
  for (char **a = o->cmd; *a; a++) json_string(&j, NULL, *a);
  json_array_end(&j);
  json_int(&j, "pid", pid);
  json_string(&j, "granted", list);
  json_int(&j, "status", status);
  json_object_end(&j);
  if (!json_finish(&j)) cli_output_failed("--json");
}

int node_run(const node_opts *o) {
  bal_node_manager *m;
  int rc = node_open(o, &m);
  if (rc) return rc;
  if ((rc = check_next_to(m, o)) != 0) {
    bal_node_manager_close(m);
    return rc;
  }
  int gate[2];
  if (pipe(gate) != 0) {
    fprintf(stderr, "%s: run: pipe: %s\n", NODE_PROG, strerror(errno));
    bal_node_manager_close(m);
    return 1;
  }
  fflush(NULL); /* or the child would repeat what is still buffered */
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "%s: run: cannot start %s: %s\n", NODE_PROG, o->cmd[0], strerror(errno));
    close(gate[0]);
    close(gate[1]);
    bal_node_manager_close(m);
    return 1;
  }
  if (pid == 0) {
    close(gate[1]);
    child(gate[0], o);
  }
  close(gate[0]);
  /* Handlers after fork: the child keeps the default dispositions. A
   * signal before this line ends this process, which closes the gate:
   * the child then ends too, and a later manager call cleans its entry. */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = forward;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (size_t k = 0; k < NFORWARDED; k++) sigaction(forwarded[k], &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* a child killed at the gate is seen by waitid below */

  int64_t job = o->job_given ? o->job : (int64_t)pid;
  bal_node_mask granted;
  bal_node_mask_zero(&granted);
  rc = admit(m, o, pid, job, &granted);
  if (!rc) rc = bind(m, pid, &granted);
  /* From here until child_pid is set, a signal stays pending: either it
   * came before (undo, run nothing) or it is forwarded once the gate may
   * open (to the child, still at the gate or already CMD). */
  sigset_t block, saved;
  sigemptyset(&block);
  for (size_t k = 0; k < NFORWARDED; k++) sigaddset(&block, forwarded[k]);
  sigprocmask(SIG_BLOCK, &block, &saved);
  if (!rc && got_signal) { /* stopped before CMD ran: undo, run nothing */
    bal_node_manager_remove(m, pid);
    rc = 128 + got_signal;
  }
  if (!rc) child_pid = pid;
  sigprocmask(SIG_SETMASK, &saved, NULL);
  if (rc) {
    close(gate[1]);
    reap(pid);
    bal_node_manager_close(m);
    if (got_signal) {
      signal(got_signal, SIG_DFL);
      raise(got_signal);
    }
    return rc;
  }
  if (isatty(STDERR_FILENO)) {
    char list[BAL_NODE_MAX_CPUS * 6];
    bal_node_mask_format(&granted, list, sizeof list);
    fprintf(stderr, "%s: pid %d (job %" PRId64 ") runs on CPUs %s\n", NODE_PROG, (int)pid, job,
            list);
  }
  ssize_t w = write(gate[1], "g", 1);
  (void)w; /* if it failed, the child is gone: waitid reports how */
  close(gate[1]);

  siginfo_t info;
  while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  rc = bal_node_manager_remove(m, pid);
  if (rc == BAL_EFORMAT) /* truncated or overwritten while CMD ran: nothing to give back to */
    fprintf(stderr,
            "%s: run: registry '%s' went bad while CMD ran (truncated or overwritten); remove "
            "it with 'ballast node destroy --force --registry %s'\n",
            NODE_PROG, o->registry, o->registry);
  else if (rc != BAL_OK && rc != BAL_ENOTFOUND) /* ENOTFOUND: CMD detached, or a manager removed it */
    fprintf(stderr, "%s: run: giving CMD's CPUs back: %s (the next manager call will)\n",
            NODE_PROG, bal_strerror(rc));
  int status = reap(pid);
  child_pid = 0;
  bal_node_manager_close(m);
  if (o->json) print_json(o, pid, job, &granted, status);
  return status;
}
